"""The module runs unchanged on amplifier-core 2.0.2 (PyPI), in that release's own environment."""

from __future__ import annotations

import json
from pathlib import Path

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

SCRIPT = """
import asyncio, json, os, sys
import amplifier_core
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_redaction import mount

GH = "ghp_" + "M4rK9sT2vQ7wX1yZ3aB5cD6eF8gH0iJ2kL4mN6"

async def main():
    coordinator = create_test_coordinator()
    cleanup = await mount(coordinator, {})
    text = {"type": "text", "text": f"token {GH} at 2025-03-14T09:26:53Z"}
    dirty = await coordinator.hooks.emit(
        "provider:request", {"messages": [{"role": "user", "content": [text]}]}
    )
    clean = await coordinator.hooks.emit(
        "tool:post", {"tool_result": {"output": "ok 550e8400-e29b-41d4-a716-446655440000"}}
    )
    registered = coordinator.hooks.list_handlers()
    cleanup()
    print(json.dumps({
        "version": amplifier_core.__version__,
        "dirty": dirty.data,
        "clean": clean.data,
        "registered": registered,
        "after_cleanup": coordinator.hooks.list_handlers(),
    }))

asyncio.run(main())
"""


@needs_upstream
def test_mounts_and_redacts_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    report = json.loads(out.strip().splitlines()[-1])
    assert report["version"] == "2.0.2"
    message = report["dirty"]["messages"][0]["content"][0]
    assert message["text"] == "token [REDACTED:github_token] at 2025-03-14T09:26:53Z"
    assert report["dirty"]["redaction"] == {"github_token": 1}
    assert report["clean"]["tool_result"] == {"output": "ok 550e8400-e29b-41d4-a716-446655440000"}
    assert "redaction" not in report["clean"]
    assert report["registered"] == {
        event: ["hooks-redaction"]
        for event in ("prompt:submit", "provider:request", "tool:post", "tool:error")
    }
    assert all(not names for names in report["after_cleanup"].values())
