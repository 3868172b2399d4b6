"""amplifier-core 2.0.2's ``amplifier_core._engine`` names, in pure Python.

In 2.0.2 this module is the compiled Rust engine, and code written against 2.0.2 imports some
of its Python-visible names directly. Each name here works as 2.0.2's does for a caller, and is
this kernel's own object wherever 2.0.2's is the same object as a public name:

- the event names and ``ALL_EVENTS`` are :mod:`amplifier_core.events`'s (``events.ALL_EVENTS
  is _engine.ALL_EVENTS``, as in 2.0.2), the capability names and
  ``ALL_WELL_KNOWN_CAPABILITIES`` are :mod:`amplifier_core.capabilities`'s;
- ``RetryConfig`` and ``compute_delay`` are :mod:`amplifier_core.utils.retry`'s;
  ``classify_error_message`` is the engine's classifier, which names a category
  (``"rate_limit"``, ``"timeout"`` ...) where ``utils.retry``'s returns an ``LLMError`` class;
- ``ProviderError`` is the engine's structured provider error record (not an exception);
- ``RustSession``, ``RustCoordinator``, ``RustHookRegistry`` and ``RustCancellationToken`` are
  the public classes, loaded on first use;
- ``RUST_AVAILABLE`` is ``False``: there is no Rust engine here, and ``__version__`` is this
  kernel's version.

The engine's transports and codecs (WASM modules, ``resolve_module``, the protobuf bridge, the
tool-result helpers) have no counterpart in this kernel and are absent: asking for one is an
``AttributeError`` that says so. See docs/decisions.md ("The engine module").
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, Final

from ._provider_errors import ProviderError, classify_error_message
from ._version import __version__
from .capabilities import (
    ALL_WELL_KNOWN_CAPABILITIES,
    AUDIO,
    BATCH,
    CODE_EXECUTION,
    COMPUTER_USE,
    DEEP_RESEARCH,
    EMBEDDINGS,
    FAST,
    IMAGE_GENERATION,
    JSON_MODE,
    LOCAL,
    LONG_CONTEXT,
    STREAMING,
    THINKING,
    TOOLS,
    VISION,
    WEB_SEARCH,
)
from .events import (
    ALL_EVENTS,
    APPROVAL_DENIED,
    APPROVAL_GRANTED,
    APPROVAL_REQUIRED,
    ARTIFACT_READ,
    ARTIFACT_WRITE,
    CANCEL_COMPLETED,
    CANCEL_REQUESTED,
    CONTENT_BLOCK_DELTA,
    CONTENT_BLOCK_END,
    CONTENT_BLOCK_START,
    CONTEXT_COMPACTION,
    CONTEXT_INCLUDE,
    CONTEXT_POST_COMPACT,
    CONTEXT_PRE_COMPACT,
    EXECUTION_END,
    EXECUTION_START,
    HOOK_OBSERVED,
    LLM_REQUEST,
    LLM_RESPONSE,
    MEMORY_UPDATE,
    MODULE_LOAD_FAILED,
    MODULE_ON_SESSION_READY_FAILED,
    ORCHESTRATOR_COMPLETE,
    PLAN_END,
    PLAN_START,
    POLICY_VIOLATION,
    PROMPT_COMPLETE,
    PROMPT_SUBMIT,
    PROVIDER_ERROR,
    PROVIDER_REQUEST,
    PROVIDER_RESOLVE,
    PROVIDER_RESPONSE,
    PROVIDER_RETRY,
    PROVIDER_SWITCH,
    PROVIDER_THROTTLE,
    PROVIDER_TOOL_SEQUENCE_REPAIRED,
    SESSION_CHECKPOINT,
    SESSION_CONFIG,
    SESSION_END,
    SESSION_FORK,
    SESSION_RESUME,
    SESSION_START,
    THINKING_DELTA,
    THINKING_FINAL,
    TOOL_ERROR,
    TOOL_POST,
    TOOL_PRE,
    USER_NOTIFICATION,
)
from .utils.retry import RetryConfig, compute_delay

if TYPE_CHECKING:
    from .cancellation import CancellationToken as RustCancellationToken
    from .coordinator import ModuleCoordinator as RustCoordinator
    from .hooks import HookRegistry as RustHookRegistry
    from .session import AmplifierSession as RustSession

RUST_AVAILABLE: Final = False
"""Whether a compiled Rust engine backs this kernel: never, it is pure Python."""

__all__ = [
    "ALL_EVENTS",
    "ALL_WELL_KNOWN_CAPABILITIES",
    "APPROVAL_DENIED",
    "APPROVAL_GRANTED",
    "APPROVAL_REQUIRED",
    "ARTIFACT_READ",
    "ARTIFACT_WRITE",
    "AUDIO",
    "BATCH",
    "CANCEL_COMPLETED",
    "CANCEL_REQUESTED",
    "CODE_EXECUTION",
    "COMPUTER_USE",
    "CONTENT_BLOCK_DELTA",
    "CONTENT_BLOCK_END",
    "CONTENT_BLOCK_START",
    "CONTEXT_COMPACTION",
    "CONTEXT_INCLUDE",
    "CONTEXT_POST_COMPACT",
    "CONTEXT_PRE_COMPACT",
    "DEEP_RESEARCH",
    "EMBEDDINGS",
    "EXECUTION_END",
    "EXECUTION_START",
    "FAST",
    "HOOK_OBSERVED",
    "IMAGE_GENERATION",
    "JSON_MODE",
    "LLM_REQUEST",
    "LLM_RESPONSE",
    "LOCAL",
    "LONG_CONTEXT",
    "MEMORY_UPDATE",
    "MODULE_LOAD_FAILED",
    "MODULE_ON_SESSION_READY_FAILED",
    "ORCHESTRATOR_COMPLETE",
    "PLAN_END",
    "PLAN_START",
    "POLICY_VIOLATION",
    "PROMPT_COMPLETE",
    "PROMPT_SUBMIT",
    "PROVIDER_ERROR",
    "PROVIDER_REQUEST",
    "PROVIDER_RESOLVE",
    "PROVIDER_RESPONSE",
    "PROVIDER_RETRY",
    "PROVIDER_SWITCH",
    "PROVIDER_THROTTLE",
    "PROVIDER_TOOL_SEQUENCE_REPAIRED",
    "RUST_AVAILABLE",
    "SESSION_CHECKPOINT",
    "SESSION_CONFIG",
    "SESSION_END",
    "SESSION_FORK",
    "SESSION_RESUME",
    "SESSION_START",
    "STREAMING",
    "THINKING",
    "THINKING_DELTA",
    "THINKING_FINAL",
    "TOOLS",
    "TOOL_ERROR",
    "TOOL_POST",
    "TOOL_PRE",
    "USER_NOTIFICATION",
    "VISION",
    "WEB_SEARCH",
    "ProviderError",
    "RetryConfig",
    "RustCancellationToken",
    "RustCoordinator",
    "RustHookRegistry",
    "RustSession",
    "__version__",
    "classify_error_message",
    "compute_delay",
]

# 2.0.2's engine classes -> the public class that is the same object here, loaded on first
# use so that importing this module does not load the session or the coordinator.
_CLASSES: Final[dict[str, tuple[str, str]]] = {
    "RustCancellationToken": (".cancellation", "CancellationToken"),
    "RustCoordinator": (".coordinator", "ModuleCoordinator"),
    "RustHookRegistry": (".hooks", "HookRegistry"),
    "RustSession": (".session", "AmplifierSession"),
}

# 2.0.2's engine names with no counterpart here, and why.
_ABSENT: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "WasmApproval",
            "WasmContext",
            "WasmHook",
            "WasmOrchestrator",
            "WasmProvider",
            "WasmTool",
            "load_and_mount_wasm",
            "load_wasm_from_path",
        ),
        "WASM modules need 2.0.2's Rust engine (wasmtime); this kernel loads Python modules",
    ),
    "resolve_module": (
        "reading amplifier.toml transports is 2.0.2's Rust resolver; this kernel's loader "
        "resolves Python modules itself (amplifier_core.loader)"
    ),
    **dict.fromkeys(
        ("proto_chat_request_to_json", "json_to_proto_chat_response"),
        "the protobuf bridge serves 2.0.2's gRPC transport, which this kernel does not have",
    ),
    **dict.fromkeys(
        ("_normalize_tool_result_content", "_tool_result_safe_hook_presentation"),
        "a private helper of 2.0.2's ToolResult; this kernel's ToolResult does this in Python",
    ),
    "RustUnregisterFn": (
        "HookRegistry.register() returns a plain function here, not an engine object"
    ),
}


def __getattr__(name: str) -> Any:
    """Load an engine class name on first use; say why a 2.0.2 engine name is absent."""
    if name in _CLASSES:
        where, public = _CLASSES[name]
        value = getattr(import_module(where, __package__), public)
        globals()[name] = value
        return value
    if name in _ABSENT:
        raise AttributeError(
            f"amplifier_core._engine has no {name!r}: {_ABSENT[name]} (RUST_AVAILABLE is False)"
        )
    raise AttributeError(f"module 'amplifier_core._engine' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
