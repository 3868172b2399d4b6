"""The module on amplifier-core 2.0.2, in its own environment (``nox -s compat`` sets it up).

Set ``AMPLIFIER_CORE_202_PYTHON`` to the interpreter of an environment where
``amplifier-core==2.0.2`` is installed; the module runs there from its source.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

UPSTREAM_PYTHON = os.environ.get("AMPLIFIER_CORE_202_PYTHON", "")

SOURCE = Path(__file__).resolve().parents[1] / "src"

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, sys.argv[1])  # this module from source; nothing installed there
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
    import os as _os, sys as _sys
    _sys.stdout.flush()
    _os._exit(0)  # amplifier-core 2.0.2's engine may crash while the interpreter shuts down
    """
)


@pytest.mark.skipif(
    not UPSTREAM_PYTHON, reason="set AMPLIFIER_CORE_202_PYTHON to run on amplifier-core 2.0.2"
)
def test_mounts_and_denies_on_amplifier_core_2_0_2() -> None:
    result = subprocess.run(
        [UPSTREAM_PYTHON, "-c", SCRIPT, str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
