"""Message models an orchestrator built for a request and handed to no handler.

A guard in front of a provider (hooks-redaction's) must know that every message model of a
request still holds what it held when the guard last decided it clean. A model object can be
edited in place by whatever holds it, so the guard compares each model with a copy of itself
(its class, fields and extra fields): at 800 messages that comparison is about a tenth of a
tool call's cost, proportional to the conversation, on every request.

An orchestrator that builds the request's models itself can say more. When every model it
reuses from one request to the next was validated from a private copy of its message dict (so
it shares no object with the dict the context manager hands out, nor with the data any event
carries), is kept only by the orchestrator, and is reused only while the dict still equals that
copy (one comparison the orchestrator makes anyway, to know which models to rebuild), then no
handler can have edited it: handlers never receive it. Such an orchestrator *vouches* for the
leading models of the request it is about to send (:func:`vouch`); the guard asks
(:func:`vouched`) and compares the vouched models by identity with those it last decided
clean, instead of comparing their contents.

What a vouch does not cover: the provider and anything wrapping its ``complete`` receive the
request and may edit its models in place; such an edit is theirs, after every guard of the
request that carried it. A vouch is for one request object, kept here only while that request
is in flight: the orchestrator withdraws it (:func:`withdraw`) once the provider has answered
or failed.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["vouch", "vouched", "withdraw"]

_VOUCHED: Final[dict[int, tuple[Any, int]]] = {}
"""Requests in flight by identity: the request itself (kept, so its id is not reused) and how
many of its leading message models its builder vouches for."""


def vouch(request: Any, count: int) -> None:
    """The builder of ``request`` vouches for the first ``count`` models of its ``messages``:
    each was validated from a private copy of its message dict, was handed to no handler, and,
    when reused from an earlier request, its dict was found equal to that copy as this request
    was built. Withdraw it with :func:`withdraw` once the request has been answered."""
    if count > 0:
        _VOUCHED[id(request)] = (request, count)


def vouched(request: Any) -> int:
    """How many leading message models of ``request`` its builder vouches for (0: none, or
    not this very object)."""
    entry = _VOUCHED.get(id(request))
    if entry is None or entry[0] is not request:
        return 0
    return entry[1]


def withdraw(request: Any) -> None:
    """Forget the vouch for ``request`` (nothing happens when there is none)."""
    entry = _VOUCHED.get(id(request))
    if entry is not None and entry[0] is request:
        del _VOUCHED[id(request)]
