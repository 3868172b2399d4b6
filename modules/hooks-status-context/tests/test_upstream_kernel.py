"""On amplifier-core 2.0.2, in its own virtual environment, against a real repository."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

SCRIPT = textwrap.dedent(
    """
    import asyncio, os, pathlib, sys
    import amplifier_core
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hooks_status_context import OPEN_TAG, mount

    async def main(repo):
        coordinator = MockCoordinator()
        coordinator.register_capability("session.working_dir", repo)
        cleanup = await mount(coordinator, {"git_include_commits": 1})
        first = await coordinator.hooks.emit("provider:request", {"messages": []})
        assert first.action == "inject_context", first
        assert first.ephemeral is True, first
        assert first.context_injection_role == "system", first
        text = first.context_injection
        assert text.startswith(OPEN_TAG), text
        assert "Working directory: " + repo + "\\n" in text, text
        assert "Current branch: topic" in text, text
        assert "Main branch: main" in text, text
        assert "Status: clean" in text, text
        again = await coordinator.hooks.emit("provider:request", {"messages": []})
        assert again.context_injection == text

        pathlib.Path(repo, "src", "app.py").write_text("edited in place\\n")
        await coordinator.hooks.emit("tool:post", {"tool_name": "bash", "tool_input": {}})
        later = await coordinator.hooks.emit("provider:request", {"messages": []})
        assert " M src/app.py" in later.context_injection, later.context_injection

        cleanup()
        left = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
        assert left == {}, left
        assert amplifier_core.__version__ == "2.0.2", amplifier_core.__version__
        print("ok")

    asyncio.run(main(sys.argv[1]))
    """
)


@needs_upstream
def test_mounts_and_injects_on_amplifier_core_2_0_2(tmp_path: Path, repo: Any) -> None:
    repo.git("checkout", "-q", "-b", "topic")
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], args=[str(repo.path)])
    assert out.strip() == "ok", out
