"""A shell command is judged together with the environment it will run in: session variables
that can change what it runs turn every allowed shell command into a question that names them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_approval import mount

from .support import bash


async def decide(coordinator: Any, command: str) -> Any:
    cleanup = await mount(coordinator, {})
    try:
        results = await coordinator.hooks.emit("tool:pre", bash(command))
    finally:
        cleanup()
    return results


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({"PATH": "{ws}/node_modules/.bin:/usr/bin"}, "PATH"),
        ({"PATH": ".:/usr/bin"}, "PATH"),
        ({"BASH_ENV": "/tmp/rc"}, "BASH_ENV"),
        ({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor"}, "GIT_CONFIG_KEY_0"),
        ({"NODE_OPTIONS": "--require /tmp/x.js"}, "NODE_OPTIONS"),
    ],
)
async def test_a_risky_session_environment_makes_an_allowed_command_ask(
    coordinator: Any, workspace: Path, variables: dict[str, str], named: str
) -> None:
    offered = {k: v.replace("{ws}", str(workspace)) for k, v in variables.items()}
    coordinator.register_capability("session.environment", lambda: offered)
    result = await decide(coordinator, "ls -la")
    assert result.action == "ask_user"
    assert named in result.approval_prompt
    assert "can change what this command runs" in result.approval_prompt
    assert "ls -la" in result.approval_prompt


async def test_a_plain_session_environment_leaves_the_rules_alone(coordinator: Any) -> None:
    offered = {"NODE_ENV": "production", "PATH": "/usr/local/bin:/usr/bin"}
    coordinator.register_capability("session.environment", lambda: offered)
    result = await decide(coordinator, "ls -la")
    assert result.action == "continue"


async def test_an_environment_that_cannot_be_read_asks(coordinator: Any) -> None:
    def broken() -> dict[str, str]:
        raise RuntimeError("env file vanished")

    coordinator.register_capability("session.environment", broken)
    result = await decide(coordinator, "git status")
    assert result.action == "ask_user"
    assert "env file vanished" in result.approval_prompt


async def test_an_options_variable_in_the_session_makes_the_tests_rule_ask(
    coordinator: Any, tmp_path: Path
) -> None:
    """``PYTEST_ADDOPTS=--basetemp=DIR`` in the env file: ``pytest -q``, allowed by the
    README's ``tests`` rule, would empty DIR. It is asked, naming the variable."""
    from .support import readme_rules

    victim = tmp_path / "precious"
    offered = {"PYTEST_ADDOPTS": f"--basetemp={victim}"}
    coordinator.register_capability("session.environment", lambda: offered)
    cleanup = await mount(coordinator, {"rules": readme_rules(), "audit_log": None})
    try:
        result = await coordinator.hooks.emit("tool:pre", bash("pytest -q"))
    finally:
        cleanup()
    assert result.action == "ask_user"
    assert "PYTEST_ADDOPTS" in result.approval_prompt
