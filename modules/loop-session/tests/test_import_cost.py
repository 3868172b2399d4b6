"""Importing and mounting the loop loads what a mount needs: the turn machinery (provider and
tool calls, hook effects) and the checkpoint model come with the first turn or checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys

_LATER = (
    "amplifier_module_loop_session.turn",
    "amplifier_module_loop_session.provider_call",
    "amplifier_module_loop_session.tool_call",
    "amplifier_module_loop_session.effects",
    "amplifier_module_loop_session.checkpoint",
)


def _loaded(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_mount_imports_no_turn_machinery() -> None:
    code = """
import asyncio, json, sys
import amplifier_module_loop_session as loop

class Coordinator:
    session_id = "s"
    def get_capability(self, name):
        return None
    async def mount(self, kind, thing):
        self.loop = thing

coordinator = Coordinator()
asyncio.run(loop.mount(coordinator, {}))
assert coordinator.loop.turns == 0
print(json.dumps(sorted(sys.modules)))
"""
    loaded = _loaded(code)
    assert "amplifier_module_loop_session.orchestrator" in loaded
    early = [name for name in _LATER if name in loaded]
    assert early == [], f"imported at mount: {early}"


def test_the_names_kept_for_later_are_still_there() -> None:
    code = """
import json, sys
import amplifier_module_loop_session as loop
from amplifier_module_loop_session import Checkpoint, CheckpointError, read_checkpoint
from amplifier_module_loop_session.checkpoint import Checkpoint as Direct
assert Checkpoint is Direct and issubclass(CheckpointError, Exception) and callable(read_checkpoint)
assert loop.ORCHESTRATOR_NAME == "loop-session"
try:
    loop.nothing_here
except AttributeError as err:
    assert "nothing_here" in str(err)
else:
    raise SystemExit("no AttributeError")
print(json.dumps(sorted(sys.modules)))
"""
    assert "amplifier_module_loop_session.checkpoint" in _loaded(code)
