"""What leaves for the model, redacted where it leaves: the context and the providers.

An orchestrator may build a request from data no event carries (Amplifier's loop-basic adds
the prompt to the context itself, ignores a ``prompt:submit`` modify, and its
``provider:request`` carries no messages), and hooks' own injections join the request after
the last event. Two guards cover that, both through what every kernel offers (amplifier-core
2.0.2 and ours alike):

* **the context**: at ``provider:request`` the mounted context manager's stored messages
  (``coordinator.get("context")``, ``get_messages`` / ``set_messages``) are redacted in place,
  so neither this request nor a saved transcript holds the secret;
* **the providers**: each mounted provider's ``complete`` is wrapped (an attribute of that one
  instance; cleanup removes it) so that the request it receives is redacted first. That is the
  last door: ephemeral injections and anything an orchestrator appends after the context.

Both guards touch only what is new: the messages found clean are remembered with a copy of
what they held (:class:`~amplifier_hooks_redact.memo.CleanMemo`, shared with the event handler),
so a message carried again unchanged is not walked again, and one changed in place since is;
a request is read through its models' own fields (:mod:`.views`), not dumped, unless something
in it needs the dump. The leading messages of a request or of the context that equal, in
place, those of the last one decided clean are not looked at one by one either: one
comparison of lists recognises them (:class:`~amplifier_hooks_util.clean_run.CleanRun`). And
the stored messages that are the very objects of event data the handler has just found clean,
with nothing run in between, are not compared at all (:meth:`OutboundGuard.redact_context`),
nor are the leading message models of a request whose builder vouches that no handler could
have edited them (:mod:`amplifier_hooks_util.owned_models`) and that are the very models of
the last request decided clean (:meth:`OutboundGuard.redact_request`).

A guard that cannot do its work says so (a warning naming the provider or the context); with
``fail_closed`` the request is refused instead of sent.
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from operator import attrgetter, is_
from typing import Any, Final, NamedTuple

from amplifier_hooks_util import owned_models
from amplifier_hooks_util.clean_run import CleanRun

from amplifier_hooks_redact import MODULE_ID, Redactor
from amplifier_hooks_redact.memo import CleanMemo

from .views import CleanModels, plain_view

__all__ = ["OutboundGuard", "RedactionFailedError", "StoredMessages", "same_objects"]

logger = logging.getLogger(__name__)

_WRAPPED: Final = "__hooks_redaction_original__"
_MODEL_PARTS: Final = attrgetter("__class__", "__dict__", "__pydantic_extra__")
"""What a message model is compared by: its class, its fields and its extra fields."""


def _model_parts_copy(parts: Any) -> Any:
    """A deep copy of a model's parts (:data:`_MODEL_PARTS`): content blocks are models too,
    copied, and compared by their fields."""
    return copy.deepcopy(parts)


class StoredMessages(NamedTuple):
    """A context's stored messages as fetched (a list of its own) and how to store them."""

    messages: list[Any]
    put: Callable[[list[Any]], Any]


def same_objects(items: Sequence[Any], vouched: Sequence[Any]) -> int:
    """How many leading items of ``items`` are the very objects of ``vouched``, in the same
    places (compared by identity in C, never by their ``__eq__``)."""
    length = min(len(items), len(vouched))
    if not length:
        return 0
    if all(map(is_, items, vouched)):  # map stops at the shorter of the two
        return length
    return list(map(is_, items, vouched)).index(False)


class RedactionFailedError(RuntimeError):
    """Raised instead of sending a request that could not be redacted (``fail_closed``)."""


