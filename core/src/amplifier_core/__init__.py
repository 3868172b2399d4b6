"""amplifier_core: a small, fast hook kernel for AI-agent sessions.

Hook modules written for Microsoft's Amplifier mount unchanged: the public names here are the
ecosystem's names. A hook module is a package with an ``amplifier.modules`` entry point whose
target is ``mount(coordinator, config)``::

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

Test it with :mod:`amplifier_core.testing` (``create_test_coordinator``) or the pytest
fixtures the kernel ships (``coordinator``, ``hook_registry``, ``event_recorder``).
"""

from typing import TYPE_CHECKING, Any

from . import events
from .approval import (
    ApprovalProvider,
    ApprovalRequest,
    ApprovalResponse,
    ApprovalSystem,
    ApprovalTimeoutError,
    CallbackApprovalSystem,
    StaticApprovalSystem,
)
from .bundle import Bundle, BundleInfo, ModuleEntry, load_bundle, parse_bundle
from .coordinator import InjectionTooLargeError, ModuleCoordinator
from .display import DisplaySystem, LoggingDisplay, RecordingDisplay
from .errors import AmplifierError, BundleError, ModuleLoadError
from .hooks import HookRegistry
from .interfaces import HookHandler
from .loader import ModuleFailure, ModuleLoader, ModuleSpec, MountedModule
from .models import ContextInjection, HookResult, ToolResult, UserMessage

if TYPE_CHECKING:
    from .session import AmplifierSession

__version__ = "0.1.0"

__all__ = [
    "AmplifierError",
    "AmplifierSession",
    "ApprovalProvider",
    "ApprovalRequest",
    "ApprovalResponse",
    "ApprovalSystem",
    "ApprovalTimeoutError",
    "Bundle",
    "BundleError",
    "BundleInfo",
    "CallbackApprovalSystem",
    "ContextInjection",
    "DisplaySystem",
    "HookHandler",
    "HookRegistry",
    "HookResult",
    "InjectionTooLargeError",
    "LoggingDisplay",
    "ModuleCoordinator",
    "ModuleEntry",
    "ModuleFailure",
    "ModuleLoadError",
    "ModuleLoader",
    "ModuleSpec",
    "MountedModule",
    "RecordingDisplay",
    "StaticApprovalSystem",
    "ToolResult",
    "UserMessage",
    "__version__",
    "events",
    "load_bundle",
    "parse_bundle",
]


def __getattr__(name: str) -> Any:
    """``AmplifierSession`` is imported on first use: the session runtime (providers, tools,
    HTTP client) stays out of ``import amplifier_core`` for hook modules that never need it."""
    if name == "AmplifierSession":
        from .session import AmplifierSession

        return AmplifierSession
    raise AttributeError(f"module 'amplifier_core' has no attribute {name!r}")
