"""Receipts: every hook run leaves a record in the session's audit log, and so does every
hook that was due and did not run; required guards that did not run stop the tool call.

A session with an audit log (``session.audit_log``) keeps receipts unless ``session.receipts:
false``. :class:`Receipts` observes the session's registry
(:meth:`~amplifier_core.hooks.HookRegistry.add_observer`): each handler run becomes a
``hook_run`` record (``kind: handler``). Modules that run hooks of their own (hooks-declarative
runs many per kernel handler) find it as the capability :data:`RECEIPTS_CAPABILITY` and call
:meth:`Receipts.ran` / :meth:`Receipts.not_run` for each of theirs (``kind: declarative``).

A receipt's fields (``docs/observability.md`` has the table): ``hook``, ``kind``, ``event``,
``tool`` and ``tool_call_id`` (when the event has them), ``decision``, ``outcome`` (``ok``,
``error``, ``timeout``, ``invalid_result``, ``not_started``, ``skipped``, ``refused``,
``unmatched``, ``not_loaded``), ``duration_ms``, and where known ``why``, ``exit_code``,
``source`` (file and line), ``definition_sha256``, ``code_sha256``, ``observed``,
``required``. The records are chained with the rest of the trail
(:mod:`amplifier_core.audit_chain`).

Required guards (``session.require_guards``: handler names or hook labels, ``fnmatch``
patterns; or a declarative entry's ``required: true``): after every other ``tool:pre``
handler, :meth:`Receipts.check_required` denies the call when a required guard that was due
on it did not run to its end (failed, timed out, could not start, was refused, its matcher
missed the tool's name only by its spelling), or when no loaded hook answers to a required
name at all. Without required guards nothing is checked and no handler is added.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Final

from .audit import members
from .hooks import _now_iso
from .models import HookResult

if TYPE_CHECKING:
    from .audit import AuditTrail
    from .hooks import HookRegistry, Unregister
    from .observers import HandlerRun

__all__ = [
    "HOST_HANDLERS",
    "NOT_RAN",
    "RECEIPTS_CAPABILITY",
    "REQUIRE_HANDLER",
    "Receipts",
    "names",
    "near_miss",
]

RECEIPTS_CAPABILITY: Final = "audit.receipts"
"""The coordinator capability under which a session's :class:`Receipts` is offered."""

HOST_HANDLERS: Final = "session.host_handlers"
"""The capability naming the application's own handlers (a view): they leave no receipt."""

REQUIRE_HANDLER: Final = "session.require_guards"
"""The name of the ``tool:pre`` handler that stops calls a required guard did not run on."""

NOT_RAN: Final = frozenset(
    {"error", "timeout", "invalid_result", "not_started", "skipped", "refused", "unmatched"}
)
"""Outcomes of a guard that was due and did not run to its end."""

_LAST: Final = 2**31
"""The check's priority: after every handler a module registers."""
_KEPT_CALLS: Final = 256


