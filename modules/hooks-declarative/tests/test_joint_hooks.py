"""Matching Claude Code hooks run at once, as Claude Code runs them: every matching hook of an
event, across matcher groups and plugins, runs to its end even when another denies, and the
decisions combine in declaration order (a deny wins, the first deny's reason is given).

Each hook waits on a barrier that opens only when every one of them has started: a hook that
finds it open ran at the same time as all the others. A hook that was run after another one
ended would wait until its bound and record that it gave up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount

from .support import claude_plugin

HOOKS = 8
DENYING = (2, 5)  # 0-based; both deny, the first one's reason is the one given
BARRIER = """
d={dir}; i={index}; touch "$d/started-$i"; n=0
while [ "$(ls "$d" | grep -c '^started-')" -lt {count} ]; do
  n=$((n+1)); if [ $n -gt {limit} ]; then touch "$d/gave-up-$i"; exit 0; fi; sleep 0.01
done
touch "$d/opened-$i"
"""


def _plugins(root: Path, markers: Path, limit: int = 6000) -> Path:
    """One plugin per hook; each hook waits at most ``limit`` rounds of 10 ms."""
    for index in range(HOOKS):
        script = BARRIER.format(dir=f"'{markers}'", index=index, count=HOOKS, limit=limit)
        if index in DENYING:
            script += f'echo "guard {index} refuses" >&2; exit 2\n'
        hook = {"type": "command", "command": script, "timeout": 120}
        groups = [{"matcher": "Bash", "hooks": [hook]}]
        if index == 7:  # a second matcher group in the same plugin's file
            groups = [{"matcher": "Edit", "hooks": []}, {"matcher": "Bash|Write", "hooks": [hook]}]
        plugin = root / f"guard-{index}"
        claude_plugin(plugin)
        hooks = {"hooks": {"PreToolUse": groups}}
        (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def _emit(project: Path, plugins: Path, data: dict[str, Any]) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, "plugins": [str(plugins)]})
    try:
        return await coordinator.hooks.emit("tool:pre", data)
    finally:
        await cleanup()


async def test_every_matching_plugin_hook_runs_at_once_and_a_deny_stops_none(
    project: Path, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    plugins = _plugins(tmp_path / "plugins", markers)
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s-1"}
    result = await _emit(project, plugins, data)
    names = sorted(p.name for p in markers.iterdir())
    assert [n for n in names if n.startswith("gave-up-")] == []
    assert [n for n in names if n.startswith("opened-")] == [f"opened-{i}" for i in range(HOOKS)]
    assert result.action == "deny"
    assert result.reason.startswith("guard 2 refuses")


async def test_hooks_whose_matcher_does_not_match_do_not_run_and_do_not_hold_the_barrier(
    project: Path, tmp_path: Path
) -> None:
    """``write_file`` matches only guard-7's ``Bash|Write`` group: it runs alone and, its
    barrier never opening, gives up (it was not run beside hooks that do not match)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    plugins = _plugins(tmp_path / "plugins", markers, limit=20)
    data = {"tool_name": "write_file", "tool_input": {"path": "a", "content": ""}}
    result = await _emit(project, plugins, data)
    assert sorted(p.name for p in markers.iterdir()) == ["gave-up-7", "started-7"]
    assert result is None or result.action == "continue"


def _answering(root: Path, answers: list[dict[str, Any]]) -> Path:
    """One plugin per answer; each PreToolUse hook prints its answer as Claude Code JSON."""
    for index, answer in enumerate(answers):
        specific = {"hookEventName": "PreToolUse", **answer}
        text = json.dumps({"hookSpecificOutput": specific})
        hook = {"type": "command", "command": f"cat > /dev/null; echo '{text}'"}
        plugin = root / f"answer-{index}"
        claude_plugin(plugin)
        hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
        (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def test_an_ask_wins_over_an_allow_whatever_their_order(
    project: Path, tmp_path: Path
) -> None:
    allow = {"permissionDecision": "allow", "permissionDecisionReason": "fine"}
    ask = {"permissionDecision": "ask", "permissionDecisionReason": "sure about this?"}
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s-1"}
    first = await _emit(project, _answering(tmp_path / "a", [allow, ask]), data)
    second = await _emit(project, _answering(tmp_path / "b", [ask, allow]), data)
    assert first.action == second.action == "ask_user"
    assert "sure about this?" in first.approval_prompt
    assert "sure about this?" in second.approval_prompt


async def test_a_deny_wins_over_ask_and_allow_and_the_first_denys_reason_is_given(
    project: Path, tmp_path: Path
) -> None:
    answers = [
        {"permissionDecision": "allow"},
        {"permissionDecision": "ask", "permissionDecisionReason": "ask me"},
        {"permissionDecision": "deny", "permissionDecisionReason": "first no"},
        {"permissionDecision": "deny", "permissionDecisionReason": "second no"},
    ]
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s-1"}
    result = await _emit(project, _answering(tmp_path / "p", answers), data)
    assert result.action == "deny"
    assert result.reason.startswith("first no")
