"""A hundred fire-and-forget command hooks never delay a tool call, and each one still runs.

Every hook waits for a file that appears only after the turn has ended, so a turn that waited
for any of them could never end.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from .support import call, make_bundle, module, session_for


async def test_one_hundred_async_hooks_do_not_delay_the_tool_call(
    tmp_path: Path, workspace: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    release = tmp_path / "release"
    waiting = f"while [ ! -e {release} ]; do sleep 0.05; done; touch {marks}/"
    hooks = [
        {"type": "command", "async": True, "timeout_ms": 600_000, "command": f"{waiting}{index}"}
        for index in range(100)
    ]
    declarative = module(
        "hooks-declarative",
        {
            "include_user": False,
            "include_project": False,
            "async_grace_s": 30,
            "hooks": {"PreToolUse": hooks},
        },
    )
    script = [call("bash", command="echo ran"), {"text": "done"}]
    session, recorder, _ = session_for(workspace, script, make_bundle(hooks=[declarative]))
    async with session:
        # The hooks wait for a file created only after the turn; a turn that waited for any of
        # them would never end (they may run for ten minutes): the bound is a hang's, not a
        # speed limit.
        outcome = await asyncio.wait_for(session.run("run it"), timeout=300)
        assert outcome.response == "done"
        assert list(marks.iterdir()) == []  # every hook still waiting: the turn waited for none
        release.touch()  # now let them finish; closing the session settles them
    post = recorder.get_events("tool:post")[0][1]
    assert post["tool_result"]["output"]["stdout"] == "ran\n"
    assert len(list(marks.iterdir())) == 100  # cleanup let every one of them finish
