"""A vouch is for one request object while it is in flight, and for nothing else."""

from __future__ import annotations

from amplifier_hooks_util import owned_models


class Request:
    def __init__(self, messages: list[object]) -> None:
        self.messages = messages

    def __eq__(self, other: object) -> bool:  # equal requests are still not the same one
        return isinstance(other, Request) and other.messages == self.messages

    __hash__ = None  # type: ignore[assignment]


def test_a_vouch_answers_for_that_very_request_until_it_is_withdrawn() -> None:
    request, twin = Request(["a", "b"]), Request(["a", "b"])
    assert owned_models.vouched(request) == 0
    owned_models.vouch(request, 2)
    assert owned_models.vouched(request) == 2
    assert owned_models.vouched(twin) == 0  # equal, not the same object
    owned_models.withdraw(twin)  # withdrawing another request leaves this one
    assert owned_models.vouched(request) == 2
    owned_models.withdraw(request)
    assert owned_models.vouched(request) == 0
    owned_models.withdraw(request)  # again: nothing happens


def test_a_vouch_for_no_model_is_not_kept() -> None:
    request = Request([])
    owned_models.vouch(request, 0)
    assert owned_models.vouched(request) == 0
    assert id(request) not in owned_models._VOUCHED
