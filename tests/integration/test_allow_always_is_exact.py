""" "Allow always" approves exactly what the human saw, whatever message the asking hook gave.

The attack: a declarative ``ask`` on ``rm *`` with a fixed message (and, the same, a Claude Code
hook answering ``permissionDecision: ask`` with a fixed reason). The human answers "Allow
always" to ``rm -rf build``; the model then runs ``rm -rf precious``. The second command must
be asked again (and, denied, must not run), and every prompt must show the command.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.approval import CallbackApprovalSystem

from . import support
from .support import call, make_bundle, module

FIXED = "rm needs a human's confirmation"


class Human:
    """Answers "Allow always" when the prompt shows ``rm -rf build``, else "Deny"; keeps every
    prompt it was shown."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.prompts.append(prompt)
        return "Allow always" if "rm -rf build" in prompt else "Deny"


def matcher_hooks(user_dir: Path) -> None:
    (user_dir / "hooks.yaml").write_text(
        "hooks:\n"
        "  PreToolUse:\n"
        "    - type: matcher\n"
        "      match: {tool: Bash, args: {command: 'rm *'}}\n"
        "      action: ask\n"
        f'      message: "{FIXED}"\n'
    )


def claude_code_hooks(user_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "ask_rm.py"
    script.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "if data.get('tool_input', {}).get('command', '').startswith('rm '):\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        f"        'permissionDecision': 'ask', 'permissionDecisionReason': {FIXED!r}}}}}))\n"
    )
    (user_dir / "hooks.yaml").write_text(
        "claude_code:\n"
        "  PreToolUse:\n"
        "    - matcher: Bash\n"
        "      hooks:\n"
        "        - type: command\n"
        f"          command: '{sys.executable} {script}'\n"
    )


@pytest.mark.parametrize("hooks_file", ["matcher", "claude-code"])
async def test_allow_always_for_one_rm_does_not_approve_another(
    tmp_path: Path, hooks_file: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "build").mkdir()
    (workspace / "build" / "out.o").write_text("object")
    (workspace / "precious").mkdir()
    (workspace / "precious" / "thesis.tex").write_text("years of work")
    user_dir = tmp_path / "user"
    user_dir.mkdir()
    if hooks_file == "matcher":
        matcher_hooks(user_dir)
    else:
        claude_code_hooks(user_dir, tmp_path)
    human = Human()
    script: list[Any] = [
        call("bash", command="rm -rf build"),
        call("bash", command="rm -rf build"),
        call("bash", command="rm -rf precious"),
        {"text": "done"},
    ]
    bundle = make_bundle(
        hooks=[module("hooks-declarative", {"user_dir": str(user_dir), "claude_code": False})]
    )
    session, recorder, _ = support.session_for(
        workspace, script, bundle, approval_system=CallbackApprovalSystem(human), strict=True
    )
    async with session:
        await session.run("clean up")

    assert not (workspace / "build").exists()  # approved, then remembered for that command
    assert (workspace / "precious" / "thesis.tex").read_text() == "years of work"
    # Asked for the first rm and for the other one; the repeated rm -rf build was remembered.
    assert len(human.prompts) == 2
    first, second = human.prompts
    assert FIXED in first
    assert "rm -rf build" in first
    assert "Tool: bash" in first
    assert FIXED in second
    assert "rm -rf precious" in second
    granted = [e for name, e in recorder.events if name == "approval:granted"]
    assert [g["why"] for g in granted] == ["user", "cached"]
