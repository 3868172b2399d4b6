"""Receipts of declarative hooks on a real coordinator with an audit log: what each run says
about the hook (file, line, definition and trusted code digests), how it ended (exit code,
timeout, could not start), and the hooks that did not run (trust refused, file not loaded,
observed)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.trust import trust_project

GUARD = '#!/bin/sh\ncat > /dev/null\necho \'{"action": "allow"}\'\n'


def _coordinator(tmp_path: Path, project: Path) -> ModuleCoordinator:
    coordinator = ModuleCoordinator(
        config={"session": {"audit_log": str(tmp_path / "audit.jsonl")}}, session_id="s1"
    )
    coordinator.register_capability("session.working_dir", str(project))
    return coordinator


def _receipts(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r["type"] == "hook_run"]


async def _call(coordinator: ModuleCoordinator, call: str, command: str = "ls") -> Any:
    return await coordinator.hooks.emit(
        "tool:pre",
        {"tool_name": "bash", "tool_call_id": call, "tool_input": {"command": command}},
    )


def _project(root: Path, hooks: str) -> Path:
    (root / ".amplifier").mkdir(parents=True)
    (root / ".amplifier" / "hooks.yaml").write_text(hooks, encoding="utf-8")
    guard = root / "guard.sh"
    guard.write_text(GUARD, encoding="utf-8")
    guard.chmod(0o755)
    return root.resolve()


PROJECT_HOOKS = """\
hooks:
  PreToolUse:
    - type: command
      command: ./guard.sh
