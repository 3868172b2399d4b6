"""hook-shell installs of several hooks: which run, in what order, and what the event gets.

The oracle is hook-shell's bridge as its source reads (``bridge.py`` ``_execute_hooks``,
``translator.py`` ``from_claude_response``), restated here: the root ``hooks.json`` first, then
each ``.amplifier/hooks/<name>/hooks.json`` in ``Path.iterdir`` order; an event's hooks run one
after the other and the first deny, or the first answer carrying ``contextInjection`` (even an
empty one), is the event's result and no later hook runs. Exit code 2 denies; an empty or
blank stdout, plain text and JSON without ``decision: block`` or ``contextInjection`` go on.
Real hooks run (shell commands in a real, trusted project), in directories made in a drawn
order, so the file system's listing order varies between examples.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.formats.hook_shell.protocol import hook_shell_decision
from amplifier_module_hooks_declarative.mapping import Outcome
from amplifier_module_hooks_declarative.trust import trust_project
from amplifier_module_hooks_declarative.types import Decision, HookContext

ANSWERS: dict[str, tuple[str, tuple[str, str] | None]] = {
    # kind: (what the command does after recording itself, hook-shell's answer or None)
    "log": ("exit 0", None),
    "blank": ("printf '  \\n\\n'", None),
    "text": ("echo 'formatted 1 file'", None),
    "message": ("""echo '{"systemMessage": "ok"}'""", None),
    "approve": ("""echo '{"decision": "approve", "reason": "fine"}'""", None),
    "exit2": ("echo 'no rm' >&2; exit 2", ("deny", "no rm")),
    "exit2-silent": ("""echo '{"decision": "block"}'; exit 2""", ("deny", "")),
    "block": ("""echo '{"decision": "block", "reason": "no dd"}'""", ("deny", "no dd")),
    "inject": ("""echo '{"contextInjection": "lint: 2 issues"}'""", ("inject", "lint: 2 issues")),
    "inject-empty": ("""echo '{"contextInjection": ""}'""", ("inject", "")),
    "inject-blank": ("""echo '{"contextInjection": "   "}'""", ("inject", "")),
    "exit1-inject": ("""echo '{"contextInjection": "late"}'; exit 1""", ("inject", "late")),
}

NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)


def _file(name: str, kind: str) -> dict[str, Any]:
    action, _ = ANSWERS[kind]
    command = f'cat > /dev/null; echo {name} >> "$CLAUDE_PROJECT_DIR/ran"; {action}'
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    return {"description": kind, "hooks": {"PreToolUse": [group]}}


def hook_shell_oracle(order: list[tuple[str, str]]) -> tuple[list[str], tuple[str, str] | None]:
    """What hook-shell's bridge runs, in order, and its answer (None: continue)."""
    ran: list[str] = []
    for name, kind in order:
        ran.append(name)
        answer = ANSWERS[kind][1]
        if answer is not None:
            return ran, answer
    return ran, None


async def _emit(project: Path) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    try:
        data = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
        return await coordinator.hooks.emit("tool:pre", data)
    finally:
        await cleanup()


@given(
    hooks=st.dictionaries(NAMES, st.sampled_from(sorted(ANSWERS)), min_size=1, max_size=6),
    root=st.none() | st.sampled_from(sorted(ANSWERS)),
    data=st.data(),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_install_runs_and_answers_as_hook_shells_bridge(
    hooks: dict[str, str], root: str | None, data: st.DataObject
) -> None:
    made = data.draw(st.permutations(sorted(hooks)), label="creation order")
    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory).resolve()
        hooks_dir = project / ".amplifier" / "hooks"
        hooks_dir.mkdir(parents=True)
        if root is not None:
            (hooks_dir / "hooks.json").write_text(json.dumps(_file("root", root)))
        for name in made:
            (hooks_dir / name).mkdir()
            (hooks_dir / name / "hooks.json").write_text(json.dumps(_file(name, hooks[name])))
        listed = [p.name for p in hooks_dir.iterdir() if p.is_dir()]  # hook-shell's order
        order = ([("root", root)] if root is not None else []) + [(n, hooks[n]) for n in listed]
        trust_project(project)
        result = asyncio.run(_emit(project))
        ran_file = project / "ran"
        ran = ran_file.read_text().split() if ran_file.exists() else []

    expected_ran, answer = hook_shell_oracle(order)
    assert ran == expected_ran
    if answer is None:
        assert result is None or result.action == "continue"
    elif answer[0] == "deny":
        assert result.action == "deny"
        assert (answer[1] or "Hook blocked operation") in (result.reason or "")
    elif not answer[1]:  # hook-shell's bridge returns it, with nothing for the agent
        assert result is None or result.action == "continue"
    else:
        assert result.action == "inject_context"
        assert result.context_injection.strip() == answer[1]


def _ctx() -> HookContext:
    return HookContext(
        event="tool:post",
        alias="PostToolUse",
        data={"tool_name": "Write"},
        session_id="s",
        project_dir="/p",
        tool="Write",
        args={},
        timestamp="t",
    )


@given(
    injection=st.text(alphabet=" \t\nab", max_size=6),
    message=st.none() | st.text(alphabet="ok", min_size=1, max_size=3),
)
def test_a_context_injection_is_an_answer_and_is_injected_only_with_content(
    injection: str, message: str | None
) -> None:
    """Every string ``contextInjection`` answers (hook-shell's bridge returns it: the later
    hooks do not run); one without content injects nothing."""
    answer: dict[str, Any] = {"decision": "approve", "contextInjection": injection}
    if message is not None:
        answer["systemMessage"] = message
    decision = hook_shell_decision(_ctx(), json.dumps(answer), label="h")
    assert isinstance(decision, Decision)
    assert decision.context is not None  # an answer: ends the event's later hook-shell hooks
    assert decision.context == (injection if injection.strip() else "")
    assert decision.message == message
    outcome = Outcome()
    outcome.add(decision)
    assert outcome.answers == 1
    assert [d.context for d in outcome.contexts] == ([injection] if injection.strip() else [])


@given(stdout=st.text(alphabet=" \t\r\n", max_size=8))
def test_an_empty_or_blank_stdout_is_no_answer(stdout: str) -> None:
    decision = hook_shell_decision(_ctx(), stdout, label="h")
    assert isinstance(decision, Decision)
    assert decision.context is None
    assert decision.action == "continue"
