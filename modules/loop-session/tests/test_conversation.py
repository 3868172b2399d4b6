"""A provider round reads only what is new in the conversation: validated messages are reused
while their dicts are unchanged, and the tool-call check resumes where it stopped."""

from __future__ import annotations

from typing import Any

from amplifier_module_loop_session.conversation import CheckedPrefix, MessageCache


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
