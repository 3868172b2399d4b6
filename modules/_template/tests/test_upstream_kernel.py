"""The module on amplifier-core 2.0.2, in its own environment (``nox -s compat`` sets it up)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

SCRIPT = textwrap.dedent(
    """
    import asyncio
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hooks_template import mount

    async def main():
        coordinator = MockCoordinator()
        cleanup = await mount(coordinator, {"deny_tools": ["bash"], "note_results": True})
        denied = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {}})
        assert denied.action == "deny", denied
        assert denied.reason == "tool 'bash' is disabled in this project", denied.reason
        allowed = await coordinator.hooks.emit("tool:pre", {"tool_name": "read_file"})
        assert allowed.action == "continue", allowed
        cleanup()
        left = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
        assert left == {}, left
        print("ok")

    asyncio.run(main())
    """
)


@needs_upstream
def test_mounts_and_denies_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.strip() == "ok", out
