"""Messages remembered clean are looked at again when they change: no secret gets through.

A conversation grows and its messages are edited in place between model calls (a content
string replaced, a block appended to a content list, a tool call's argument rewritten, a
message replaced by another). Generated sequences of such edits run through hooks-redaction
and hooks-logging on one registry, with the context and provider guards: after every call, no
raw secret may be in what the provider received, in the event data handlers returned, in the
context's stored messages or in the log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.hooks import HookRegistry
from amplifier_core.message_models import ChatRequest, Message, TextBlock
from amplifier_hooks_redact.memo import CleanMemo
from amplifier_module_hooks_redaction import mount

from .support import Context, Provider

mount_logging = pytest.importorskip("amplifier_module_hooks_logging").mount

SECRETS = (
    "ghp_" + "Lm4Kp9Qz2Wx7Rt1Yv6Bn3Cd8Fg5Hj0As2De9T",
    "xoxb-" + "3049581726-6172839405-Qw7Er2Ty9Ui4Op1As6Df3Gh8",
    "AKIA" + "Q3EGRTMN5VXZ7B2D",
)


class Coordinator:
    def __init__(self, context: Context, provider: Provider) -> None:
        self.hooks = HookRegistry()
        self.session_id = "s-remembered"
        self._mounted: dict[str, Any] = {"context": context, "providers": {"p": provider}}

    def get(self, mount_point: str) -> Any:
        return self._mounted[mount_point]

    def get_capability(self, name: str) -> Any:
        return None


def _message(n: int, text: str) -> dict[str, Any]:
    kind = n % 3
    if kind == 0:
        return {"role": "user", "content": f"note {n}: {text}"}
    if kind == 1:
        return {
            "role": "assistant",
            "content": [{"type": "text", "text": f"step {n}"}],
            "tool_calls": [{"id": f"c{n}", "tool": "bash", "arguments": {"command": "ls"}}],
        }
    return {"role": "tool", "tool_call_id": f"c{n}", "name": "bash", "content": f"out {n} {text}"}


def _edit(messages: list[dict[str, Any]], op: int, index: int, text: str) -> None:
    """One edit in place of an existing message (or a new message when there is none)."""
    if not messages or op == 0:
        messages.append(_message(len(messages), text))
        return
    message = messages[index % len(messages)]
    content = message.get("content")
    if op == 1:
        message["content"] = f"rewritten: {text}"
    elif op == 2 and isinstance(content, list):
        content.append({"type": "text", "text": text})
    elif op == 2:
        message["content"] = f"{content} then {text}"
    elif op == 3 and isinstance(message.get("tool_calls"), list):
        message["tool_calls"][0]["arguments"]["command"] = f"echo {text}"
    elif op == 3 and index % 2:
        message["metadata"] = {"note": [text]}
    elif op == 3:
        message["tags"] = ["seen", text]  # an extra key: a list of strings
    else:
        messages[index % len(messages)] = _message(index, text)


def _holds_secret(value: Any) -> bool:
    text = json.dumps(value, default=str)
    return any(secret in text for secret in SECRETS)


edits = st.lists(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.integers(0, 40),
            st.one_of(st.just("all fine"), st.sampled_from(SECRETS)),
        ),
        max_size=4,
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=edits)
async def test_no_secret_passes_a_remembered_message_changed_in_place(
    rounds: list[list[tuple[int, int, str]]], tmp_path_factory: Any
) -> None:
    log = Path(tmp_path_factory.mktemp("log")) / "events.jsonl"
    context = Context()
    provider = Provider()
    coordinator = Coordinator(context, provider)
    cleanup = await mount(coordinator, {"notify": False})
    cleanup_log = await mount_logging(coordinator, {"path": str(log)})
    conversation: list[dict[str, Any]] = [_message(n, "all fine") for n in range(6)]
    try:
        for changes in rounds:
            for op, index, text in changes:
                _edit(conversation, op, index, text)
            context.messages = conversation  # the context hands out these very dicts
            result = await coordinator.hooks.emit("provider:request", {"messages": conversation})
            assert not _holds_secret(result.data)
            assert not _holds_secret(context.messages)
            sent = ChatRequest(messages=[Message(**m) for m in conversation])
            await provider.complete(sent)  # the guarded complete
            assert not _holds_secret(provider.received[-1].model_dump())
            conversation = context.messages  # redacted where it held a secret
    finally:
        cleanup()
        await cleanup_log()
    assert not any(secret in log.read_text() for secret in SECRETS)


@settings(max_examples=50, deadline=None)
@given(
    data=st.recursive(
        st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none()),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(max_size=4), children, max_size=4),
        ),
        max_leaves=20,
    ),
    replacement=st.one_of(st.text(max_size=8), st.integers(), st.lists(st.integers(), max_size=2)),
)
def test_a_remembered_container_is_known_only_while_it_holds_the_same(
    data: Any, replacement: Any
) -> None:
    item = {"payload": data, "box": [data]}
    memo = CleanMemo()
    memo.remember(item)
    memo.remember(item)  # copied the second time
    assert memo.known(item)
    item["box"].append(replacement)  # changed in place, deep inside
    assert not memo.known(item)
    item["box"].pop()
    assert memo.known(item)  # back to what it held
    item["payload"] = replacement
    assert memo.known(item) == (replacement == data)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=edits)
async def test_no_secret_passes_a_request_built_anew_from_edited_messages(
    rounds: list[list[tuple[int, int, str]]],
) -> None:
    """As Amplifier's loop-basic does: every request's models are built anew from the stored
    dicts, which are edited in place between requests. The provider never gets a secret."""
    context = Context()
    provider = Provider()
    coordinator = Coordinator(context, provider)
    cleanup = await mount(coordinator, {"notify": False, "guard_context": False})
    await coordinator.hooks.emit("provider:request", {})  # the guard wraps the provider
    conversation: list[dict[str, Any]] = [_message(n, "all fine") for n in range(6)]
    try:
        for changes in rounds:
            for op, index, text in changes:
                _edit(conversation, op, index, text)
            await provider.complete(ChatRequest(messages=[Message(**m) for m in conversation]))
            assert not _holds_secret(provider.received[-1].model_dump())
    finally:
        cleanup()


def _edit_model(models: list[Message], op: int, index: int, text: str) -> None:
    """One edit in place of a message model kept from one request to the next (as
    loop-session keeps them), or a new or replaced model."""
    if not models or op == 0:
        models.append(Message(**_message(len(models), text)))
        return
    model = models[index % len(models)]
    extra = model.__pydantic_extra__ or {}
    if op == 1:
        model.content = f"rewritten: {text}"
    elif op == 2 and isinstance(model.content, list):
        model.content.append(TextBlock(text=text))
    elif op == 2:
        model.content = f"{model.content} then {text}"
    elif op == 3 and isinstance(extra.get("tool_calls"), list):
        extra["tool_calls"][0]["arguments"]["command"] = f"echo {text}"
    elif op == 3:
        model.metadata = {"note": [text]}
    else:
        models[index % len(models)] = Message(**_message(index, text))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=edits, reminder=st.sampled_from(["all fine", *SECRETS]))
async def test_no_secret_passes_a_request_of_kept_models_edited_in_place(
    rounds: list[list[tuple[int, int, str]]], reminder: str
) -> None:
    """The same message models from one request to the next, edited in place, replaced and
    appended to, and a last message for one request only: the provider never gets a secret,
    though the leading messages of each request are recognised in one comparison."""
    context = Context()
    provider = Provider()
    coordinator = Coordinator(context, provider)
    cleanup = await mount(coordinator, {"notify": False, "guard_context": False})
    await coordinator.hooks.emit("provider:request", {})  # the guard wraps the provider
    models = [Message(**_message(n, "all fine")) for n in range(6)]
    try:
        for number, changes in enumerate(rounds):
            for op, index, text in changes:
                _edit_model(models, op, index, text)
            last = Message(role="system", content=f"reminder {number}: {reminder}")
            await provider.complete(ChatRequest(messages=[*models, last]))
            assert not _holds_secret(provider.received[-1].model_dump())
            for op, index, text in changes:  # the same edits again, after the request
                _edit_model(models, op, index + 1, text)
            await provider.complete(ChatRequest(messages=models))
            assert not _holds_secret(provider.received[-1].model_dump())
    finally:
        cleanup()


@pytest.mark.parametrize("place", ["messages", "request.messages"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=edits, reminder=st.sampled_from(["all fine", *SECRETS]))
async def test_no_secret_passes_a_conversation_carried_by_event_data(
    place: str,
    rounds: list[list[tuple[int, int, str]]],
    reminder: str,
    tmp_path_factory: Any,
) -> None:
    """A conversation carried by every event, at the top of the data or one dict down (as
    ``llm:request`` carries its body), the same dicts each time, edited in place, with a last
    message for one event only: neither the data handlers return nor the log holds a secret."""
    log = Path(tmp_path_factory.mktemp("log")) / "events.jsonl"
    context = Context()
    provider = Provider()
    coordinator = Coordinator(context, provider)
    config = {"notify": False, "guard_context": False, "events": ["llm:request"]}
    cleanup = await mount(coordinator, config)
    cleanup_log = await mount_logging(coordinator, {"path": str(log)})
    conversation: list[dict[str, Any]] = [_message(n, "all fine") for n in range(6)]
    try:
        for number, changes in enumerate(rounds):
            for _ in range(2):  # met again unchanged: recognised
                for op, index, text in changes:
                    _edit(conversation, op, index, text)
                last = {"role": "system", "content": f"reminder {number}: {reminder}"}
                carried = [*conversation, last]
                data: dict[str, Any] = (
                    {"messages": carried}
                    if place == "messages"
                    else {"request": {"messages": carried, "stream": False}}
                )
                result = await coordinator.hooks.emit("llm:request", data)
                assert not _holds_secret(result.data)
                changes = [(op, index + 1, text) for op, index, text in changes]
    finally:
        cleanup()
        await cleanup_log()
    assert not any(secret in log.read_text() for secret in SECRETS)
