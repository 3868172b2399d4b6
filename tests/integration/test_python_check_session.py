"""hooks-python-check in a real session: the model writes a file with a lint error, sees the
feedback in the tool result of the same turn, and writes the fix; the installed distribution's
entry point names the module's mount."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

import amplifier_module_hooks_python_check
from amplifier_core.display import RecordingDisplay
from amplifier_module_hooks_python_check import MODULE_ID, mount

from .support import make_bundle, module, sent, session_for

BROKEN = 'import os\n\n\ndef add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b\n'
FIXED = '"""Maths."""\n\n\ndef add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with pinned ruff rules (E and F) and an empty mypy config."""
    path = tmp_path / "project"
    path.mkdir()
    (path / "ruff.toml").write_text('line-length = 100\n\n[lint]\nselect = ["E", "F"]\n')
    (path / "mypy.ini").write_text("[mypy]\n")
    return path


@pytest.fixture
def mypy_args(tmp_path: Path) -> list[str]:
    """mypy's default arguments, with a cache outside the project."""
    return ["--follow-imports=silent", "--cache-dir", str(tmp_path / "mypy-cache")]


def write(content: str, **entry: Any) -> dict[str, Any]:
    call = {"name": "write_file", "input": {"file_path": "calc.py", "content": content}}
    return {"tool_calls": [call], **entry}


@pytest.mark.slow
async def test_feedback_reaches_the_model_in_the_same_turn_and_stops_after_the_fix(
    project: Path, mypy_args: list[str]
) -> None:
    config = {"args": {"mypy": mypy_args}}  # every check, the real ruff and mypy
    bundle = make_bundle(hooks=[module("hooks-python-check", config)])
    script: list[Any] = [
        write(BROKEN),
        write(FIXED, expect="calc.py:1:8: [ruff F401]"),
        {"text": "calc.py is clean now", "expect": '"created": false'},
    ]
    display = RecordingDisplay()
    session, recorder, provider = session_for(project, script, bundle, display=display, strict=True)
    async with session:
        assert MODULE_ID in session.coordinator.hooks.list_handlers("tool:post")["tool:post"]
        outcome = await session.run("write calc.py with an add function")
        stored = await session.context.get_messages()

    assert outcome.status == "completed"
    assert outcome.response == "calc.py is clean now"
    assert (project / "calc.py").read_text() == FIXED

    first = sent(provider.requests[1])[-1]
    assert first["role"] == "tool"
    result, feedback = first["content"].split("\n\n", 1)
    assert json.loads(result)["file_path"] == str(project / "calc.py")
    header, issue = feedback.splitlines()
    assert header == "python-check found 1 issue in calc.py (ruff 1):"
    assert issue.startswith("calc.py:1:8: [ruff F401] ")

    second = sent(provider.requests[2])[-1]
    assert second["role"] == "tool"
    assert "python-check" not in second["content"]
    # Ephemeral: the feedback was in that one request only, never kept in the conversation.
    assert all("python-check" not in str(m["content"]) for m in sent(provider.requests[2]))
    assert all("python-check" not in str(m["content"]) for m in stored)

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
