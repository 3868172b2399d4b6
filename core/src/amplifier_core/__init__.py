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
fixtures the kernel ships (``coordinator``, ``hook_registry``, ``event_recorder``). A host with
its own loop mounts installed modules with ``async with mount_modules([...]) as coordinator:``
(:mod:`amplifier_core.embedding`).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from . import events
from ._version import __version__
from .errors import AmplifierError, BundleError, ModuleLoadError
from .hooks import HookRegistry
from .models import ContextInjection, HookResult, ToolResult, UserMessage

if TYPE_CHECKING:
    from ._engine import RUST_AVAILABLE
    from .approval import (
        ApprovalProvider,
        ApprovalRequest,
        ApprovalResponse,
        ApprovalSystem,
        ApprovalTimeoutError,
        CallbackApprovalSystem,
        StaticApprovalSystem,
    )
    from .cancellation import CancellationState, CancellationToken
    from .content_models import (
        ContentBlock,
        ContentBlockType,
        TextContent,
        ThinkingContent,
        ToolCallContent,
        ToolResultContent,
    )
    from .coordinator import InjectionTooLargeError, ModuleCoordinator
    from .descriptions import (
        ConfigField,
        ModelInfo,
        ModuleInfo,
        Pricing,
        ProviderInfo,
        SessionStatus,
    )
    from .display import DisplaySystem, LoggingDisplay, RecordingDisplay
    from .embedding import mount_modules
    from .interfaces import ContextManager, HookHandler, Orchestrator, Provider, Tool
    from .llm_errors import (
        AbortError,
        AccessDeniedError,
        AuthenticationError,
        ConfigurationError,
        ContentFilterError,
        ContextLengthError,
        InvalidRequestError,
        InvalidToolCallError,
        LLMError,
        LLMTimeoutError,
        NetworkError,
        NotFoundError,
        ProviderUnavailableError,
        QuotaExceededError,
        RateLimitError,
        StreamError,
    )
    from .loader import ModuleFailure, ModuleLoader, ModuleSpec, MountedModule
    from .message_models import (
        ChatRequest,
        ChatResponse,
        Degradation,
        ImageBlock,
        Message,
        ReasoningBlock,
        RedactedThinkingBlock,
        ResponseFormat,
        ResponseFormatJson,
        ResponseFormatJsonSchema,
        ResponseFormatText,
        TextBlock,
        ThinkingBlock,
        ToolCall,
        ToolCallBlock,
        ToolResultBlock,
        ToolSpec,
        Usage,
    )
    from .session import AmplifierSession
    from .testing import (
        EventRecorder,
        MockCoordinator,
        MockTool,
        create_test_coordinator,
        wait_for,
    )


__all__ = [
    "RUST_AVAILABLE",
    "AbortError",
    "AccessDeniedError",
    "AmplifierError",
    "AmplifierSession",
    "ApprovalProvider",
    "ApprovalRequest",
    "ApprovalResponse",
    "ApprovalSystem",
    "ApprovalTimeoutError",
    "AuthenticationError",
    "BundleError",
    "CallbackApprovalSystem",
    "CancellationState",
    "CancellationToken",
    "ChatRequest",
    "ChatResponse",
    "ConfigField",
    "ConfigurationError",
    "ContentBlock",
    "ContentBlockType",
    "ContentFilterError",
    "ContextInjection",
    "ContextLengthError",
    "ContextManager",
    "Degradation",
    "DisplaySystem",
    "EventRecorder",
    "HookHandler",
    "HookRegistry",
    "HookResult",
    "ImageBlock",
    "InjectionTooLargeError",
    "InvalidRequestError",
    "InvalidToolCallError",
    "LLMError",
    "LLMTimeoutError",
    "LoggingDisplay",
    "Message",
    "MockContextManager",
    "MockCoordinator",
    "MockTool",
    "ModelInfo",
    "ModuleCoordinator",
    "ModuleFailure",
    "ModuleInfo",
    "ModuleLoadError",
    "ModuleLoader",
    "ModuleSpec",
    "ModuleValidationError",
    "MountedModule",
    "NetworkError",
    "NotFoundError",
    "Orchestrator",
    "Pricing",
    "Provider",
    "ProviderInfo",
    "ProviderUnavailableError",
    "QuotaExceededError",
    "RateLimitError",
    "ReasoningBlock",
    "RecordingDisplay",
    "RedactedThinkingBlock",
    "ResponseFormat",
    "ResponseFormatJson",
    "ResponseFormatJsonSchema",
    "ResponseFormatText",
    "RetryConfig",
    "ScriptedOrchestrator",
    "SessionStatus",
    "StaticApprovalSystem",
    "StreamError",
    "TextBlock",
    "TextContent",
    "ThinkingBlock",
    "ThinkingContent",
    "Tool",
    "ToolCall",
    "ToolCallBlock",
    "ToolCallContent",
    "ToolResult",
    "ToolResultBlock",
    "ToolResultContent",
    "ToolSpec",
    "Usage",
    "UserMessage",
    "__version__",
    "capabilities",
    "classify_error_message",
    "create_test_coordinator",
    "events",
    "mount_modules",
    "retry_with_backoff",
    "wait_for",
]


