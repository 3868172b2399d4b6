"""A provider round reads only what is new in the conversation: validated messages are reused
while their dicts are unchanged, and the tool-call check resumes where it stopped."""

from __future__ import annotations

from typing import Any

from amplifier_hooks_util.deep import tree_copy
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_module_loop_session.conversation import CheckedPrefix, DumpCache, MessageCache


class Counting:
    def __init__(self) -> None:
        self.validated: list[dict[str, Any]] = []

    def __call__(self, message: dict[str, Any]) -> tuple[str, Any]:
        self.validated.append(message)
        return (message["role"], message.get("content"))


def _turn(n: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"q{n}"}, {"role": "assistant", "content": f"a{n}"}]


def test_each_message_is_validated_once_while_the_conversation_grows() -> None:
    validate = Counting()
    cache = MessageCache(validate)
    conversation = _turn(1)
    for n in range(2, 50):
        cache.messages(list(conversation))
        conversation = [*conversation, *_turn(n)]
    assert len(validate.validated) == 96  # turns 1..48, each message once
    validate.validated.clear()
    first = cache.messages(conversation)
    again = cache.messages(list(conversation))
    assert again == first == [(m["role"], m["content"]) for m in conversation]
    assert validate.validated == conversation[-2:]  # only the turn added last was new


def test_a_message_whose_content_was_replaced_is_validated_again() -> None:
    validate = Counting()
    cache = MessageCache(validate)
    conversation = [*_turn(1), {"role": "tool", "tool_call_id": "c1", "content": "out"}]
    cache.messages(conversation)
    conversation[-1]["content"] = "out (and what a hook appended)"
    validate.validated.clear()
    assert cache.messages(conversation)[-1] == ("tool", "out (and what a hook appended)")
    assert validate.validated == [conversation[-1]]


def test_a_replaced_conversation_is_read_again_and_keeps_what_it_still_holds() -> None:
    validate = Counting()
    cache = MessageCache(validate)
    old = [*_turn(1), *_turn(2), *_turn(3)]
    cache.messages(old)
    compacted = [{"role": "system", "content": "summary"}, *old[4:]]
    validate.validated.clear()
    expected = [("system", "summary"), *[(m["role"], m["content"]) for m in old[4:]]]
    assert cache.messages(compacted) == expected
    assert validate.validated == [compacted[0]]  # the kept messages were not validated again


def test_the_checked_prefix_holds_only_while_its_ends_are_the_same_objects() -> None:
    prefix = CheckedPrefix()
    conversation = [*_turn(1), *_turn(2)]
    assert prefix.start(conversation) == 0
    prefix.checked(conversation)
    assert prefix.start([*conversation, *_turn(3)]) == 4
    assert prefix.start([dict(conversation[0]), *conversation[1:]]) == 0
    assert prefix.start(conversation[:3]) == 0


def _assistant(n: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": f"a{n}"}],
        "tool_calls": [{"id": f"c{n}", "tool": "bash", "arguments": {"n": n}}],
    }


@settings(max_examples=200, deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 30), st.text(max_size=6)),
        min_size=1,
        max_size=12,
    )
)
def test_a_message_changed_in_place_anywhere_is_never_served_stale(
    edits: list[tuple[int, int, str]],
) -> None:
    """Whatever is edited in place (a content string, a block appended to a content list, a
    nested argument, a key added), the next round returns what the dicts hold now."""
    cache = MessageCache(lambda message: tree_copy(message))
    conversation = [_assistant(n) if n % 2 else _turn(n)[0] for n in range(8)]
    cache.messages(conversation)
    for op, index, text in edits:
        message = conversation[index % len(conversation)]
        if op == 0:
            message["content"] = text
        elif op == 1 and isinstance(message["content"], list):
            message["content"].append({"type": "text", "text": text})
        elif op == 2 and "tool_calls" in message:
            message["tool_calls"][0]["arguments"]["n"] = text
        else:
            message["metadata"] = {"note": text}
        assert cache.messages(list(conversation)) == conversation


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 20), st.text(max_size=5)),
        min_size=1,
        max_size=12,
    )
)
def test_a_dump_edited_in_place_or_a_model_replaced_is_made_again(
    steps: list[tuple[int, int, str]],
) -> None:
    """Whatever a handler does to the dumps it was handed, or however the models change, the
    next request's dumps are what dumping each model gives now."""
    cache = DumpCache(lambda model: tree_copy(model))
    models: list[Any] = [{"role": "user", "content": f"m{n}", "meta": {"n": [n]}} for n in range(5)]
    handed = cache.dumps(models)
    for op, index, text in steps:
        if op == 0:
            models = [*models, {"role": "tool", "content": text, "meta": {"n": []}}]
        elif op == 1 and handed:
            handed[index % len(handed)]["meta"]["n"].append(text)  # a handler's edit in place
        elif op == 2:
            kept = models[: index % len(models)]
            models = [*kept, {"role": "user", "content": text, "meta": {"n": []}}]
        else:
            models = list(models)
        handed = cache.dumps(models)
        assert handed == [tree_copy(model) for model in models]


_values = st.recursive(
    st.one_of(st.text(max_size=6), st.integers(), st.booleans(), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=4), children, max_size=3),
    ),
    max_leaves=12,
)


def _containers(value: Any) -> list[Any]:
    """Every list and dict inside ``value`` (``value`` too when it is one)."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


@settings(max_examples=60, deadline=None)
@given(extra=_values, metadata=st.dictionaries(st.text(max_size=4), _values, max_size=3))
def test_a_model_shares_no_object_with_the_dict_it_was_validated_from(
    extra: Any, metadata: dict[str, Any]
) -> None:
    """Validation keeps an extra field's lists and dicts as the very objects it is given; the
    cache validates a private copy, so editing every container of the dict in place (as a
    handler holding the context's dicts may) leaves the model as it was: what the loop vouches
    for to a provider guard."""
    from amplifier_core.message_models import Message

    message: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "text", "text": "a"}],
        "tool_calls": [{"id": "c1", "tool": "bash", "arguments": {"v": extra}}],
        "metadata": metadata,
        "tags": [extra],
    }
    cache = MessageCache(Message.model_validate)
    [model] = cache.messages([message])
    assert cache.private == 1
    before = model.model_dump()
    for container in _containers(message):
        if isinstance(container, dict):
            container["edited"] = "in place"
        else:
            container.append("in place")
    assert model.model_dump() == before


def test_the_private_run_ends_at_the_first_message_that_is_not_plain_data() -> None:
    validate = Counting()
    cache = MessageCache(validate)
    marker = object()
    conversation = [*_turn(1), {"role": "user", "content": "x", "marker": marker}, *_turn(2)]
    cache.messages(conversation)
    assert cache.private == 2  # validated from copies up to the one that cannot be copied
    assert validate.validated[2] is conversation[2]  # that one is validated as it is
    assert validate.validated[0] is not conversation[0]  # the others from private copies
    assert validate.validated[0] == conversation[0]
    cache.messages([*conversation[:2], *_turn(3)])
    assert cache.private == 4
