"""The module on amplifier-core 2.0.2, in its own environment (``nox -s compat`` sets it up).

Set ``AMPLIFIER_CORE_202_PYTHON`` to the interpreter of an environment where
``amplifier-core==2.0.2`` is installed; the module runs there from its source.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from amplifier_hooks_testsupport.upstream import (
    SKIP_REASON,
    module_source,
    run_upstream,
    upstream_python,
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
    import os, sys
    sys.stdout.flush()
    os._exit(0)  # amplifier-core 2.0.2's engine may crash while the interpreter shuts down
    """
)


@pytest.mark.skipif(not upstream_python(), reason=SKIP_REASON)
def test_mounts_and_denies_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.strip() == "ok", out
