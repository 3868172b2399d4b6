"""A hundred fire-and-forget command hooks never delay a tool call, and each one still runs.

Every hook waits for a file that appears only after the turn has ended, so a turn that waited
for any of them could never end.
"""

from __future__ import annotations

import time
from pathlib import Path

from amplifier_core.bundle import parse_bundle
from amplifier_core.providers import ScriptedProvider
from amplifier_core.session import AmplifierSession
from amplifier_core.testing import EventRecorder


async def test_one_hundred_async_hooks_do_not_delay_the_tool_call(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    release = tmp_path / "release"
    hooks = "\n".join(
        f"        - {{type: command, async: true, timeout_ms: 20000, command: "
        f'"while [ ! -e {release} ]; do sleep 0.05; done; touch {marks}/{index}"}}'
        for index in range(100)
    )
    bundle = parse_bundle(
        f"""
hooks:
  - module: hooks-declarative
    config:
      include_user: false
      include_project: false
      async_grace_s: 30
      hooks:
        PreToolUse:
{hooks}
""",
        "bundle.yaml",
    )
    script = [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo ran"}}]},
        {"text": "done"},
    ]
    session = AmplifierSession(bundle, workspace=tmp_path, provider=ScriptedProvider(script))
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    stamps: dict[str, float] = {}
    for event in ("tool:pre", "tool:post"):
        session.coordinator.hooks.register(
            event, lambda e, d: stamps.setdefault(e, time.monotonic()), priority=-(10**6)
        )
    async with session:
        started = time.monotonic()
        outcome = await session.run("run it")
        turn = time.monotonic() - started
        assert outcome.response == "done"
        assert list(marks.iterdir()) == []  # every hook still waiting: the turn waited for none
        release.touch()  # now let them finish; closing the session settles them
    assert turn < 5.0, f"the turn took {turn:.2f}s"
    assert stamps["tool:post"] - stamps["tool:pre"] < 3.0
    post = recorder.get_events("tool:post")[0][1]
    assert post["tool_result"]["output"]["stdout"] == "ran\n"
    assert len(list(marks.iterdir())) == 100  # cleanup let every one of them finish
