"""A real session: the bundle mounts the module through its entry point, the model writes a file
with a lint error, sees the feedback in the tool result of the same turn, and writes the fix."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

import amplifier_module_hooks_python_check
from amplifier_core.bundle import parse_bundle
from amplifier_core.display import RecordingDisplay
from amplifier_core.providers import ScriptedProvider
from amplifier_core.session import AmplifierSession
from amplifier_core.testing import EventRecorder
from amplifier_module_hooks_python_check import MODULE_ID, mount

BROKEN = 'import os\n\n\ndef add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b\n'
FIXED = '"""Maths."""\n\n\ndef add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b\n'


def write(content: str, **entry: Any) -> dict[str, Any]:
    call = {"name": "write_file", "input": {"file_path": "calc.py", "content": content}}
    return {"tool_calls": [call], **entry}


@pytest.mark.slow
async def test_feedback_reaches_the_model_in_the_same_turn_and_stops_after_the_fix(
    project: Path, mypy_args: list[str]
) -> None:
    config = {"args": {"mypy": mypy_args}}  # every check, the real ruff and mypy
    bundle = parse_bundle(
        f"hooks:\n  - module: hooks-python-check\n    config: {json.dumps(config)}\n",
        "bundle.yaml",
    )
    script: list[Any] = [
        write(BROKEN),
        write(FIXED, expect="calc.py:1:8: [ruff F401]"),
        {"text": "calc.py is clean now", "expect": '"created": false'},
    ]
    provider = ScriptedProvider(script)
    display = RecordingDisplay()
    session = AmplifierSession(
        bundle, workspace=project, provider=provider, display_system=display, strict=True
    )
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    async with session:
        assert MODULE_ID in session.coordinator.hooks.list_handlers("tool:post")["tool:post"]
        outcome = await session.run("write calc.py with an add function")

    assert outcome.status == "completed"
    assert outcome.response == "calc.py is clean now"
    assert (project / "calc.py").read_text() == FIXED

    first = provider.requests[1].messages[-1]
    assert first["role"] == "tool"
    result, feedback = first["content"].split("\n\n", 1)
    assert json.loads(result)["file_path"] == str(project / "calc.py")
    header, issue = feedback.splitlines()
    assert header == "python-check found 1 issue in calc.py (ruff 1):"
    assert issue.startswith("calc.py:1:8: [ruff F401] ")

    second = provider.requests[2].messages[-1]
    assert second["role"] == "tool"
    assert "python-check" not in second["content"]
    # Ephemeral: the feedback was in that one request only, never kept in the conversation.
    assert all("python-check" not in str(m["content"]) for m in provider.requests[2].messages)
    assert all("python-check" not in str(m["content"]) for m in session.context.messages)

    assert [(m.message, m.level, m.source) for m in display.messages] == [
        ("python-check: 1 issue in calc.py (ruff 1)", "warning", "python-check")
    ]
    assert len(recorder.get_events("tool:post")) == 2


def test_entry_point_names_mount() -> None:
    (entry,) = entry_points(group="amplifier.modules", name="hooks-python-check")
    assert entry.value == "amplifier_module_hooks_python_check:mount"
    assert entry.load() is mount
    assert set(amplifier_module_hooks_python_check.__all__) <= set(
        dir(amplifier_module_hooks_python_check)
    )
