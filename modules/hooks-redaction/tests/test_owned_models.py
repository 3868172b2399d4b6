"""The provider guard takes a request's builder at its word for models no handler was given.

loop-session validates each message model from a private copy of its dict, reuses it only
while the dict equals that copy, and vouches for those models to the guard
(:mod:`amplifier_hooks_util.owned_models`); the guard then takes the vouched models that are
the very objects of the last request it decided clean without comparing their contents.
Generated edits of the context's dicts in place, before the request is built and after (as a
handler at ``llm:request`` may make them, holding the context's dicts), must still never let a
secret reach the provider.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from amplifier_hooks_util import owned_models
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from amplifier_core.hooks import HookRegistry
from amplifier_core.message_models import ChatRequest, Message
from amplifier_module_hooks_redaction import mount

from .support import Context, Provider

MessageCache = pytest.importorskip("amplifier_module_loop_session.conversation").MessageCache

SECRET = "ghp_" + "Lm4Kp9Qz2Wx7Rt1Yv6Bn3Cd8Fg5Hj0As2De9T"


class Coordinator:
    def __init__(self, provider: Provider, context: Context | None = None) -> None:
        self.hooks = HookRegistry()
        self.session_id = "s-owned"
        self._mounted: dict[str, Any] = {"providers": {"p": provider}, "context": context}

    def get(self, mount_point: str) -> Any:
        return self._mounted.get(mount_point)

    def get_capability(self, name: str) -> Any:
        return None


def _message(n: int) -> dict[str, Any]:
    if n % 2:
        return {
            "role": "assistant",
            "content": [{"type": "text", "text": f"step {n}"}],
            "tool_calls": [{"id": f"c{n}", "tool": "bash", "arguments": {"command": "ls"}}],
            "metadata": {"seen": {"by": ["loop"]}},
        }
    return {"role": "tool", "tool_call_id": f"c{n - 1}", "content": f"out {n}"}


def _edit(messages: list[dict[str, Any]], op: int, index: int, text: str) -> None:
    """One edit in place of a stored dict, deep inside where it can, or a new message."""
    if not messages or op == 0:
        messages.append(_message(len(messages)))
        return
    message = messages[index % len(messages)]
    if op == 1:
        message["content"] = f"rewritten: {text}"
    elif op == 2 and "tool_calls" in message:
        message["tool_calls"][0]["arguments"]["command"] = f"echo {text}"
    elif op == 3 and "metadata" in message:
        message["metadata"]["seen"]["by"].append(text)
    else:
        message["tags"] = [text]


edits = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 30), st.sampled_from(["fine", SECRET])),
    max_size=3,
)


async def _send(cache: Any, provider: Provider, request: ChatRequest) -> None:
    owned_models.vouch(request, cache.private)
    try:
        await provider.complete(request)
    finally:
        owned_models.withdraw(request)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=st.lists(st.tuples(edits, edits), min_size=1, max_size=8))
@example(rounds=[([], []), ([], [(2, 1, SECRET)])])  # deep in a reused model's tool call
@example(rounds=[([], []), ([], [(3, 3, SECRET)])])  # deep in a reused model's metadata
async def test_no_secret_passes_a_request_of_vouched_models(
    rounds: list[tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]],
) -> None:
    """As loop-session runs a round: ``provider:request`` (the context guard redacts the
    stored dicts), the request built by the cache, edits by a handler holding the context's
    dicts, then the vouched request sent."""
    provider = Provider()
    context = Context([_message(n) for n in range(5)])
    coordinator = Coordinator(provider, context)
    cleanup = await mount(coordinator, {"notify": False})
    cache = MessageCache(Message.model_validate)
    try:
        for before, after in rounds:
            for op, index, text in before:  # between requests
                _edit(context.messages, op, index, text)
            await coordinator.hooks.emit("provider:request", {"messages": context.messages})
            request = ChatRequest(messages=cache.messages(list(context.messages)))
            assert owned_models.vouched(request) == 0
            for op, index, text in after:  # after the request was built, before it is sent
                _edit(context.messages, op, index, text)
            await _send(cache, provider, request)
            assert owned_models.vouched(request) == 0  # withdrawn once answered
            assert SECRET not in json.dumps(provider.received[-1].model_dump())
    finally:
        cleanup()


async def test_vouched_models_decided_clean_are_taken_by_identity() -> None:
    """The guard does not look into a vouched model it decided clean: an edit in place of one
    (which a builder that vouches never lets happen) goes unseen; the same edit in a request
    nobody vouches for is redacted, and so is a new vouched model."""
    provider = Provider()
    coordinator = Coordinator(provider)
    cleanup = await mount(coordinator, {"notify": False, "guard_context": False})
    await coordinator.hooks.emit("provider:request", {})
    models = [Message(role="user", content="hello"), Message(role="assistant", content="hi")]
    try:
        first = ChatRequest(messages=list(models))
        owned_models.vouch(first, 2)
        await provider.complete(first)
        owned_models.withdraw(first)
        models[0].content = f"now {SECRET}"
        vouched = ChatRequest(messages=list(models))
        owned_models.vouch(vouched, 2)
        await provider.complete(vouched)
        owned_models.withdraw(vouched)
        assert provider.received[-1] is vouched  # taken by identity, not compared
        await provider.complete(ChatRequest(messages=list(models)))  # nobody vouches
        assert SECRET not in json.dumps(provider.received[-1].model_dump())
        models[0].content = "hello"
        fresh = ChatRequest(messages=[*models, Message(role="user", content=SECRET)])
        owned_models.vouch(fresh, 3)
        await provider.complete(fresh)
        owned_models.withdraw(fresh)
        assert SECRET not in json.dumps(provider.received[-1].model_dump())
    finally:
        cleanup()


async def test_after_a_redacted_request_the_vouched_models_are_looked_at_again() -> None:
    provider = Provider()
    coordinator = Coordinator(provider)
    cleanup = await mount(coordinator, {"notify": False, "guard_context": False})
    await coordinator.hooks.emit("provider:request", {})
    models = [Message(role="user", content=f"key {SECRET}")]
    try:
        for _ in range(2):  # the builder keeps its model holding the secret: both redacted
            request = ChatRequest(messages=list(models))
            owned_models.vouch(request, 1)
            await provider.complete(request)
            owned_models.withdraw(request)
            assert provider.received[-1] is not request
            assert SECRET not in json.dumps(provider.received[-1].model_dump())
    finally:
        cleanup()
