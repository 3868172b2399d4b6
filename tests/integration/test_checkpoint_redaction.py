"""A session's checkpoint is a file people and tools read: where hooks-redaction is mounted,
what it holds is redacted as the log is, the model's own reply included.
Where it is not mounted, the checkpoint keeps the conversation as it was."""

from __future__ import annotations

import json
from pathlib import Path

from .support import make_bundle, module, session_for

TOKEN = "ghp_" + "Zq7RkX2mWb9TnV4pLc8HsJ3dFy6GaE1uQo5N"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ2xb8Tq4N"


def _checkpoints(events: list[tuple[str, dict[str, object]]]) -> list[str]:
    return [
        Path(str(data["path"])).read_text(encoding="utf-8")
        for name, data in events
        if name == "session:checkpoint"
    ]


async def test_a_checkpoint_holds_no_secret_where_redaction_is_mounted(
    workspace: Path, tmp_path: Path
) -> None:
    reply = f"Here it is: {TOKEN}, and aws_secret_access_key = {SECRET_KEY}"
    bundle = make_bundle(
        hooks=[module("hooks-redaction", {})],
        orchestrator={"checkpoint_dir": str(tmp_path / "checkpoints")},
    )
    session, recorder, _ = session_for(workspace, [{"text": reply}], bundle)
    async with session:
        outcome = await session.run("what is the token?")
    assert outcome.response  # the person was answered
    saved = _checkpoints(recorder.events)
    assert len(saved) == 1
    assert TOKEN not in saved[0]
    assert SECRET_KEY not in saved[0]
    assert "[REDACTED" in saved[0]
    messages = json.loads(saved[0])["messages"]
    assert [m["role"] for m in messages][-2:] == ["user", "assistant"]
    for path in (tmp_path / "checkpoints").iterdir():  # readable by its owner only
        assert path.stat().st_mode & 0o077 == 0, path


async def test_without_redaction_the_checkpoint_keeps_the_conversation(
    workspace: Path, tmp_path: Path
) -> None:
    reply = f"Here it is: {TOKEN}"
    bundle = make_bundle(orchestrator={"checkpoint_dir": str(tmp_path / "checkpoints")})
    session, recorder, _ = session_for(workspace, [{"text": reply}], bundle)
    async with session:
        await session.run("what is the token?")
    saved = _checkpoints(recorder.events)
    assert len(saved) == 1
    assert json.loads(saved[0])["messages"][-1]["content"] == reply
