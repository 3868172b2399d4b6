"""The handler: redact an event's data and report what was redacted.

Nothing to redact: ``continue``, and the data is not touched. Something redacted: ``modify``
with a redacted copy of the data, counts per rule under ``counts_key`` in that copy, and a
``user_message`` such as ``Redacted 3 secrets (github_token: 2, email: 1)``. If redaction itself
fails, the handler logs it and continues, or, with ``fail_closed``, denies the event so that
unredacted data never goes on.

Data that carries a conversation again is decided by what is new in it: the leading items of
its lists that equal, in place, those of the last data decided clean are recognised in one
comparison (:class:`~amplifier_hooks_util.clean_run.CleanRuns`), the rest through the memo of
messages found clean; only when that finds something is the whole data redacted.

Mounted on a coordinator, the hook also guards what leaves for the model where no event
carries it (``outbound.py``): at ``provider:request`` it redacts the mounted context's stored
messages and wraps the mounted providers so that every request is redacted before it is sent.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from amplifier_hooks_util.clean_run import CleanRuns
from amplifier_hooks_util.deep import cut_depth

from amplifier_core.models import HookResult
from amplifier_hooks_redact import (
    DEFAULT_DEADLINE,
    MODULE_ID,
    RedactionConfig,
    redact_within,
    scan_deadline,
    shared_redactor,
)
from amplifier_hooks_redact.memo import CleanMemo

from .outbound import OutboundGuard, StoredMessages

__all__ = ["SHOWN_CAPABILITY", "RedactionHook", "summarize"]

SHOWN_CAPABILITY = "redaction.redact_text"
"""The capability under which the hook offers ``(text) -> text`` for what a person sees."""

logger = logging.getLogger(__name__)


def summarize(counts: dict[str, int]) -> str:
    """``Redacted 3 secrets (github_token: 2, email: 1)``: most frequent rule first."""
    total = sum(counts.values())
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    details = ", ".join(f"{name}: {count}" for name, count in ordered)
    return f"Redacted {total} secret{'' if total == 1 else 's'} ({details})"


def _merge_counts(previous: Any, counts: dict[str, int]) -> dict[str, Any]:
    if not isinstance(previous, dict):
        return dict(counts)
    merged = dict(previous)
    for name, count in counts.items():
        earlier = merged.get(name)
        merged[name] = count + earlier if isinstance(earlier, int) else count
    return merged


_DEPTH = 100
_DEEP = f"[REDACTED: nested deeper than {_DEPTH} levels]"


class RedactionHook:
    """The handler for every subscribed event, bound to one validated config."""

    def __init__(self, config: RedactionConfig, coordinator: Any = None) -> None:
        self.config = config
        self.redactor = shared_redactor(config)  # compiled once per process per config
        self.memo = CleanMemo()  # the messages found clean, for every event and guard
        self.runs = CleanRuns()  # the leading items of the data's lists decided clean
        self.outbound: OutboundGuard | None = None
        if coordinator is not None and (config.guard_context or config.guard_providers):
            self.outbound = OutboundGuard(
                coordinator, self.redactor, fail_closed=config.fail_closed, memo=self.memo
            )
            if config.guard_providers:
                self.outbound.guard_providers()

    def redact_shown(self, text: str) -> str:
        """``text`` as a person may see it: redacted by the same rules (what is not scanned
        within the deadline is replaced)."""
        with scan_deadline(DEFAULT_DEADLINE):
            return self.redactor.redact_text(text)[0]

    def release(self) -> None:
        """Undo what the hook did outside the registry (the providers' wrappers)."""
        if self.outbound is not None:
            self.outbound.release()

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        """Redact ``data``; ``modify`` with counts if anything was found, else ``continue``."""
        stored: dict[str, int] = {}
        outbound = self.outbound if event == "provider:request" else None
        try:
            # The context's messages are fetched before the data is decided: those of them
            # that are the very message objects the decision just found clean (nothing ran
            # in between) are not looked at again.
            held = None
            if outbound is not None and self.config.guard_context:
                held = await outbound.stored()
            vouched: list[Any] = []
            try:  # large data off the event loop; what passes the deadline is replaced
                counts: dict[str, int]
                if self._clean(data):
                    redacted, counts = data, {}
                    messages = data.get("messages")
                    vouched = messages if type(messages) is list else []
                else:  # deciding may wait for a thread: the context is fetched again after
                    held = None
                    redacted, counts = await redact_within(self.redactor, data, memo=self.memo)
            except RecursionError:  # nested too deep to walk: what is deeper is cut away
                held = None
                cut = cut_depth(data, _DEPTH, _DEEP)
                redacted, counts = self.redactor.redact(cut)
                counts = {**counts, "nested_too_deep": counts.get("nested_too_deep", 0) + 1}
            if outbound is not None:
                stored = await self._guard_outbound(held, vouched if held is not None else [])
        except Exception as err:  # a failing redaction never breaks the session
            problem = f"{type(err).__name__}: {err}"
            logger.warning("%s: could not redact %s data: %s", MODULE_ID, event, problem)
            if self.config.fail_closed:
                return HookResult(
                    action="deny",
                    reason=f"{MODULE_ID}: could not redact {event} data ({problem}); "
                    "blocked because fail_closed is set",
                )
            return HookResult()
        if not counts:
            if stored and self.config.notify:  # only the stored messages held secrets
                return HookResult(
                    user_message=summarize(stored),
                    user_message_level=self.config.notify_level,
                    user_message_source=MODULE_ID,
                )
            return HookResult()
        return self._modified(event, redacted, _merge_counts(stored, counts))

    def _clean(self, data: Any) -> bool:
        """Whether ``data`` holds nothing to redact, decided without the leading items of its
        lists that equal those last decided clean (:class:`CleanRuns`)."""
        view, marks = self.runs.view(data)
        if not self.redactor.is_clean(view, self.memo):
            self.runs.forget(marks)
            return False
        self.runs.decided(marks)
        return True

    async def _guard_outbound(
        self, held: StoredMessages | None = None, vouched: Sequence[Any] = ()
    ) -> dict[str, int]:
        """Guard providers mounted since, and redact the context's stored messages (``held``,
        fetched before ``vouched`` was decided clean, when given)."""
        assert self.outbound is not None
        if self.config.guard_providers:
            self.outbound.guard_providers()
        if self.config.guard_context:
            return await self.outbound.redact_context(held, vouched)
        return {}

    def _modified(self, event: str, redacted: Any, counts: dict[str, int]) -> HookResult:
        key = self.config.counts_key
        if key is not None:
            redacted[key] = _merge_counts(redacted.get(key), counts)
        logger.debug("%s: %s in %s", MODULE_ID, counts, event)
        if not self.config.notify:
            return HookResult(action="modify", data=redacted)
        return HookResult(
            action="modify",
            data=redacted,
            user_message=summarize(counts),
            user_message_level=self.config.notify_level,
            user_message_source=MODULE_ID,
        )
