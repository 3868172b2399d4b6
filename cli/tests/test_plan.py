"""``mount_plan``: a bundle's modules and settings, each where the session's modules read them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from amplifier_hooks_bundle import Bundle, load_bundle, parse_bundle
from amplifier_hooks_cli.plan import NO_PROVIDER_TEXT, PlanError, mount_plan, resolve_source

from amplifier_core.errors import BundleError


def bundle_file(tmp_path: Path, text: str) -> Bundle:
    path = tmp_path / "bundles" / "bundle.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_bundle(path)


def test_an_empty_bundle_gets_the_default_runtime(tmp_path: Path) -> None:
    plan = mount_plan(Bundle(), workspace=tmp_path)
    assert plan == {
        "session": {
            "orchestrator": {"module": "loop-session", "config": {}},
            "context": {"module": "context-simple", "config": {}},
            "working_dir": str(tmp_path),
            "injection_size_limit": 10 * 1024,  # the kernel limits nothing unless told
            "injection_budget_per_turn": 10_000,
        },
        "providers": [
            {"module": "provider-scripted", "config": {"script": [{"text": NO_PROVIDER_TEXT}]}}
        ],
        "tools": [
            {"module": "tool-bash", "config": {}},
            {"module": "tool-filesystem", "config": {}},
            {"module": "tool-todo", "config": {}},
        ],
        "hooks": [],
    }


def test_session_settings_go_to_the_modules_that_own_them(tmp_path: Path) -> None:
    bundle = bundle_file(
        tmp_path,
        """\
        session:
          injection_size_limit: 2048
          hook_timeout: 5
          max_iterations: 7
          checkpoint_dir: ckpt/{session_id}
          checkpoint_every_turn: false
          memory_files: [NOTES.md]
          context_max_tokens: 5000
          metadata: {team: infra}
          tools:
            bash: {timeout: 9}
            files: {max_read_lines: 50}
        """,
    )
    plan = mount_plan(bundle, workspace=tmp_path)
    assert plan["session"] == {
        "injection_size_limit": 2048,
        "injection_budget_per_turn": 10_000,
        "hook_timeout": 5,
        "metadata": {"team": "infra"},
        "orchestrator": {
            "module": "loop-session",
            "config": {
                "max_iterations": 7,
                "checkpoint_dir": "ckpt/{session_id}",
                "checkpoint_every_turn": False,
                "memory_files": ["NOTES.md"],
            },
        },
        "context": {
            "module": "context-simple",
            "config": {"max_tokens": 5000, "use_provider_window": False},
        },
        "working_dir": str(tmp_path),
    }
    tools = {t["module"]: t["config"] for t in plan["tools"]}
    assert tools == {
        "tool-bash": {"timeout": 9},
        "tool-filesystem": {"max_read_lines": 50},
        "tool-todo": {},
    }
    assert bundle.session.max_iterations == 7  # the bundle itself is left as it was


def test_named_modules_replace_the_defaults_and_their_own_config_wins(tmp_path: Path) -> None:
    bundle = bundle_file(
        tmp_path,
        """\
        session:
          max_iterations: 7
          context_max_tokens: 5000
          orchestrator:
            module: loop-custom
            source: ../loops/custom
            config: {max_iterations: 3, style: terse}
          context: context-persistent
          tools:
            bash: {timeout: 9, max_output_bytes: 100}
        providers:
          - module: provider-anthropic
            config: {model: claude-sonnet}
        tools:
          - module: tool-bash
            config: {timeout: 30}
          - module: tool-web
            source: ./tools/web
        hooks:
          - module: hooks-logging
            source: amplifier_module_hooks_logging:mount
          - module: hooks-approval
            source: ./approval
        """,
    )
    base = tmp_path / "bundles"
    plan = mount_plan(bundle, workspace=tmp_path)
    assert plan["session"]["orchestrator"] == {
        "module": "loop-custom",
        "config": {"max_iterations": 3, "style": "terse"},
        "source": str(base / "../loops/custom"),
    }
    assert plan["session"]["context"] == {
        "module": "context-persistent",
        "config": {"max_tokens": 5000, "use_provider_window": False},
    }
    assert plan["providers"] == [
        {"module": "provider-anthropic", "config": {"model": "claude-sonnet"}}
    ]
    assert plan["tools"] == [
        {"module": "tool-bash", "config": {"timeout": 30, "max_output_bytes": 100}},
        {"module": "tool-web", "config": {}, "source": str(base / "tools/web")},
    ]
    assert plan["hooks"] == [
        {"module": "hooks-logging", "config": {}, "source": "amplifier_module_hooks_logging:mount"},
        {"module": "hooks-approval", "config": {}, "source": str(base / "approval")},
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("git+https://github.com/x/y@main", "git+https://github.com/x/y@main"),
        ("pkg.module:mount", "pkg.module:mount"),
        ("./here", "{base}/here"),
        ("file://rel/dir", "{base}/rel/dir"),
        ("/abs/dir", "/abs/dir"),
        ("~/mods", "{home}/mods"),
    ],
)
def test_sources_are_resolved_against_the_bundle_directory(
    tmp_path: Path, source: str, expected: str
) -> None:
    resolved = resolve_source(source, tmp_path)
    assert resolved == expected.format(base=tmp_path, home=Path.home())


def test_a_reference_that_is_also_a_directory_is_the_directory(tmp_path: Path) -> None:
    (tmp_path / "pkg.module:mount").mkdir()
    assert resolve_source("pkg.module:mount", tmp_path) == str(tmp_path / "pkg.module:mount")


def test_a_session_module_of_the_wrong_type_is_a_bundle_error_at_its_line() -> None:
    with pytest.raises(BundleError) as raised:
        parse_bundle("session:\n  orchestrator: 3\n", "bundle.yaml")
    assert str(raised.value).startswith(
        "invalid bundle bundle.yaml:2: session.orchestrator: expected a module id or a mapping"
    )


@pytest.mark.parametrize(
    ("session", "message"),
    [
        ("orchestrator: {module: ''}", "session.orchestrator.module: expected a module id"),
        ("context: {module: c, config: [1]}", "session.context.config: expected a mapping"),
        ("context: {module: c, sauce: x}", "session.context: unknown key(s) sauce"),
        ("tools: [bash]", "session.tools: expected a mapping, got list"),
        ("tools: {bash: 3}", "session.tools.bash: expected a mapping, got int"),
    ],
)
def test_a_bad_session_setting_names_its_key(session: str, message: str) -> None:
    bundle = parse_bundle(f"session:\n  {session}\n", "bundle.yaml")
    with pytest.raises(PlanError) as raised:
        mount_plan(bundle, workspace=Path("/tmp"))
    assert str(raised.value).startswith(message)
