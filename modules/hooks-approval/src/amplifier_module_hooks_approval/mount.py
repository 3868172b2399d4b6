"""The entry point: ``mount(coordinator, config)`` registers the handlers and returns a cleanup."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .audit import AuditLog, default_redactor
from .config import MODULE_ID, parse_config
from .environment import ENVIRONMENT_CAPABILITY
from .hook import ApprovalHook
from .tracker import GATE_EVENTS, RAN_EVENTS, ROUND_END_EVENTS, Tracker, kernel_runs_approval_gate

__all__ = ["mount", "workspace_of"]

_OBSERVER = f"{MODULE_ID}.audit"
_EARLY = -10_000  # observers run before any handler of the event can deny and stop the chain


def workspace_of(coordinator: Any) -> str:
    """The session's working directory (capability ``session.working_dir``), else the cwd."""
    get_capability = getattr(coordinator, "get_capability", None)
    directory = get_capability("session.working_dir") if callable(get_capability) else None
    if not isinstance(directory, str) or not directory:
        directory = os.getcwd()
    return os.path.realpath(directory)


def _capability(coordinator: Any, name: str) -> Callable[[], object] | None:
    """A lookup of capability ``name`` at each call (it may be offered after this mount)."""
    get_capability = getattr(coordinator, "get_capability", None)
    if not callable(get_capability):
        return None
    return lambda: get_capability(name)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the approval gate on ``coordinator.hooks`` (``tool:pre``) and its observers.

    Raises ValueError (``hooks-approval: config: ...``) for a bad config. The returned function
    unregisters exactly the handlers this call registered and closes the audit log.
    """
    settings = parse_config(config)
    registry = coordinator.hooks
    workspace = workspace_of(coordinator)
    audit = (
        AuditLog(
            settings.audit_log,
            workspace,
            redact=default_redactor() if settings.redact_audit_log else None,
        )
        if settings.audit_log is not None
        else None
    )
    kernel_gate = kernel_runs_approval_gate(coordinator)
    tracker = Tracker(
        hook_name=MODULE_ID,
        audit=audit,
        emitter=registry,
        kernel_gate=kernel_gate,
        emit_events=settings.emit_approval_events,
    )
    hook = ApprovalHook(
        settings,
        workspace=workspace,
        session_id=str(getattr(coordinator, "session_id", None) or "unknown-session"),
        tracker=tracker,
        audit=audit,
        environment=_capability(coordinator, ENVIRONMENT_CAPABILITY),
    )
    unregisters = [
        registry.register("tool:pre", hook.on_tool_pre, priority=settings.priority, name=MODULE_ID)
    ]
    if tracker.needed and kernel_gate:
        unregisters += [
            registry.register(event, tracker.on_gate_event, priority=_EARLY, name=_OBSERVER)
            for event in GATE_EVENTS
        ]
    elif tracker.needed:
        unregisters += [
            registry.register(event, tracker.on_tool_ran, priority=_EARLY, name=_OBSERVER)
            for event in RAN_EVENTS
        ]
        unregisters += [
            registry.register(event, tracker.on_round_end, priority=_EARLY, name=_OBSERVER)
            for event in ROUND_END_EVENTS
        ]

    def cleanup() -> None:
        for unregister in unregisters:
            if callable(unregister):
                unregister()
        if not all(callable(unregister) for unregister in unregisters):
            registry.unregister(MODULE_ID)  # a registry whose register() returns nothing
            registry.unregister(_OBSERVER)
        if audit is not None:
            audit.close()

    return cleanup
