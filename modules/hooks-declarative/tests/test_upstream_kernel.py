"""On amplifier-core 2.0.2 (no wildcards, no per-handler timeouts), in its own environment."""

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
    import asyncio, json, sys
    from pathlib import Path
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hooks_declarative.trust import trust_project
    from amplifier_module_hooks_declarative import mount

    project = Path(sys.argv[1])
    (project / ".amplifier").mkdir()
    rewrite = project / "rewrite.py"
    rewrite.write_text(
        "import json, sys\\n"
        "event = json.load(sys.stdin)\\n"
        "if event['args'].get('command') == 'ls':\\n"
        "    print(json.dumps({'action': 'modify', 'modified_args': {'command': 'ls -la'}}))\\n"
    )
    (project / ".amplifier" / "hooks.yaml").write_text(
        "hooks:\\n"
        "  PreToolUse:\\n"
        "    - type: command\\n"
        f"      command: {json.dumps(sys.executable + ' ' + str(rewrite))}\\n"
        "      timeout_ms: 20000\\n"
        "      on_failure: block\\n"
        "    - type: matcher\\n"
        "      match:\\n"
        "        tool: Bash\\n"
        "        args:\\n"
        "          command: 'rm *'\\n"
        "      action: block\\n"
        "      message: Destructive rm commands require confirmation\\n"
    )
    trust_project(project)  # the user reviewed the project's hooks file

    async def main():
        coordinator = MockCoordinator()
        cleanup = await mount(coordinator, {
            "include_user": False,
            "project_dir": str(project),
            "hooks": {
                "PreToolUse": [{"type": "matcher", "match": {"tool": "Bash",
                                "args": {"command": "git push*"}},
                                "action": "ask", "message": "Push?"}],
                "Error": [{"type": "matcher", "match": {}, "action": "allow"}],
            },
        })
        handlers = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
        assert handlers == {
            "tool:pre": ["hooks-declarative:tool:pre"],
            "provider:error": ["hooks-declarative:provider:error"],
            "tool:error": ["hooks-declarative:tool:error"],
            "prompt:submit": ["hooks-declarative:reload"],  # the hooks file is re-read if changed
        }, handlers

        def bash(command):
            return {"tool_name": "bash", "tool_input": {"command": command}}

        denied = await coordinator.hooks.emit("tool:pre", bash("rm -rf build"))
        assert denied.action == "deny", denied
        assert denied.reason == "Destructive rm commands require confirmation", denied.reason
        asked = await coordinator.hooks.emit("tool:pre", bash("git push"))
        assert asked.action == "ask_user", asked
        assert asked.approval_prompt == "Push?", asked
        assert asked.approval_options == ["Allow once", "Allow always", "Deny"], asked
        modified = await coordinator.hooks.emit("tool:pre", bash("ls"))
        # amplifier-core 2.0.2 reports a modified chain as continue with the new data
        assert modified.action in ("modify", "continue"), modified
        assert modified.data["tool_input"] == {"command": "ls -la"}, modified.data
        quiet = await coordinator.hooks.emit("tool:error", {"tool_name": "bash"})
        assert quiet.action == "continue", quiet
        await cleanup()
        left = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
        assert left == {}, left
        print("ok")

    asyncio.run(main())
    """
)


@needs_upstream
def test_mounts_blocks_asks_and_modifies_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    out = run_upstream(
        SCRIPT,
        tmp_path,
        sources=[module_source(__file__)],
        args=[str(project)],
        env={"HOME": str(tmp_path)},
    )
    assert out.strip() == "ok", out
