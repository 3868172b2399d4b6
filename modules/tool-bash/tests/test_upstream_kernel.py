"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, it runs
commands and reports failures as that kernel's ``ToolResult``.
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
    import amplifier_core
    from amplifier_core import ToolResult
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_tool_bash import mount

    async def main(workspace):
        coordinator = MockCoordinator()
        coordinator.register_capability("session.working_dir", workspace)
        await mount(coordinator, {"timeout": 5, "env": {"GREETING": "hello"}})
        tool = coordinator.get("tools")["bash"]
        assert tool.name == "bash" and tool.input_schema["required"] == ["command"]

        done = await tool.execute({"command": 'echo "$GREETING from $(pwd)"'})
        assert isinstance(done, ToolResult) and done.success, done
        assert done.output == {
            "stdout": f"hello from {os.path.realpath(workspace)}\\n",
            "stderr": "",
            "returncode": 0,
        }, done.output

        failed = await tool.execute({"command": "exit 4"})
        assert not failed.success
        assert failed.error == {"type": "NonZeroExit", "message": "exit code 4"}, failed.error

        late = await tool.execute({"command": "sleep 30", "timeout": 0.2})
        assert late.error["type"] == "Timeout", late.error

        bad = await tool.execute({"cmd": "ls"})
        assert bad.error["type"] == "InvalidInput", bad.error
        print("ok", amplifier_core.__version__ if hasattr(amplifier_core, "__version__") else "")

    asyncio.run(main(sys.argv[1]))
    """
)


@needs_upstream
def test_mounts_and_runs_a_command_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], args=[str(workspace)])
    assert out.startswith("ok"), out
