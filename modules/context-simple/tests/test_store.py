"""The store: order, copies, replacement, refusal of malformed messages, the running estimate."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_module_context_simple import SimpleContextManager, message_chars, tokens_for_chars

from .conftest import RigFactory, assistant, exchange, system, tool, user


def _recomputed(messages: list[dict[str, Any]]) -> int:
    return tokens_for_chars(sum(message_chars(m) for m in messages))


async def test_messages_come_back_in_the_order_they_were_added(rig: RigFactory) -> None:
    context = (await rig()).context
    conversation = [system("be brief"), *exchange(1), *exchange(2)]
    for message in conversation:
        await context.add_message(message)
    assert await context.get_messages() == conversation
    assert await context.get_messages_for_request() == conversation
    assert len(context) == len(conversation)


async def test_an_empty_manager_still_counts_as_mounted(rig: RigFactory) -> None:
    # sessions check ``if not coordinator.get("context")`` before the first message
    context = (await rig()).context
    assert len(context) == 0
    assert context


async def test_returned_lists_are_copies(rig: RigFactory) -> None:
    context = (await rig()).context
    await context.add_message(user("hello"))
    listed = await context.get_messages()
    listed.append(user("not stored"))
    (await context.get_messages_for_request()).clear()
    assert await context.get_messages() == [user("hello")]


async def test_set_messages_replaces_and_clear_empties(rig: RigFactory) -> None:
    context = (await rig()).context
    await context.add_message(user("first"))
    restored = [system("rules"), *exchange(7)]
    await context.set_messages(restored)
    restored.append(user("later change to the caller's list"))
    assert await context.get_messages() == restored[:-1]
    await context.clear()
    assert await context.get_messages() == []
    assert context.estimated_tokens == 0
    await context.add_message(user("again"))
    assert await context.get_messages() == [user("again")]


async def test_the_running_estimate_matches_a_full_count(rig: RigFactory) -> None:
    context = (await rig()).context
    for message in [system("s" * 99), *exchange(1, 37), *exchange(2, 501)]:
        await context.add_message(message)
        assert context.estimated_tokens == _recomputed(await context.get_messages())
    await context.set_messages(exchange(3, 11))
    assert context.estimated_tokens == _recomputed(exchange(3, 11))
    await context.clear()
    assert context.estimated_tokens == 0


def test_the_estimate_counts_text_blocks_and_tool_calls() -> None:
    text = {"role": "user", "content": "x" * 40}
    assert message_chars(text) == 40
    blocks = assistant("y" * 40, ("c1", "bash"))
    assert message_chars(blocks) > 40 + len('"c1"')
    assert message_chars({"role": "assistant", "content": None}) == 0
    assert tokens_for_chars(0) == 0
    assert tokens_for_chars(1) == 1
    assert tokens_for_chars(8) == 2


@pytest.mark.parametrize(
    ("bad", "error", "words"),
    [
        ("hello", TypeError, "add_message: a message must be a dict, got str"),
        ({"content": "no role"}, ValueError, "add_message: a message needs a 'role' string"),
        ({"role": 3}, ValueError, "needs a 'role' string"),
    ],
)
async def test_a_malformed_message_is_refused_by_name(
    bad: object, error: type[Exception], words: str
) -> None:
    context = SimpleContextManager()
    with pytest.raises(error, match=r"^context-simple: ") as raised:
        await context.add_message(bad)  # type: ignore[arg-type]
    assert words in str(raised.value)
    assert await context.get_messages() == []


async def test_set_messages_names_the_malformed_position() -> None:
    context = SimpleContextManager()
    await context.add_message(user("kept"))
    with pytest.raises(ValueError, match=r"set_messages\(messages\[1\]\)"):
        await context.set_messages([user("ok"), {"content": "x"}])
    assert await context.get_messages() == [user("kept")]


async def test_tool_results_with_extra_keys_are_kept_as_given(rig: RigFactory) -> None:
    context = (await rig()).context
    result = {**tool("c1", "boom"), "name": "bash", "is_error": True, "metadata": {"x": 1}}
    await context.add_message(result)
    assert (await context.get_messages())[0] is result
