"""Run cases through hook-shell's own bridge; run by the interpreter of its own environment.

    <peer python> bench/_hook_shell_peer.py JOBS.json OUT.json

``JOBS.json``: ``[{"project": dir, "events": [[kernel_event, data], ...]}, ...]``. For each job
the current directory becomes the project (hook-shell reads ``.amplifier/hooks`` of the current
directory), a fresh ``ShellHookBridge({})`` is built and each event goes to its handler.
``OUT.json``: per job, per event, the ``HookResult`` fields hook-shell returned.

hook-shell reads ``.amplifier/hooks/<name>/`` in the file system's order (``Path.iterdir``),
as hooks-declarative does: both sides read the same directories in the same order.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from amplifier_module_hook_shell.bridge import ShellHookBridge

HANDLERS = {"tool:pre": "on_tool_pre", "tool:post": "on_tool_post"}
FIELDS = ("action", "reason", "context_injection", "user_message")


def _bridge() -> ShellHookBridge:
    return ShellHookBridge({})


async def _run(jobs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    found = []
    for job in jobs:
        os.chdir(job["project"])
        bridge = _bridge()
        results = []
        for event, data in job["events"]:
            result = await getattr(bridge, HANDLERS[event])(event, data)
            results.append({name: getattr(result, name, None) for name in FIELDS})
        found.append(results)
    return found


def main() -> int:
    jobs = json.loads(Path(sys.argv[1]).read_text())
    Path(sys.argv[2]).write_text(json.dumps(asyncio.run(_run(jobs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