async def _resolved(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class OutboundGuard:
    """Redacts the mounted context's messages and every request the mounted providers get."""

    def __init__(
        self,
        coordinator: Any,
        redactor: Redactor,
        *,
        fail_closed: bool,
        memo: CleanMemo | None = None,
    ) -> None:
        self.coordinator = coordinator
        self.redactor = redactor
        self.fail_closed = fail_closed
        self.memo = memo if memo is not None else CleanMemo()
        self.models = CleanModels()
        self._context_run = CleanRun()
        self._request_run = CleanRun(_MODEL_PARTS, _model_parts_copy)
        self._owned_clean: list[Any] = []
        """The vouched models of the last request decided clean (the objects themselves)."""
        self._wrapped: list[Any] = []

    # ------------------------------------------------------------------ the context

    async def stored(self) -> StoredMessages | None:
        """The mounted context's stored messages as it hands them out now, with its
        ``set_messages``; ``None`` when no context is mounted or it cannot be guarded."""
        context = self._mounted("context")
        get = getattr(context, "get_messages", None)
        put = getattr(context, "set_messages", None)
        if context is None or not callable(get) or not callable(put):
            return None
        return StoredMessages(list(await _resolved(get())), put)

    async def redact_context(
        self, stored: StoredMessages | None = None, vouched: Sequence[Any] = ()
    ) -> dict[str, int]:
        """Redact the stored messages of the mounted context; counts per rule.

        ``stored`` is what :meth:`stored` gave (fetched now when not given). ``vouched`` is a
        list whose every item the caller decided clean after ``stored`` was fetched, with
        nothing run in between that could edit them (the same handler call, no suspension):
        the leading stored messages that are its very items, in its places, are not looked at
        again (one comparison of lists, made in C by identity)."""
        if stored is None:
            stored = await self.stored()
            if stored is None:
                return {}
        messages, put = stored
        memo = self.memo
        run = self._context_run
        start = same_objects(messages, vouched)
        if start:  # the context's own run is left as it was: every copy it holds stays sound
            if self.redactor.is_clean(messages[start:], memo):
                return {}
        else:
            start = run.start(messages)
            if self.redactor.is_clean(messages[start:], memo):  # the usual: only the new ones
                run.decided(messages, start)
                return {}
        run.forget()
        counts: dict[str, int] = {}
        changed = False
        for index, message in enumerate(messages):
            if memo.known(message):
                continue
            redacted, found = self.redactor.redact(message, memo)
            if found:
                for name, count in found.items():
                    counts[name] = counts.get(name, 0) + count
                messages[index] = redacted
                changed = True
        if changed:
            await _resolved(put(messages))
            logger.debug("%s: redacted the stored messages of the context: %s", MODULE_ID, counts)
        return counts

    # ------------------------------------------------------------------ the providers

    def guard_providers(self) -> None:
        """Wrap ``complete`` of every mounted provider not wrapped yet (cheap to repeat)."""
        providers = self._mounted("providers")
        if not isinstance(providers, dict):
            return
        for name, provider in providers.items():
            complete = getattr(provider, "complete", None)
            if complete is None or getattr(complete, _WRAPPED, None) is not None:
                continue
            guarded = self._guarded(str(name), complete)
            try:
                setattr(provider, "complete", guarded)  # noqa: B010 - this instance only
            except Exception as err:
                logger.warning(
                    "%s: cannot guard provider %r (%s: %s); its requests are redacted only "
                    "through the context and the events",
                    MODULE_ID,
                    name,
                    type(err).__name__,
                    err,
                )
                continue
            self._wrapped.append(provider)

    def _guarded(
        self, name: str, complete: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        async def redacting_complete(request: Any, *args: Any, **kwargs: Any) -> Any:
            return await complete(self.redact_request(name, request), *args, **kwargs)

        setattr(redacting_complete, _WRAPPED, complete)
        return redacting_complete

    def redact_request(self, provider: str, request: Any) -> Any:
        """``request`` with every secret in it redacted (the same object when there is none);
        a pydantic request is rebuilt from its redacted dump.

        The leading messages that equal, in place, copies of those of the last request decided
        clean are not looked into; when the request's builder vouches for its models
        (:func:`amplifier_hooks_util.owned_models.vouched`: given to no handler, rebuilt when
        their dicts change), the vouched models that are the very objects of the last request
        decided clean are not compared either."""
        try:
            dump = getattr(request, "model_dump", None)
            if not callable(dump):
                return self.redactor.redact(request, self.memo)[0]
            messages = getattr(request, "messages", None)
            run = self._request_run
            owned = owned_models.vouched(request) if isinstance(messages, list) else 0
            if owned and isinstance(messages, list):  # models no handler was given: by identity
                start = same_objects(messages[:owned], self._owned_clean)
            else:
                start = run.start(messages) if type(messages) is list else 0
            view = plain_view(request, self.memo, self.models, leading=start)
            if view is not None:
                clean = self.redactor.is_clean(view, self.memo)
                self.models.decided(clean)
                if clean:
                    if owned and isinstance(messages, list):
                        self._owned_clean = messages[:owned]
                    elif type(messages) is list:
                        run.decided(messages, start)
                    return request  # nothing in it to redact, decided without a dump
            run.forget()
            self._owned_clean = []
            redacted, counts = self.redactor.redact(dump(), self.memo)
            if not counts:
                return request
            logger.debug("%s: redacted the request to provider %r: %s", MODULE_ID, provider, counts)
            return type(request).model_validate(redacted)
        except Exception as err:
            problem = type(err).__name__  # its message may quote the request: not shown
            if self.fail_closed:
                raise RedactionFailedError(
                    f"{MODULE_ID}: could not redact the request to provider {provider!r} "
                    f"({problem}); not sent because fail_closed is set"
                ) from err
            logger.warning(
                "%s: could not redact the request to provider %r (%s); sent as it is",
                MODULE_ID,
                provider,
                problem,
            )
            return request

    def release(self) -> None:
        """Remove the wrappers this guard put on providers."""
        for provider in self._wrapped:
            current = getattr(provider, "complete", None)
            if getattr(current, _WRAPPED, None) is not None:
                try:
                    delattr(provider, "complete")
                except Exception:  # a provider that refuses: leave it guarded
                    logger.debug("%s: could not unwrap a provider", MODULE_ID)
        self._wrapped.clear()

    def _mounted(self, mount_point: str) -> Any:
        get = getattr(self.coordinator, "get", None)
        if not callable(get):
            return None
        try:
            return get(mount_point)
        except Exception:  # a kernel without that mount point
            return None