"""


async def test_a_trusted_projects_hook_names_its_file_line_and_digests(tmp_path: Path) -> None:
    project = _project(tmp_path / "project", PROJECT_HOOKS)
    trust_project(project)
    coordinator = _coordinator(tmp_path, project)
    cleanup = await mount(coordinator, {"include_user": False})
    await _call(coordinator, "c1")
    await cleanup()
    await coordinator.cleanup()

    (run,) = [r for r in _receipts(tmp_path) if r["kind"] == "declarative"]
    assert run["hook"] == ".amplifier/hooks.yaml:hooks.PreToolUse[0]"
    assert run["source"] == f"{project / '.amplifier' / 'hooks.yaml'}:4"
    assert (run["decision"], run["outcome"], run["exit_code"]) == ("allow", "ok", 0)
    assert (run["tool"], run["tool_call_id"], run["event"]) == ("bash", "c1", "tool:pre")
    digest = hashlib.sha256((project / "guard.sh").read_bytes()).hexdigest()
    hooks = hashlib.sha256((project / ".amplifier" / "hooks.yaml").read_bytes()).hexdigest()
    assert run["code_sha256"] == {"guard.sh": digest, ".amplifier/hooks.yaml": hooks}
    assert len(run["definition_sha256"]) == 64


async def test_a_hook_refused_by_trust_says_so(tmp_path: Path) -> None:
    project = _project(tmp_path / "project", PROJECT_HOOKS)
    trust_project(project)
    coordinator = _coordinator(tmp_path, project)
    cleanup = await mount(coordinator, {"include_user": False})
    (project / "guard.sh").write_text(GUARD + "echo changed >&2\n", encoding="utf-8")
    result = await _call(coordinator, "c1")
    await cleanup()
    await coordinator.cleanup()
    assert result.action == "deny"
    (run,) = [r for r in _receipts(tmp_path) if r["kind"] == "declarative"]
    assert run["outcome"] == "refused"
    assert "changed since you trusted it" in run["why"]


async def test_a_project_file_not_trusted_leaves_a_not_loaded_receipt(tmp_path: Path) -> None:
    project = _project(tmp_path / "project", PROJECT_HOOKS)
    coordinator = _coordinator(tmp_path, project)
    cleanup = await mount(coordinator, {"include_user": False})
    await _call(coordinator, "c1")
    await cleanup()
    await coordinator.cleanup()
    (missing,) = [r for r in _receipts(tmp_path) if r["outcome"] == "not_loaded"]
    assert missing["hook"] == ".amplifier/hooks.yaml"
    assert missing["event"] == "session:mount"
    assert "were not loaded" in missing["why"]


@pytest.mark.parametrize(
    ("hook", "outcome", "exit_code"),
    [
        ({"command": "sleep 5", "timeout_ms": 200}, "timeout", -9),
        ({"command": "exit 7"}, "error", 7),
        ({"command": "true", "shell": "powershell"}, "not_started", None),
        ({"command": "exit 2"}, "ok", 2),
    ],
    ids=["timeout", "exit-code", "could-not-start", "block"],
)
async def test_how_a_command_hook_ended(
    tmp_path: Path, hook: dict[str, Any], outcome: str, exit_code: int | None
) -> None:
    if hook.get("shell") == "powershell" and (shutil.which("pwsh") or shutil.which("powershell")):
        pytest.skip("PowerShell is installed here")
    coordinator = _coordinator(tmp_path, tmp_path)
    config = {
        "include_user": False,
        "include_project": False,
        "hooks": {"PreToolUse": [{"type": "command", **hook}]},
    }
    cleanup = await mount(coordinator, config)
    await _call(coordinator, "c1")
    await cleanup()
    await coordinator.cleanup()
    (run,) = [r for r in _receipts(tmp_path) if r["kind"] == "declarative"]
    assert run["outcome"] == outcome
    if exit_code is None:
        assert "exit_code" not in run
    elif outcome == "timeout":
        assert run["exit_code"] is not None
    else:
        assert run["exit_code"] == exit_code
    if outcome != "ok":
        assert run["why"]


async def test_an_observed_hook_receipts_what_it_would_have_decided(tmp_path: Path) -> None:
    coordinator = _coordinator(tmp_path, tmp_path)
    config = {
        "include_user": False,
        "include_project": False,
        "observe_sources": ["config"],
        "hooks": {
            "PreToolUse": [
                {"type": "matcher", "match": {"tool": "bash"}, "action": "block", "message": "x"}
            ]
        },
    }
    cleanup = await mount(coordinator, config)
    result = await _call(coordinator, "c1")
    await cleanup()
    await coordinator.cleanup()
    assert result.action == "continue"
    (run,) = [r for r in _receipts(tmp_path) if r["kind"] == "declarative"]
    assert (run["decision"], run["observed"]) == ("block", True)


async def test_without_receipts_the_hooks_run_as_before(tmp_path: Path) -> None:
    coordinator = ModuleCoordinator(config={}, session_id="s2")
    config = {
        "include_user": False,
        "include_project": False,
        "hooks": {"PreToolUse": [{"type": "command", "command": "exit 2"}]},
    }
    cleanup = await mount(coordinator, config)
    result = await _call(coordinator, "c1")
    await cleanup()
    assert result.action == "deny"
    assert coordinator.audit.of_type("hook_run") == []


def _planned_hooks(coordinator: ModuleCoordinator) -> list[Any]:
    """The planned hooks of the dispatcher hooks-declarative registered on ``tool:pre``."""
    import inspect

    from amplifier_module_hooks_declarative.dispatch import Dispatcher

    (info,) = [i for i in coordinator.hooks.registrations() if i.event == "tool:pre"]
    nonlocals = inspect.getclosurevars(info.handler).nonlocals
    (dispatcher,) = [v for v in nonlocals.values() if isinstance(v, Dispatcher)]
    return [hook for step in dispatcher.steps for hook in step.hooks]


@pytest.mark.parametrize(
    "session",
    [{}, {"receipts": False}],
    ids=["no audit log", "receipts false"],
)
async def test_a_session_without_receipts_wraps_nothing(
    tmp_path: Path, session: dict[str, Any]
) -> None:
    from amplifier_module_hooks_declarative.receipts import _ReceiptedRunner, _Timed

    if session:
        session = {**session, "audit_log": str(tmp_path / "audit.jsonl")}
    coordinator = ModuleCoordinator(config={"session": session}, session_id="s3")
    config = {
        "include_user": False,
        "include_project": False,
        "hooks": {
            "PreToolUse": [
                {"type": "matcher", "match": {"tool": "bash"}, "action": "block"},
                {"type": "command", "command": "exit 0"},
            ]
        },
    }
    cleanup = await mount(coordinator, config)
    hooks = _planned_hooks(coordinator)
    assert coordinator.receipts is None
    assert coordinator.get_capability("audit.receipts") is None
    assert coordinator.hooks._observed is None  # emit runs its handlers unobserved
    assert len(hooks) == 2
    for hook in hooks:
        assert not isinstance(hook.runner, _ReceiptedRunner), hook.label
        assert not isinstance(hook.decide, _Timed), hook.label
    result = await _call(coordinator, "c1")
    await cleanup()
    assert result.action == "deny"
    assert coordinator.audit.of_type("hook_run") == []


async def test_a_session_with_an_audit_log_wraps_each_hook(tmp_path: Path) -> None:
    from amplifier_module_hooks_declarative.receipts import _ReceiptedRunner, _Timed

    coordinator = _coordinator(tmp_path, tmp_path)
    config = {
        "include_user": False,
        "include_project": False,
        "hooks": {
            "PreToolUse": [{"type": "matcher", "match": {"tool": "bash"}, "action": "block"}]
        },
    }
    cleanup = await mount(coordinator, config)
    (hook,) = _planned_hooks(coordinator)
    assert isinstance(hook.runner, _ReceiptedRunner)
    assert isinstance(hook.decide, _Timed)
    observed = coordinator.hooks._observed
    assert observed is not None
    assert observed.active
    await _call(coordinator, "c1")
    await cleanup()
    await coordinator.cleanup()
    (run,) = [r for r in _receipts(tmp_path) if r["kind"] == "declarative"]
    assert (run["decision"], run["tool_call_id"]) == ("block", "c1")