class Receipts:
    """The receipts of one session (module docstring).

    :param trail: where the records go (the coordinator's audit trail).
    :param registry: the session's hook registry, whose handler runs are observed.
    :param required: ``session.require_guards``.
    """

    def __init__(
        self,
        trail: AuditTrail,
        registry: HookRegistry,
        *,
        required: Iterable[str] = (),
        host_handlers: Callable[[], object] | None = None,
    ) -> None:
        self.trail = trail
        self.registry = registry
        self._host_handlers = host_handlers
        self.required: list[str] = list(dict.fromkeys(required))
        self._labels: dict[str, str] = {}  # declarative hook label -> its event
        self._handlers: set[str] = set()  # names of handlers whose receipts come from elsewhere
        self._calls: dict[str, list[tuple[str, str, str | None]]] = {}
        self._required_cache: dict[str, bool] = {}
        self._undo: list[Unregister] = []
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._fixed: dict[
            tuple[str, str, int], tuple[Mapping[str, Any] | None, dict[str, Any], str]
        ] = {}
        self._handler_facts: dict[tuple[str, str], dict[str, Any]] = {}

    # ------------------------------------------------------------------ set-up

    def start(self) -> None:
        """Observe the registry's handler runs; add the required-guard check when there are
        required guards."""
        self._undo.append(self.registry.add_observer(self._observed, ignore=(REQUIRE_HANDLER,)))
        if self.required:
            self._add_check()

    def _add_check(self) -> None:
        if any(info.name == REQUIRE_HANDLER for info in self.registry.registrations()):
            return
        self._undo.append(
            self.registry.register(
                "tool:pre", self.check_required, priority=_LAST, name=REQUIRE_HANDLER
            )
        )

    def close(self) -> None:
        """Stop observing; the trail is closed by its owner."""
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()

    def add_listener(self, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Also hand every receipt to ``listener`` (hooks-otel exports them); returns a
        function that removes it. A listener that raises is skipped."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def declare(self, label: str, event: str, *, required: bool = False) -> None:
        """A hook that a module runs itself (a declarative hook) is loaded for ``event``;
        ``required``: its entry says ``required: true``."""
        self._labels[label] = event
        if required and label not in self.required:
            self.required.append(label)
            self._required_cache.clear()
            self._add_check()

    def forget(self, labels: Iterable[str]) -> None:
        """Those hooks are no longer loaded (their files were read again)."""
        for label in labels:
            self._labels.pop(label, None)

    def runs_hooks(self, handler: str) -> None:
        """Handler ``handler`` runs hooks that receipt themselves: its own runs still get
        receipts, with ``kind: dispatcher``."""
        self._handlers.add(handler)

    def is_required(self, name: str) -> bool:
        """Whether the hook or handler ``name`` is a required guard."""
        known = self._required_cache.get(name)
        if known is None:
            known = any(names(name, pattern) for pattern in self.required)
            self._required_cache[name] = known
        return known

    # ------------------------------------------------------------------ records

    def ran(
        self,
        *,
        hook: str,
        event: str,
        data: Mapping[str, Any],
        decision: str,
        outcome: str,
        duration: float,
        kind: str = "declarative",
        fixed: Mapping[str, Any] | None = None,
        **extra: Any,
    ) -> None:
        """Record one run of ``hook`` on ``event`` (``data``: the event data; ``duration`` in
        seconds); ``extra`` fields are added as they are (``None`` ones left out); ``fixed``:
        fields of the hook itself (no ``None`` among them), the very same mapping for each of
        its runs: rendered once, and kept alive by the caller."""
        variable: dict[str, Any] = {"ts": _now_iso(), "event": event}
        tool = data.get("tool_name")
        call = data.get("tool_call_id")
        if tool is not None:
            variable["tool"] = tool
        if call is not None:
            variable["tool_call_id"] = call
        variable["decision"] = decision
        variable["outcome"] = outcome
        variable["duration_ms"] = round(duration * 1000, 3)
        if extra:
            for name, value in extra.items():
                if value is not None:
                    variable[name] = value
        self._keep(hook, kind, fixed, variable, call, outcome, extra.get("why"))

    def _keep(
        self,
        hook: str,
        kind: str,
        fixed: Mapping[str, Any] | None,
        variable: dict[str, Any],
        call: object,
        outcome: str,
        why: object,
    ) -> None:
        """Hand one receipt to the trail and the listeners; remember it for the check."""
        key = (hook, kind, id(fixed))
        cached = self._fixed.get(key)
        if cached is None or cached[0] is not fixed:
            cached = self._fix(key, fixed)
        if self.required and variable["event"] == "tool:pre":
            self._remember(call, hook, outcome, why)
        entry = self.trail.receipt(cached[1], cached[2], variable)
        if self._listeners:
            for listener in self._listeners:
                try:
                    listener(entry)
                except Exception:  # an exporter must not break the session
                    import logging

                    logging.getLogger(__name__).warning("receipt listener failed", exc_info=True)

    def _fix(
        self, key: tuple[str, str, int], facts: Mapping[str, Any] | None
    ) -> tuple[Mapping[str, Any] | None, dict[str, Any], str]:
        """The fields of a hook that are the same on each of its runs, and their text."""
        fields: dict[str, Any] = {
            "type": "hook_run",
            "session_id": self.trail.session_id,
            "hook": key[0],
            "kind": key[1],
        }
        if facts:
            fields.update(facts)
        if len(self._fixed) > 4096:
            self._fixed.clear()
        cached = self._fixed[key] = (facts, fields, members(fields))
        return cached

    def not_run(
        self,
        *,
        hook: str,
        event: str,
        data: Mapping[str, Any],
        outcome: str,
        why: str,
        kind: str = "declarative",
        **extra: Any,
    ) -> None:
        """Record that ``hook`` was due on ``event`` and did not run, and ``why``."""
        self.ran(
            hook=hook,
            event=event,
            data=data,
            decision="continue",
            outcome=outcome,
            duration=0.0,
            kind=kind,
            why=why,
            **extra,
        )

    def _is_host(self, handler: str) -> bool:
        """The application's own handler (a view), named in ``session.host_handlers``: not a
        hook, so no receipt."""
        if self._host_handlers is None:
            return False
        try:
            names = self._host_handlers()
            return bool(names) and handler in names  # type: ignore[operator]
        except Exception:  # not a collection of names: nothing is the host's
            return False

    def _observed(self, run: HandlerRun) -> None:
        handler = run.handler
        if self._host_handlers is not None and self._is_host(handler):
            return
        event = run.event
        fixed = self._handler_facts.get((handler, event))
        if fixed is None:
            fixed = self._facts_of(handler, event)
        data = run.data
        variable: dict[str, Any] = {"ts": _now_iso(), "event": event}
        tool = data.get("tool_name")
        call = data.get("tool_call_id")
        if tool is not None:
            variable["tool"] = tool
        if call is not None:
            variable["tool_call_id"] = call
        variable["decision"] = run.action
        outcome = "ok" if run.failure is None else run.failure
        variable["outcome"] = outcome
        variable["duration_ms"] = round(run.duration * 1000, 3)
        if run.error is not None:
            variable["why"] = run.error
        kind = "dispatcher" if handler in self._handlers else "handler"
        self._keep(handler, kind, fixed, variable, call, outcome, run.error)

    def _facts_of(self, handler: str, event: str) -> dict[str, Any]:
        """What a handler's receipts say of it: where it was registered, whether it fails
        closed (kept for its next runs)."""
        facts: dict[str, Any] = {}
        for info in self.registry.handlers_for(event):
            if info.name == handler:
                if info.origin is not None:
                    facts["source"] = info.origin
                if info.fail_closed:
                    facts["fail_closed"] = True
                break
        if len(self._handler_facts) > 4096:
            self._handler_facts.clear()
        self._handler_facts[(handler, event)] = facts
        return facts

    # ------------------------------------------------------------------ required guards

    def _remember(self, call: object, hook: str, outcome: str, why: object) -> None:
        key = str(call) if call is not None else ""
        runs = self._calls.get(key)
        if runs is None:
            if len(self._calls) >= _KEPT_CALLS:
                self._calls.pop(next(iter(self._calls)))
            runs = self._calls[key] = []
        runs.append((hook, outcome, why if isinstance(why, str) else None))

    def check_required(self, event: str, data: dict[str, Any]) -> HookResult | None:
        """The ``tool:pre`` handler that denies a call a required guard did not run on."""
        call = data.get("tool_call_id")
        runs = self._calls.pop(str(call) if call is not None else "", [])
        registered = [info.name for info in self.registry.handlers_for("tool:pre")]
        missing: list[str] = []
        for pattern in self.required:
            mine = [run for run in runs if names(run[0], pattern)]
            failed = [run for run in mine if run[1] in NOT_RAN]
            if failed:
                name, outcome, why = failed[0]
                missing.append(f"{name} ({outcome}{': ' + why if why else ''})")
                continue
            if mine:
                continue
            handlers = [n for n in registered if n != REQUIRE_HANDLER and names(n, pattern)]
            labels = [label for label in self._labels if names(label, pattern)]
            if handlers and not labels:
                missing.append(f"{handlers[0]} (registered on tool:pre; it did not run)")
            elif not handlers and not labels and not self._loaded_elsewhere(pattern):
                missing.append(f"{pattern} (no hook of that name is loaded)")
        if not missing:
            return None
        tool = data.get("tool_name") or "the tool"
        reason = (
            f"required guard(s) did not run on this call of {tool}: {'; '.join(missing)} "
            "(session.require_guards / required: true; the call is refused)"
        )
        import logging

        logging.getLogger(__name__).warning("%s", reason)
        return HookResult(
            action="deny", reason=reason, user_message=reason, user_message_level="error"
        )

    def _loaded_elsewhere(self, pattern: str) -> bool:
        """A required handler registered for other events only is not due on a tool call."""
        return any(
            names(info.name, pattern) and info.event != "tool:pre"
            for info in self.registry.registrations()
        )


def names(name: str, pattern: str) -> bool:
    """Whether ``pattern`` (a name in ``session.require_guards``) names the hook or handler
    ``name``: the very name (a label's ``[0]`` is not a character class), or an ``fnmatch``
    pattern of it."""
    return name == pattern or fnmatchcase(name, pattern)


def _plain(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def near_miss(rules: Iterable[str], tool: str) -> str | None:
    """The rule among ``rules`` (tool names as a matcher was written with) that names
    ``tool`` but for its spelling (case, ``_``, ``-``, spaces): ``BASH`` for ``bash``."""
    wanted = _plain(tool)
    for rule in rules:
        if rule != tool and _plain(rule) == wanted:
            return rule
    return None
