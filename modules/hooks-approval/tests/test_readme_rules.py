"""The README's example rules mean what the README says they mean: one test per rule line,
with what each lets through and what it must not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_approval import RuleSet, parse_config, subject_of

from .support import readme_rules

RULES = readme_rules()
WORKSPACE = "/ws"


def by_name(name: str) -> dict[str, Any]:
    return next(rule for rule in RULES if rule["name"] == name)


def decide(tool: str, **tool_input: Any) -> tuple[str, str]:
    """(action, deciding rule or default) of the README's whole config for one call."""
    rules = RuleSet(parse_config({"rules": RULES}))
    decision = rules.decide(subject_of({"tool_name": tool, "tool_input": tool_input}, WORKSPACE))
    return decision.action, decision.rule_name


def test_every_rule_line_has_its_test() -> None:
    names = {rule["name"] for rule in RULES}
    tested = {"tests", "npm-test", "pipe-to-head", "no-force-push", "secrets", "docs", "confirm-ci"}
    assert names == tested


@pytest.mark.parametrize(
    "command",
    [
        "pytest",
        "pytest -q",
        "pytest -x -q",
        "pytest -vv tests/",
        "pytest tests/test_app.py::test_one",
        "pytest --lf",
        "pytest -q -k login",
    ],
)
def test_tests_allows_running_the_suite(command: str) -> None:
    assert decide("bash", command=command) == ("allow", "tests")


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q --basetemp=/home/me/project",
        "pytest --junitxml=README.md",
        "pytest -o log_file=README.md",
        "pytest -p evil_plugin",
        "pytest --rootdir=/",
        "pytest ../other-project",
        "pytest -q; rm -rf /",
        "PYTEST_ADDOPTS=--basetemp=/x pytest",
    ],
)
def test_tests_asks_for_anything_else(command: str) -> None:
    # never allowed; ``rm -rf /`` may also be denied by ``secrets`` (it deletes keys)
    assert decide("bash", command=command)[0] in ("ask", "deny")


def test_npm_test_allows_the_script_alone() -> None:
    assert decide("bash", command="npm test") == ("allow", "npm-test")
    assert decide("bash", command="npm test -- --outputFile=README.md")[0] == "ask"
    assert decide("bash", command="npm test --script-shell=/tmp/x")[0] == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git log --oneline | head -n 3",
        "git log -n 20 --stat | head -n 40",
        "git log -5 | head -n 1",
    ],
)
def test_pipe_to_head_allows_a_cut_log(command: str) -> None:
    assert decide("bash", command=command) == ("allow", "pipe-to-head")


@pytest.mark.parametrize(
    "command",
    [
        "git log --output=README.md | head -n 1",
        "git log --oneline --output README.md | head -n 1",
        "git log --oneline | head -n 1 > README.md",
        "git log | head -n 1 | sh",
        "git log --ext-diff -p | head -n 5",
    ],
)
def test_pipe_to_head_asks_for_anything_else(command: str) -> None:
    assert decide("bash", command=command)[0] == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git push --force",
        "git push --force origin main",
        "git push origin main --force",
        "git push origin main -f",
        "git push -uf origin main",
        "git push --force-with-lease",
        "git push --forc origin",
        "git push origin +main",
        "git push origin +HEAD:main",
        "git push --force=origin",
        "cd repo && git push -f",
    ],
)
def test_no_force_push_denies_every_spelling(command: str) -> None:
    assert decide("bash", command=command) == ("deny", "no-force-push")


@pytest.mark.parametrize("command", ["git push", "git push origin main", "git push --follow-tags"])
def test_other_pushes_are_asked_not_denied(command: str) -> None:
    assert decide("bash", command=command) == ("ask", "default_action")


@pytest.mark.parametrize(
    ("tool", "path"),
    [
        ("read_file", ".env"),
        ("read_file", "config/.env"),
        ("read_file", ".env.local"),
        ("write_file", ".env.production"),
        ("edit_file", "certs/server.pem"),
        ("read_file", "deploy/id.key"),
        ("grep", ".env"),
        ("read_file", "~/.ssh/id_ed25519"),
    ],
)
def test_secrets_denies_every_tool_naming_a_secret_file(tool: str, path: str) -> None:
    assert decide(tool, file_path=path, content="x", old_string="a", new_string="b") == (
        "deny",
        "secrets",
    )


def test_secrets_leaves_other_files_alone() -> None:
    assert decide("read_file", file_path="src/env.py")[0] == "allow"
    assert decide("read_file", file_path="docs/.envrc.md")[0] == "allow"


@pytest.mark.parametrize("path", ["docs/guide.md", "docs/api/hooks.md"])
def test_docs_allows_markdown_under_docs(path: str) -> None:
    assert decide("write_file", file_path=path, content="# x\n") == ("allow", "docs")


@pytest.mark.parametrize(
    "path", ["docs/build.sh", "README.md", "docs/../setup.py", "/etc/docs/x.md"]
)
def test_docs_asks_for_anything_else(path: str) -> None:
    assert decide("write_file", file_path=path, content="x")[0] == "ask"


def test_confirm_ci_asks_before_changing_ci_even_when_another_rule_allows(tmp_path: Path) -> None:
    rules = [
        *RULES,
        {"name": "all-yaml", "action": "allow", "tools": ["write_file"], "path": "**/*.yml"},
    ]
    decision = RuleSet(parse_config({"rules": rules})).decide(
        subject_of(
            {
                "tool_name": "write_file",
                "tool_input": {"file_path": ".github/workflows/ci.yml", "content": "x"},
            },
            WORKSPACE,
        )
    )
    assert (decision.action, decision.rule_name) == ("ask", "confirm-ci")
    assert decide("read_file", file_path=".github/workflows/ci.yml")[0] == "allow"
    assert by_name("confirm-ci")["tools"] == ["write_file", "edit_file"]
