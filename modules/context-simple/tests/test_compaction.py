"""What compaction keeps: whole exchanges, tool calls with their results, system messages,
the latest prompt with its context; and the note that counts what went."""

from __future__ import annotations

import random
from typing import Any

from amplifier_module_context_simple import NOTE_SOURCE, plan_compaction, tokens_for_chars
from amplifier_module_context_simple.estimate import total_chars

from .conftest import RigFactory, assistant, exchange, system, tool, user

Message = dict[str, Any]


def _notes(messages: list[Message]) -> list[Message]:
    return [m for m in messages if (m.get("metadata") or {}).get("source") == NOTE_SOURCE]


def _without_notes(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m not in _notes(messages)]


async def _fill(context: Any, messages: list[Message]) -> None:
    for message in messages:
        await context.add_message(message)


async def test_the_oldest_exchanges_go_until_the_rest_fits_the_target(rig: RigFactory) -> None:
    r = await rig(max_tokens=2_000, target_usage=0.5)
    exchanges = [exchange(n) for n in range(8)]
    await _fill(r.context, [system("rules"), *[m for e in exchanges for m in e]])
    assert r.context.estimated_tokens > 2_000

    sent = await r.context.get_messages_for_request()

    assert sent == await r.context.get_messages()
    assert sent[0] == system("rules")
    (note,) = _notes(sent)
    assert sent[1] is note
    kept = sent[2:]
    whole = len(kept) // 4
    assert kept == [m for e in exchanges[-whole:] for m in e]  # a suffix of whole exchanges
    assert r.context.estimated_tokens <= 1_000
    one_more = total_chars([*sent, *exchanges[-whole - 1]])
    assert tokens_for_chars(one_more) > 1_000  # the oldest cut that fits was taken
    assert note["metadata"]["removed"] == 4 * (8 - whole)
    assert (
        note["content"]
        == f"[{4 * (8 - whole)} earlier messages were removed to fit the context budget]"
    )


async def test_under_the_budget_nothing_changes(rig: RigFactory) -> None:
    r = await rig(max_tokens=100_000)
    conversation = [system("rules"), *exchange(1), *exchange(2)]
    await _fill(r.context, conversation)
    assert await r.context.get_messages_for_request() == conversation
    assert r.events.names == []
    assert r.context.compactions == 0


async def test_the_threshold_starts_compaction_before_the_budget_is_reached(
    rig: RigFactory,
) -> None:
    r = await rig(max_tokens=2_000, compact_threshold=0.8, target_usage=0.4)
    await _fill(r.context, [m for n in range(5) for m in exchange(n)])  # about 85 %
    assert 1_600 < r.context.estimated_tokens <= 2_000
    await r.context.get_messages_for_request()
    assert r.context.compactions == 1
    assert r.context.estimated_tokens <= 800


async def test_a_cut_never_separates_a_tool_call_from_its_result(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000, target_usage=0.1)
    pending = [
        user("start the build"),
        assistant("building", ("b1", "bash"), ("b2", "bash")),
        user("meanwhile: what is 2+2?"),  # a prompt arriving before the results
        tool("b1", "x" * 2_000),
        tool("b2", "y" * 2_000),
        assistant("4, and the build passed"),
    ]
    latest = exchange(9, 100)
    await _fill(r.context, [*pending, *latest])

    sent = await r.context.get_messages_for_request()

    assert _without_notes(sent) == latest  # the cut is at the next exchange, not mid-pair


async def test_an_unsplittable_conversation_is_left_alone(rig: RigFactory) -> None:
    r = await rig(max_tokens=500)
    conversation = [
        user("start"),
        assistant("calling", ("c1", "bash")),
        user("another prompt while the call runs " + "p" * 3_000),
        tool("c1", "done"),
    ]
    await _fill(r.context, conversation)
    assert await r.context.get_messages_for_request() == conversation
    assert r.events.names == []
    assert r.context.compactions == 0


async def test_hook_and_mention_messages_travel_with_their_prompt(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_500, target_usage=0.5)
    old = [
        system("status: old", source="hook"),
        user("Contents of @a.py:\n" + "a" * 2_000, source="mention"),
        *exchange(1, 1_000),
    ]
    latest = [
        user("reminder: run the tests", source="hook"),
        user("Contents of @b.py:\n" + "b" * 300, source="mention"),
        *exchange(2, 300)[:3],
        user("a hook's note after a tool result", source="hook"),  # does not start an exchange
        *exchange(2, 300)[3:],
    ]
    await _fill(r.context, [system("rules"), *old, *latest])

    sent = await r.context.get_messages_for_request()

    assert sent[0] == system("rules")
    assert sent[1] in _notes(sent)
    assert sent[2:] == latest


async def test_system_messages_survive_and_hook_injections_do_not(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000, target_usage=0.5)
    instructions = system("Instructions from AGENTS.md: be careful", source="instructions")
    await _fill(
        r.context,
        [
            system("rules"),
            *exchange(1, 800),
            instructions,
            system("injected status", source="hook"),
            *exchange(2, 800),
            *exchange(3, 100),
        ],
    )

    sent = await r.context.get_messages_for_request()

    assert sent[:2] == [system("rules"), instructions]
    assert sent[2] in _notes(sent)
    assert sent[3:] == exchange(3, 100)
    assert _notes(sent)[0]["metadata"]["removed"] == 9  # 2 exchanges and the hook's message


