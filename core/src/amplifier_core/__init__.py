"""amplifier_core: a small, fast hook kernel for AI-agent sessions.

Hook modules written for Microsoft's Amplifier mount unchanged: the public names here are
the ecosystem's names. A hook module is a package with an ``amplifier.modules`` entry point
whose target is ``mount``::

    from amplifier_core import HookResult

    async def mount(coordinator, config):
        async def on_tool_pre(event, data):
            if "rm -rf /" in data.get("tool_input", {}).get("command", ""):
                return HookResult(action="deny", reason="refusing to wipe the disk")
            return HookResult()

        return coordinator.hooks.register("tool:pre", on_tool_pre, priority=5, name="no-wipe")

    # pyproject.toml
    # [project.entry-points."amplifier.modules"]
    # hooks-no-wipe = "my_package:mount"
"""

from . import events
from .hooks import HookRegistry
from .models import ContextInjection, HookResult, ToolResult, UserMessage

__version__ = "0.1.0"

__all__ = [
    "ContextInjection",
    "HookRegistry",
    "HookResult",
    "ToolResult",
    "UserMessage",
    "__version__",
    "events",
]
