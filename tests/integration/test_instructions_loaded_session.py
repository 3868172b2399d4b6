"""Claude Code's ``InstructionsLoaded`` in a whole session: a hook runs for each memory file
(``AGENTS.md``, ``CLAUDE.md``) the session reads before its first request, with Claude Code's
fields, its matcher on ``load_reason``; an ``@file`` mention is not instructions."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from . import support
from .support import make_bundle, module

pytestmark = pytest.mark.usefixtures("python3_on_path")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    (path / "AGENTS.md").write_text("Run the tests before you commit.\n")
    (path / "CLAUDE.md").write_text("Prefer small functions.\n")
    (path / "notes.txt").write_text("a mentioned file, not instructions\n")
    return path


def recorder(log: Path) -> dict[str, Any]:
    return {"type": "command", "command": f"cat >> {shlex.quote(str(log))}; echo >> {log}"}


async def test_instructions_loaded_fires_once_per_memory_file(workspace: Path) -> None:
    log = workspace.parent / "loaded.jsonl"
    never = workspace.parent / "compact.jsonl"
    hooks = {
        "InstructionsLoaded": [
            {"matcher": "session_start", "hooks": [recorder(log)]},
            {"matcher": "compact", "hooks": [recorder(never)]},
        ]
    }
    hooks_file = workspace.parent / "hooks.json"
    hooks_file.write_text(json.dumps({"claude_code": hooks}))
    bundle = make_bundle(hooks=[module("hooks-declarative", {"files": [str(hooks_file)]})])
    session, recorded, _ = support.session_for(workspace, ["first", "second"], bundle, strict=True)
    async with session:
        await session.run("read @notes.txt")
        await session.run("again")  # the memory files are read once per session
    stdins = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert sorted(Path(s["file_path"]).name for s in stdins) == ["AGENTS.md", "CLAUDE.md"]
    for stdin in stdins:
        assert stdin["hook_event_name"] == "InstructionsLoaded"
        assert stdin["memory_type"] == "Project"
        assert stdin["load_reason"] == "session_start"
        assert Path(stdin["file_path"]).is_absolute()
    assert not never.exists()  # its matcher names another load_reason
    included = [d["source"] for _, d in recorded.get_events("context:include")]
    assert "mention" in included  # the mention was read, and did not fire the hook
