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

What a run costs: a teller made for the handler when the registry wraps its chain
(:meth:`Receipts.plain_for`), or for a declarative hook when its module binds it
(:meth:`Receipts.teller`), only appends a tuple of the run's facts to the trail's queue
(:meth:`~amplifier_core.audit.AuditTrail.defer`, inline); the record is rendered (its time
from the run's clock reading), chained, hashed and written with its batch
(:meth:`Receipts.lines`). The text of a line up to its time, and the SHA-256 state of that
text, are made once per hook, event, tool, decision and outcome; the text from its time to
its duration once per millisecond and tool call. The application's own handlers
(:data:`HOST_HANDLERS`) are left out of the observed chains when the capability is
registered (:meth:`Receipts.capability_changed`): their runs cost nothing.

Required guards (``session.require_guards``: handler names or hook labels, ``fnmatch``
patterns; or a declarative entry's ``required: true``): after every other ``tool:pre``
handler, :meth:`Receipts.check_required` denies the call when a required guard that was due
on it did not run to its end (failed, timed out, could not start, was refused, its matcher
missed the tool's name only by its spelling), or when no loaded hook answers to a required
name at all. Without required guards nothing is checked and no handler is added.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from json.encoder import encode_basestring_ascii as _text
from typing import TYPE_CHECKING, Any, Final

from .audit import BATCH as _BATCH
from .audit import members
from .audit import value_text as _value
from .audit_chain import seal
from .hooks import _MILLIS, _utc_second
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

_sha256: Final = hashlib.sha256
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
        host_handlers: object = (),
    ) -> None:
        self.trail = trail
        self.registry = registry
        self._number = trail.owner_number(self)
        """What the receipts queued on the trail name their owner by (a number: the garbage
        collector untracks a tuple of numbers and strings and never walks it again)."""
        # a hook's fixed text (as items name it) -> its fixed fields
        self._fields: dict[str, dict[str, Any]] = {}
        self._host: frozenset[str] = _names_of(host_handlers)
        self._unobserve: Unregister | None = None
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
        # (handler, event) -> its fixed fields, rendered (as _fixed holds them)
        self._handler_facts: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.listening = False
        """Whether a listener wants each receipt as it happens (it is chained at once)."""
        self._last_ts: tuple[int, str] = (-1, "")  # a run's time in ms, and its text
        self._second: tuple[int, str] = (-1, "")  # a second, and its text
        # (hook's fixed text, event, tool, decision, outcome) -> the line's text up to the
        # run's time, and the SHA-256 state of that text
        self._heads: dict[tuple[str, Any, Any, Any, Any], tuple[str, Any]] = {}

    # ------------------------------------------------------------------ set-up

    def start(self) -> None:
        """Observe the registry's handler runs; add the required-guard check when there are
        required guards."""
        self._observe()
        if self.required:
            self._add_check()

    def _observe(self) -> None:
        """(Re)register the observer: the application's own handlers and the check are not
        observed, so their runs cost nothing; the registry wraps its chains anew."""
        if self._unobserve is not None:
            self._unobserve()
        observer = _Observer(self._observed, self._plain, self.plain_for)
        self._unobserve = self.registry.add_observer(
            observer, ignore=(REQUIRE_HANDLER, *self._host)
        )

    def capability_changed(self, name: str, value: object) -> None:
        """The coordinator's capability ``name`` is now ``value``: :data:`HOST_HANDLERS`
        goes to :meth:`set_host_handlers`."""
        if name == HOST_HANDLERS:
            self.set_host_handlers(value)

    def set_host_handlers(self, names: object) -> None:
        """The application's own handlers (``session.host_handlers``: a collection of handler
        names) changed: they leave no receipt. Resolved here, not on each run."""
        host = _names_of(names)
        if host != self._host:
            self._host = host
            if self._unobserve is not None:
                self._observe()

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
        if self._unobserve is not None:
            self._unobserve()
            self._unobserve = None
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()

    def add_listener(self, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Also hand every receipt to ``listener`` (hooks-otel exports them); returns a
        function that removes it. A listener that raises is skipped."""
        self._listeners.append(listener)
        self.listening = True
        self.trail.chain_at_once(self, True)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            self.listening = bool(self._listeners)
            if not self.listening:
                self.trail.chain_at_once(self, False)

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
        if handler in self._handlers:
            return
        self._handlers.add(handler)
        self._handler_facts.clear()  # their kind changed
        if self._unobserve is not None:
            self._observe()  # the wrapped chains hold the facts they were built with

    def is_required(self, name: str) -> bool:
        """Whether the hook or handler ``name`` is a required guard."""
        known = self._required_cache.get(name)
        if known is None:
            known = any(names(name, pattern) for pattern in self.required)
            self._required_cache[name] = known
        return known

    # ------------------------------------------------------------------ records

    def hook_of(self, hook: str, fixed: Mapping[str, Any] | None = None) -> tuple[Any, ...]:
        """What :meth:`ran_ok` takes of a declarative hook ``hook`` whose receipts say
        ``fixed`` of it (:meth:`ran`): its fixed fields, rendered once; a module keeps it for
        the hook's runs."""
        return self._fixed_of(hook, "declarative", fixed)

    def ran_ok(
        self,
        hook: tuple[Any, ...],
        event: str,
        data: Mapping[str, Any],
        decision: str,
        duration: float,
    ) -> None:
        """:meth:`ran` of a declarative hook (``hook``: its :meth:`hook_of`) that ran to its
        end (``outcome: ok``) with nothing more to say, positional (a hook run often keeps
        its :meth:`teller` instead)."""
        call = data.get("tool_call_id")
        if self.required and event == "tool:pre":
            self._remember(call, hook[1]["hook"], "ok", None)
        self.trail.defer(
            (
                self._number,
                hook[2],
                time.time(),
                event,
                data.get("tool_name"),
                call,
                decision,
                "ok",
                duration,
                None,
            )
        )

    def teller(self, hook: tuple[Any, ...]) -> Callable[[str, Mapping[str, Any], str, float], None]:
        """:meth:`ran_ok` of one declarative hook (``hook``: its :meth:`hook_of`), made once
        for its runs: told ``(event, data, decision, duration)``, it only queues the run's
        tuple (:meth:`~amplifier_core.audit.AuditTrail.defer`, inline)."""
        trail = self.trail
        queue = trail.queue
        append = queue.append
        settle = trail.settle
        remember = self._remember
        name = hook[1]["hook"]
        clock = time.time
        number, text = self._number, hook[2]

        def told(event: str, data: Mapping[str, Any], decision: str, duration: float) -> None:
            call = data.get("tool_call_id")
            if self.required and event == "tool:pre":
                remember(call, name, "ok", None)
            ended = clock()
            item = (
                number,
                text,
                ended,
                event,
                data.get("tool_name"),
                call,
                decision,
                "ok",
                duration,
                None,
            )
            append(item)
            if len(queue) >= _BATCH or not trail.open_from <= ended < trail.open_until:
                settle(item)

        return told

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
        call = data.get("tool_call_id")
        if self.required and event == "tool:pre":
            self._remember(call, hook, outcome, extra.get("why"))
        self.trail.defer(
            (
                self._number,
                self._fixed_of(hook, kind, fixed)[2],
                time.time(),
                event,
                data.get("tool_name"),
                call,
                decision,
                outcome,
                duration,
                _flat(extra) if extra else None,
            )
        )

    # ------------------------------------------------------------------ rendering (deferred)

    def _fixed_of(self, hook: str, kind: str, fixed: Mapping[str, Any] | None) -> tuple[Any, ...]:
        key = (hook, kind, id(fixed))
        cached = self._fixed.get(key)
        if cached is None or cached[0] is not fixed:
            cached = self._fix(key, fixed)
        return cached

    def _variable(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """The fields of one run: ``event``, ``tool``, ``decision``, ``outcome``, ``ts`` (the
        run's clock reading, to the millisecond), ``tool_call_id``, ``duration_ms``, then the
        run's other fields (``None`` ones left out)."""
        variable: dict[str, Any] = {"event": item[3]}
        if item[4] is not None:
            variable["tool"] = item[4]
        variable["decision"] = item[6]
        variable["outcome"] = item[7]
        variable["ts"] = self._ts(item[2])
        if item[5] is not None:
            variable["tool_call_id"] = item[5]
        variable["duration_ms"] = _millis(item[8])
        extra = item[9]
        if extra:
            for name, value in zip(extra[::2], extra[1::2], strict=True):
                if value is not None:
                    variable[name] = value
        return variable

    def _ts(self, ended: float) -> str:
        """``ended`` (Unix time) in UTC ISO 8601 to the millisecond: its second formatted once
        per second, the text kept for the millisecond."""
        millis = int(ended * 1000)
        last = self._last_ts
        if last[0] != millis:
            second, part = divmod(millis, 1000)
            if second != self._second[0]:
                self._second = (second, _utc_second(second))
            last = self._last_ts = (millis, self._second[1] + _MILLIS[part])
        return last[1]

    def lines(
        self, items: list[tuple[Any, ...]], chain_id: str, seq: int, prev: str | None
    ) -> list[str]:
        """The sealed lines of queued receipts (:class:`~amplifier_core.audit.Deferred`),
        their fields in :meth:`_variable`'s order; each line's hash is its last field.

        The text up to the run's time, and the SHA-256 state of it, are made once for each
        hook, event, tool, decision and outcome seen together; the text from the time to the
        duration once for each millisecond and tool call (the hooks of one event share it);
        each line adds its own part (duration, chain fields) to a copy of that state and is
        made in one formatting."""
        heads = self._heads
        head_of = self._head_of
        chained = ', "chain": "' + chain_id + '", "seq": '
        lines: list[str] = []
        add_line = lines.append
        mid_millis, mid_call, mid = -1, _NO_CALL, ""
        for item in items:
            try:
                _, fixed, ended, event, tool, call, decision, outcome, duration, extra = item
                found = heads.get((fixed, event, tool, decision, outcome))
                if found is None:
                    found = head_of((fixed, event, tool, decision, outcome))
                millis = int(ended * 1000)
                if millis != mid_millis or call is not mid_call:  # the next event's runs
                    mid_millis, mid_call = millis, call
                    mid = self._mid(ended, call)
                micros = int(duration * 1_000_000 + 0.5)
                took = _SHORT[micros] if 0 <= micros < 1000 else repr(micros / 1000)
                if extra:  # why, exit_code ...: as json.dumps writes them
                    for name, value in zip(extra[::2], extra[1::2], strict=True):
                        if value is not None:
                            took += f", {_value(name)}: {_value(value)}"
                if prev is None:
                    tail = f'{mid}{took}{chained}{seq}, "prev": null'
                else:
                    tail = f'{mid}{took}{chained}{seq}, "prev": "{prev}"'
                state = found[1].copy()
                state.update((tail + "}").encode())  # ASCII: every value is escaped to it
                digest = state.hexdigest()
                add_line(f'{found[0]}{tail}, "hash": "{digest}"}}')
            except Exception:  # a value JSON refuses (a cycle): the receipt's repr
                import logging

                logging.getLogger(__name__).warning(
                    "a receipt could not be rendered", exc_info=True
                )
                body = "{" + members({"type": "hook_run", "unrenderable": repr(item[1:])})
                line, digest = seal(body + chained + str(seq) + ', "prev": ' + _value(prev) + "}")
                add_line(line)
            seq, prev = seq + 1, digest
        return lines

    def _mid(self, ended: float, call: object) -> str:
        """A line's text from its time to its duration (``ended``: the run's Unix time,
        ``call``: its tool call's id or ``None``)."""
        if call is None:
            return f'{self._ts(ended)}", "duration_ms": '
        called = _text(call) if type(call) is str else _value(call)
        return f'{self._ts(ended)}", "tool_call_id": {called}, "duration_ms": '

    def _head_of(self, key: tuple[str, Any, Any, Any, Any]) -> tuple[str, Any]:
        fixed, event, tool, decision, outcome = key
        head = "{" + fixed + ', "event": ' + _value(event)
        if tool is not None:
            head += ', "tool": ' + _value(tool)
        head += f', "decision": {_value(decision)}, "outcome": {_value(outcome)}, "ts": "'
        if len(self._heads) > 4096:
            self._heads.clear()
        found = self._heads[key] = (head, _sha256(head.encode("utf-8", "surrogatepass")))
        return found

    def entry(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """A queued receipt as its record (:class:`~amplifier_core.audit.Deferred`)."""
        fields = self._fields.get(item[1])
        entry = dict(fields) if fields is not None else json.loads("{" + item[1] + "}")
        entry.update(self._variable(item))
        return entry

    def sealed(self, entry: dict[str, Any]) -> None:
        """A receipt was chained: hand it to the listeners."""
        for listener in list(self._listeners):
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
            self._fields.clear()  # a receipt still kept reads its fields back from the text
        text = members(fields)
        self._fields[text] = fields
        cached = self._fixed[key] = (facts, fields, text)
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

    def _observed(self, run: HandlerRun) -> None:
        handler, event = run.handler, run.event
        fixed = self._handler_facts.get((handler, event))
        if fixed is None:
            fixed = self._facts_of(handler, event)
        data = run.data
        call = data.get("tool_call_id")
        outcome = "ok" if run.failure is None else run.failure
        if self.required and event == "tool:pre":
            self._remember(call, handler, outcome, run.error)
        self.trail.defer(
            (
                self._number,
                fixed[2],
                run.ended,
                event,
                data.get("tool_name"),
                call,
                run.action,
                outcome,
                run.duration,
                None if run.error is None else ("why", run.error),
            )
        )

    def _plain(
        self, handler: str, event: str, action: str, duration: float, ended: float, data: Any
    ) -> None:
        """:meth:`_observed` of a run that ended without failure, told its figures."""
        fixed = self._handler_facts.get((handler, event))
        if fixed is None:
            fixed = self._facts_of(handler, event)
        call = data.get("tool_call_id")
        if self.required and event == "tool:pre":
            self._remember(call, handler, "ok", None)
        self.trail.defer(
            (
                self._number,
                fixed[2],
                ended,
                event,
                data.get("tool_name"),
                call,
                action,
                "ok",
                duration,
                None,
            )
        )

    def plain_for(self, handler: str, event: str) -> Callable[[str, float, float, Any], None]:
        """:meth:`_plain` for one handler on one event, made when the registry wraps its
        chain: the hook's fixed fields are resolved here, so a run only appends its tuple to
        the trail's queue (:meth:`~amplifier_core.audit.AuditTrail.defer`, inline)."""
        fixed = self._facts_of(handler, event)
        trail = self.trail
        queue = trail.queue
        append = queue.append
        settle = trail.settle
        remember = self._remember
        due = event == "tool:pre"
        number, text = self._number, fixed[2]

        def told(action: str, duration: float, ended: float, data: Any) -> None:
            call = data.get("tool_call_id")
            if due and self.required:
                remember(call, handler, "ok", None)
            item = (
                number,
                text,
                ended,
                event,
                data.get("tool_name"),
                call,
                action,
                "ok",
                duration,
                None,
            )
            append(item)
            if len(queue) >= _BATCH or not trail.open_from <= ended < trail.open_until:
                settle(item)

        return told

    def _facts_of(self, handler: str, event: str) -> tuple[Any, ...]:
        """What a handler's receipts say of it: where it was registered, whether it fails
        closed (kept for its next runs, rendered)."""
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
        kind = "dispatcher" if handler in self._handlers else "handler"
        fixed = self._handler_facts[(handler, event)] = self._fixed_of(handler, kind, facts)
        return fixed

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


_NO_CALL: Final = object()
"""No tool call yet (a run's ``tool_call_id`` may be ``None``)."""

_SHORT: Final = tuple(f"0.{micros:03d}" for micros in range(1000))
"""The text of each duration under a millisecond, in ms to the microsecond."""


def _flat(fields: Mapping[str, Any]) -> tuple[Any, ...]:
    """A run's other fields as a queued receipt holds them: names and values in turn (one
    flat tuple, which the garbage collector untracks when its values are plain)."""
    flat: list[Any] = []
    for pair in fields.items():
        flat += pair
    return tuple(flat)


def _millis(seconds: float) -> float:
    """``seconds`` in milliseconds, to the microsecond (the number :func:`_millis_text`
    writes: the float nearest to it)."""
    return int(seconds * 1_000_000 + 0.5) / 1000


def _millis_text(seconds: float) -> str:
    """``seconds`` in milliseconds to the microsecond, as JSON text (``0.004``)."""
    micros = int(seconds * 1_000_000 + 0.5)
    if 0 <= micros < 1000:
        return _SHORT[micros]
    return repr(micros / 1000)


class _Observer:
    """The registry observer of a session's receipts: every run as a ``HandlerRun``, or
    (``plain``) the figures of one that ended without failure."""

    __slots__ = ("observe", "plain", "plain_for")

    def __init__(self, observe: Callable[[HandlerRun], None], plain: Any, plain_for: Any) -> None:
        self.observe = observe
        self.plain = plain
        self.plain_for = plain_for

    def __call__(self, run: HandlerRun) -> None:
        self.observe(run)


def names(name: str, pattern: str) -> bool:
    """Whether ``pattern`` (a name in ``session.require_guards``) names the hook or handler
    ``name``: the very name (a label's ``[0]`` is not a character class), or an ``fnmatch``
    pattern of it."""
    return name == pattern or fnmatchcase(name, pattern)


def _names_of(value: object) -> frozenset[str]:
    """The handler names ``session.host_handlers`` holds (anything else: none)."""
    if not value or isinstance(value, str):
        return frozenset()
    try:
        return frozenset(name for name in value if isinstance(name, str))  # type: ignore[attr-defined]
    except TypeError:  # not a collection of names: nothing is the host's
        return frozenset()


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