# Names loaded on first use, with the submodule that defines them: ``import amplifier_core``
# loads only what a hook needs (HookResult, HookRegistry, the events, the models); the
# coordinator, loader, audit trail, the session and the provider-facing
# models load when first named.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "ApprovalProvider",
            "ApprovalRequest",
            "ApprovalResponse",
            "ApprovalSystem",
            "ApprovalTimeoutError",
            "CallbackApprovalSystem",
            "StaticApprovalSystem",
        ),
        ".approval",
    ),
    **dict.fromkeys(("InjectionTooLargeError", "ModuleCoordinator"), ".coordinator"),
    **dict.fromkeys(
        ("ConfigField", "ModelInfo", "ModuleInfo", "Pricing", "ProviderInfo", "SessionStatus"),
        ".descriptions",
    ),
    **dict.fromkeys(("DisplaySystem", "LoggingDisplay", "RecordingDisplay"), ".display"),
    "mount_modules": ".embedding",
    **dict.fromkeys(
        ("ContextManager", "HookHandler", "Orchestrator", "Provider", "Tool"), ".interfaces"
    ),
    **dict.fromkeys(
        ("ModuleFailure", "ModuleLoader", "ModuleSpec", "ModuleValidationError", "MountedModule"),
        ".loader",
    ),
    **dict.fromkeys(
        (
            "CancellationState",
            "CancellationToken",
        ),
        ".cancellation",
    ),
    **dict.fromkeys(
        (
            "ContentBlock",
            "ContentBlockType",
            "TextContent",
            "ThinkingContent",
            "ToolCallContent",
            "ToolResultContent",
        ),
        ".content_models",
    ),
    **dict.fromkeys(
        (
            "AbortError",
            "AccessDeniedError",
            "AuthenticationError",
            "ConfigurationError",
            "ContentFilterError",
            "ContextLengthError",
            "InvalidRequestError",
            "InvalidToolCallError",
            "LLMError",
            "LLMTimeoutError",
            "NetworkError",
            "NotFoundError",
            "ProviderUnavailableError",
            "QuotaExceededError",
            "RateLimitError",
            "StreamError",
        ),
        ".llm_errors",
    ),
    **dict.fromkeys(
        (
            "ChatRequest",
            "ChatResponse",
            "Degradation",
            "ImageBlock",
            "Message",
            "ReasoningBlock",
            "RedactedThinkingBlock",
            "ResponseFormat",
            "ResponseFormatJson",
            "ResponseFormatJsonSchema",
            "ResponseFormatText",
            "TextBlock",
            "ThinkingBlock",
            "ToolCall",
            "ToolCallBlock",
            "ToolResultBlock",
            "ToolSpec",
            "Usage",
        ),
        ".message_models",
    ),
    **dict.fromkeys(
        ("AmplifierSession",),
        ".session",
    ),
    **dict.fromkeys(
        ("RetryConfig", "classify_error_message", "retry_with_backoff"), ".utils.retry"
    ),
    # amplifier-core 2.0.2's engine names, which it also exports from the package
    # (``from amplifier_core import RustSession``): here each Rust* name is the same public
    # class, and RUST_AVAILABLE is False (no compiled engine backs this kernel).
    **dict.fromkeys(
        (
            "RUST_AVAILABLE",
            "RustCancellationToken",
            "RustCoordinator",
            "RustHookRegistry",
            "RustSession",
        ),
        "._engine",
    ),
    **dict.fromkeys(
        (
            "EventRecorder",
            "MockContextManager",
            "MockCoordinator",
            "MockTool",
            "ScriptedOrchestrator",
            "create_test_coordinator",
            "wait_for",
        ),
        ".testing",
    ),
}


# Submodules imported when first asked for: ``capabilities`` (named in __all__) and
# ``_engine``, 2.0.2's engine names (which 2.0.2 imports with the package).
_SUBMODULES = frozenset({"_engine", "capabilities"})


def __getattr__(name: str) -> Any:
    """Load a name of :data:`_LAZY` from its submodule on first use and keep it here."""
    if name in _SUBMODULES:
        submodule = import_module(f".{name}", __name__)
        globals()[name] = submodule
        return submodule
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'amplifier_core' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