async def test_the_latest_exchange_stays_even_when_it_alone_is_over_budget(
    rig: RigFactory,
) -> None:
    r = await rig(max_tokens=1_000)
    huge = exchange(2, 6_000)
    await _fill(r.context, [system("rules"), *exchange(1), *huge])

    sent = await r.context.get_messages_for_request()

    assert sent == [system("rules"), _notes(sent)[0], *huge]
    assert r.context.estimated_tokens > 1_000
    assert r.context.compactions == 1
    await r.context.add_message(tool("late", "more output"))  # same exchange: nothing to cut
    await r.context.get_messages_for_request()
    assert r.context.compactions == 1
    await _fill(r.context, exchange(3, 10))  # a new prompt: the big exchange can go now
    sent = await r.context.get_messages_for_request()
    assert _without_notes(sent) == [system("rules"), *exchange(3, 10)]
    assert r.context.compactions == 2


async def test_the_note_is_replaced_and_counts_every_removal(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000, target_usage=0.5)
    await _fill(r.context, [system("rules"), *[m for n in range(5) for m in exchange(n)]])
    await r.context.get_messages_for_request()
    first = _notes(await r.context.get_messages())[0]["metadata"]["removed"]
    await _fill(r.context, [m for n in range(5, 10) for m in exchange(n)])
    sent = await r.context.get_messages_for_request()
    (note,) = _notes(sent)
    removed_now = r.events.data("context:post_compact")[1]["messages_removed"]
    assert note["metadata"]["removed"] == first + removed_now
    assert sent.index(note) == 1
    assert r.events.data("context:post_compact")[1]["removed_total"] == first + removed_now


async def test_the_note_can_be_turned_off(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000, compaction_note=False)
    await _fill(r.context, [system("rules"), *[m for n in range(5) for m in exchange(n)]])
    sent = await r.context.get_messages_for_request()
    assert _notes(sent) == []
    assert sent[0] == system("rules")
    assert sent[1:] == exchange(4)


async def test_content_blocks_and_resumed_conversations_compact_too(rig: RigFactory) -> None:
    r = await rig(max_tokens=800)
    blocks = [
        {"role": "user", "content": [{"type": "text", "text": "look " + "l" * 1_500}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t" * 1_500},
                {"type": "text", "text": "ok"},
            ],
        },
    ]
    await r.context.set_messages([*blocks, *exchange(2, 50)])
    sent = await r.context.get_messages_for_request()
    assert _without_notes(sent) == exchange(2, 50)


def _random_conversation(rng: random.Random) -> list[Message]:
    """System rules, then turns of prompts (some with injections before them), tool batches,
    late prompts arriving before results, instructions and hook notes in between."""
    messages: list[Message] = [system("rules")]
    call = 0
    for turn in range(rng.randint(1, 12)):
        if rng.random() < 0.3:
            messages.append(user("injected " + "i" * rng.randint(0, 300), source="hook"))
        if rng.random() < 0.2:
            messages.append(user("@file " + "f" * rng.randint(0, 600), source="mention"))
        messages.append(user(f"prompt {turn} " + "p" * rng.randint(0, 500)))
        for _ in range(rng.randint(0, 3)):
            ids = [f"c{call + k}" for k in range(rng.randint(1, 3))]
            call += len(ids)
            messages.append(assistant("calling", *[(i, "bash") for i in ids]))
            if rng.random() < 0.1:
                messages.append(user("a prompt while the tools run"))
            for i in ids:
                if rng.random() < 0.95:  # sometimes a call has no result (interrupted)
                    messages.append(tool(i, "r" * rng.randint(0, 900)))
            if rng.random() < 0.1:
                messages.append(system("Instructions changed", source="instructions"))
            if rng.random() < 0.2:
                messages.append(system("a hook's note", source="hook"))
        messages.append(assistant("answer " + "a" * rng.randint(0, 500)))
    return messages


def _check_invariants(before: list[Message], after: list[Message]) -> None:
    kept = _without_notes(after)
    where = {id(m): i for i, m in enumerate(before)}
    positions = [where[id(m)] for m in kept]
    assert positions == sorted(positions), "order changed"
    calls = {c["id"]: m for m in kept for c in m.get("tool_calls", [])}
    results = {m["tool_call_id"] for m in kept if m["role"] == "tool"}
    every_result = {m["tool_call_id"] for m in before if m["role"] == "tool"}
    assert results <= set(calls), "a tool result lost its call"
    assert {i for i in calls if i in every_result} <= results, "a tool call lost its result"
    for message in before:
        source = (message.get("metadata") or {}).get("source")
        if message["role"] == "system" and source != "hook":
            assert any(m is message for m in kept), "a system message was dropped"
    prompts = [
        i
        for i, m in enumerate(before)
        if m["role"] == "user" and (m.get("metadata") or {}).get("source") is None
    ]
    latest = before[prompts[-1]]
    assert any(m is latest for m in kept), "the latest prompt was dropped"
    assert all(any(m is b for m in kept) for b in before[prompts[-1] :])


def test_random_conversations_keep_every_rule() -> None:
    rng = random.Random(20_260_713)
    compacted = 0
    for _ in range(400):
        before = _random_conversation(rng)
        target = rng.randint(1, tokens_for_chars(total_chars(before)))
        plan = plan_compaction(before, target, note=rng.random() < 0.8)
        if plan is None:
            continue
        compacted += 1
        _check_invariants(before, plan.kept)
        assert len(plan.removed) + len(_without_notes(plan.kept)) == len(before)
        assert plan.removed
        assert sum(plan.removed_by_role.values()) == len(plan.removed)
        again = plan_compaction(plan.kept, target)  # a second compaction keeps them too
        if again is not None:
            _check_invariants(before, again.kept)
            assert again.removed_total == plan.removed_total + len(again.removed) or not (
                _notes(plan.kept)
            )
    assert compacted > 200
