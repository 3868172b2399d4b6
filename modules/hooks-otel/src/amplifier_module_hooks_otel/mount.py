"""The entry point: ``mount(coordinator, config)`` wires a session's events and handler runs
into OpenTelemetry, and returns a cleanup that ends open spans and flushes (bounded)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

from amplifier_hooks_util.kernel import Kernel

from .config import MODULE_ID, OtelConfig, parse_config
from .pipeline import Pipeline, build_pipeline
from .redaction import find_redactor
from .spans import ENDS, STARTS, SessionTracer

__all__ = ["EVENTS", "HOST_HANDLERS_CAPABILITY", "TRACEPARENT_CAPABILITY", "OtelHooks", "mount"]

logger = logging.getLogger("amplifier_module_hooks_otel")

TRACEPARENT_CAPABILITY: Final = "observability.traceparent"
"""A callable ``() -> str | None``: the W3C ``traceparent`` of the span the session is in."""

RECEIPTS_CAPABILITY: Final = "audit.receipts"
"""The kernel's receipts (``amplifier_core.receipts``): each one is exported as an
``amplifier.receipt`` span event."""

HOST_HANDLERS_CAPABILITY: Final = "session.host_handlers"
"""A collection of handler names the application running the session registered for itself (its
display, its notifications): they are not hooks, so their runs become no hook span or hook
metric. Read on each run, so names the application adds after this module mounted count."""

# lowest and highest priorities: spans open before every other handler and close after
FIRST: Final = -(10**9)
LAST: Final = 10**9

EVENTS: Final = (
    "session:start",
    "session:fork",
    "session:resume",
    "session:end",
    "prompt:submit",
    "prompt:complete",
    "provider:request",
    "provider:response",
    "provider:error",
    "tool:pre",
    "tool:post",
    "tool:error",
    "approval:required",
    "approval:granted",
    "approval:denied",
    "plan:start",
    "plan:end",
    "policy:violation",
    "artifact:read",
    "artifact:write",
    "context:compaction",
    "context:include",
    "cancel:requested",
    "hook:observed",
)


class OtelHooks:
    """One mount: the pipeline, the session's span tree and the handlers feeding it."""

    def __init__(
        self,
        config: OtelConfig,
        pipeline: Pipeline,
        kernel: Kernel,
        host_handlers: Callable[[], Any] | None = None,
    ) -> None:
        self.config = config
        self.pipeline = pipeline
        self.kernel = kernel
        self.host_handlers = host_handlers
        self._host: Any = ()
        self._redact: Callable[[str], str] | None = None
        tracer = None
        if pipeline.tracer_provider is not None:
            tracer = pipeline.tracer_provider.get_tracer("amplifier_module_hooks_otel", "0.1.0")
        instruments = None
        if pipeline.meter_provider is not None:
            from .instruments import create_instruments

            instruments = create_instruments(
                pipeline.meter_provider.get_meter("amplifier_module_hooks_otel", "0.1.0")
            )
        self.emit_log: Callable[[str, dict[str, Any]], None] | None = None
        if pipeline.logger_provider is not None:
            from .logs import EventLogger

            self.emit_log = EventLogger(pipeline.logger_provider, config, self.redact).emit
        self.tracer = SessionTracer(config, tracer, instruments, self.redact)

    def redact(self, text: str) -> str:
        """Redaction of an attribute value (resolved at first use: modules mounted after this
        one are on the registry by then)."""
        if self._redact is None:
            if self.config.redaction == "off":
                self._redact = _identity
            else:
                self._redact = find_redactor(self.kernel)
        return self._redact(text)

    # Sync handlers that return None: the registry calls them inline (no deadline machinery),
    # on this kernel and on amplifier-core 2.x alike.
    def on_first(self, event: str, data: dict[str, Any]) -> None:
        try:
            self.tracer.on_event(event, data)
        except Exception:  # telemetry never breaks the session
            logger.exception("%s: failed on %s", MODULE_ID, event)

    def on_log(self, event: str, data: dict[str, Any]) -> None:
        if self.emit_log is None:
            return
        try:
            self.emit_log(event, data)
        except Exception:
            logger.exception("%s: failed to log %s", MODULE_ID, event)

    def on_last(self, event: str, data: dict[str, Any]) -> None:
        try:
            self.tracer.on_event_end(event, data)
        except Exception:
            logger.exception("%s: failed on %s", MODULE_ID, event)

    def set_host_handlers(self, host: Any) -> None:
        """The application's own handlers (``session.host_handlers``, a collection of handler
        names, kept as it is: names added to it later count) are now ``host``: resolved when
        the capability is registered, not on each run."""
        self._host = host if host and not isinstance(host, str) and _holds(host) else ()

    def on_run(self, run: Any) -> None:
        if self.host_handlers is not None:  # a kernel that does not say when it changes
            self.set_host_handlers(self.host_handlers())
        if run.handler in self._host:  # the application's own handler, not a hook
            return
        try:
            self.tracer.on_run(run)
        except Exception:
            logger.exception("%s: failed to record the run of %r", MODULE_ID, run.handler)

    def on_receipt(self, receipt: Mapping[str, Any]) -> None:
        try:
            self.tracer.on_receipt(receipt)
        except Exception:
            logger.exception("%s: failed to export a receipt of %r", MODULE_ID, receipt.get("hook"))

    def traceparent(self) -> str | None:
        return self.tracer.traceparent()


