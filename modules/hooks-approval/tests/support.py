"""Helpers shared by the tests: tool:pre data of a bash call, and an audit file's records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def bash(command: str, call_id: str = "call_1") -> dict[str, Any]:
    """``tool:pre`` data of a bash call."""
    return {"tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": call_id}


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON records of an audit file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
