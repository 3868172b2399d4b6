"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the three
tools read, write and edit files and report failures as that kernel's ``ToolResult``.
"""

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
    import asyncio, os, sys
    from amplifier_core import ToolResult
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_tool_filesystem import mount

    async def main(workspace):
        coordinator = MockCoordinator()
        coordinator.register_capability("session.working_dir", workspace)
        await mount(coordinator, {"denied_write_paths": ["locked"]})
        tools = coordinator.get("tools")
        written = await tools["write_file"].execute({"file_path": "a.txt", "content": "one\\n"})
        assert isinstance(written, ToolResult) and written.success, written
        edited = await tools["edit_file"].execute(
            {"file_path": "a.txt", "old_string": "one", "new_string": "two"}
        )
        assert edited.success and edited.output["replacements"] == 1, edited
        read = await tools["read_file"].execute({"file_path": "a.txt"})
        assert read.output["content"] == "     1\\ttwo\\n", read.output
        refused = await tools["write_file"].execute({"file_path": "locked/x", "content": "x"})
        assert refused.error["type"] == "PathNotAllowed", refused.error
        bad = await tools["read_file"].execute({"path": "a.txt"})
        assert bad.error["type"] == "InvalidInput", bad.error
        print("ok")

    asyncio.run(main(sys.argv[1]))
    """
)


@needs_upstream
def test_mounts_reads_writes_and_edits_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], args=[str(workspace)])
    assert out.startswith("ok"), out