def _identity(text: str) -> str:
    return text


def _watch_host_handlers(hooks: OtelHooks, kernel: Kernel) -> None:
    """Resolve ``session.host_handlers`` now and each time it is registered again (this
    kernel's ``get_capability(name, watch=...)``); a kernel without it: on each run."""
    host, watched = kernel.watched_capability(HOST_HANDLERS_CAPABILITY, hooks.set_host_handlers)
    if watched:
        hooks.set_host_handlers(host)
    else:
        hooks.host_handlers = lambda: kernel.capability(HOST_HANDLERS_CAPABILITY)


def _holds(value: Any) -> bool:
    """Whether ``value`` can be asked whether it holds a handler's name."""
    try:
        "" in value  # noqa: B015  # only whether it can answer
    except TypeError:
        return False
    return True


def _offer_traceparent(coordinator: Any, hooks: OtelHooks) -> None:
    register = getattr(coordinator, "register_capability", None)
    if callable(register):
        register(TRACEPARENT_CAPABILITY, hooks.traceparent)
        get = getattr(coordinator, "get_capability", None)
        earlier = get("session.environment") if callable(get) else None

        def environment() -> dict[str, str]:
            base: dict[str, str] = dict(earlier()) if callable(earlier) else {}
            header = hooks.traceparent()
            return {**base, "TRACEPARENT": header} if header else base

        register("session.environment", environment)


async def mount(
    coordinator: Any,
    config: dict[str, Any] | None = None,
    *,
    pipeline: Pipeline | None = None,
) -> Callable[[], None] | None:
    """Register the span handlers and the handler-run observer on ``coordinator.hooks``.

    ``pipeline`` replaces the exporters the config describes (tests and benches pass one with
    in-memory exporters). Raises ValueError (``hooks-otel: config: ...``) for a bad config.
    With ``enabled: false`` or ``OTEL_SDK_DISABLED=true`` nothing is registered.
    """
    import os

    parsed = parse_config(config)
    if not parsed.enabled or os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        logger.info("%s: disabled; nothing is exported", MODULE_ID)
        return None
    built = pipeline if pipeline is not None else build_pipeline(parsed)
    registry = coordinator.hooks
    kernel = Kernel.of(coordinator, registry)
    hooks = OtelHooks(parsed, built, kernel)
    if callable(getattr(coordinator, "get_capability", None)):
        _watch_host_handlers(hooks, kernel)
    undo: list[Callable[[], Any]] = []
    for event in EVENTS:
        if event in STARTS:
            undo.append(registry.register(event, hooks.on_first, priority=FIRST, name=MODULE_ID))
        if event in ENDS:
            undo.append(registry.register(event, hooks.on_last, priority=LAST, name=MODULE_ID))
    if hooks.emit_log is not None:  # every event as a log record, as the hooks leave it
        for event in ("*",) if kernel.wildcards else EVENTS:
            undo.append(registry.register(event, hooks.on_log, priority=LAST, name=MODULE_ID))
    remove_observer = kernel.add_observer(hooks.on_run, ignore=(MODULE_ID,))
    if remove_observer is not None:
        undo.append(remove_observer)
    else:
        logger.info(
            "%s: this kernel does not report handler runs (no HookRegistry.add_observer): "
            "no hook spans or hook metrics",
            MODULE_ID,
        )
    receipts = kernel.capability(RECEIPTS_CAPABILITY)
    add_listener = getattr(receipts, "add_listener", None)
    if callable(add_listener):  # every receipt as an event on its span
        undo.append(add_listener(hooks.on_receipt))
    _offer_traceparent(coordinator, hooks)
    coordinator.otel_hooks = hooks

    def cleanup() -> None:
        for step in reversed(undo):
            if callable(step):
                step()
        hooks.tracer.close("cleanup")
        built.shutdown(parsed.shutdown_timeout_s)
        if built.dropped:
            logger.warning("%s: %d spans were dropped in all", MODULE_ID, built.dropped)

    return cleanup
