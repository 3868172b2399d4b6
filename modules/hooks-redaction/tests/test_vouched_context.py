"""The context guard skips only stored messages the event decision just found clean.

At ``provider:request`` the context's stored messages are fetched before the event data is
decided; those that are the very objects of the data's ``messages``, in the same places, are
not looked at again once the data is found clean. Generated rounds edit a random earlier
stored message in place (a secret added to it), hand the event copies of some stored messages
instead of the stored objects, leave stored messages out of the event or add messages to it:
after every call no raw secret may remain in the context or in the data handlers returned.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.hooks import HookRegistry
from amplifier_module_hooks_redaction import mount
from amplifier_module_hooks_redaction.outbound import same_objects

from .support import Context

SECRETS = (
    "ghp_" + "Lm4Kp9Qz2Wx7Rt1Yv6Bn3Cd8Fg5Hj0As2De9T",
    "xoxb-" + "3049581726-6172839405-Qw7Er2Ty9Ui4Op1As6Df3Gh8",
    "AKIA" + "Q3EGRTMN5VXZ7B2D",
)


class Coordinator:
    def __init__(self, context: Context) -> None:
        self.hooks = HookRegistry()
        self.session_id = "s-vouched"
        self._mounted: dict[str, Any] = {"context": context, "providers": {}}

    def get(self, mount_point: str) -> Any:
        return self._mounted[mount_point]

    def get_capability(self, name: str) -> Any:
        return None


def _message(n: int, text: str) -> dict[str, Any]:
    if n % 2:
        return {
            "role": "assistant",
            "content": [{"type": "text", "text": f"step {n}"}],
            "tool_calls": [{"id": f"c{n}", "tool": "bash", "arguments": {"command": "ls"}}],
        }
    return {"role": "tool", "tool_call_id": f"c{n}", "name": "bash", "content": f"out {n} {text}"}


def _add_secret(message: dict[str, Any], how: int, secret: str) -> None:
    """An edit in place that puts ``secret`` somewhere inside ``message``."""
    content = message.get("content")
    if how == 0 and isinstance(content, list):
        content.append({"type": "text", "text": secret})
    elif how == 1 and isinstance(message.get("tool_calls"), list):
        message["tool_calls"][0]["arguments"]["command"] = f"echo {secret}"
    elif how == 2:
        message["metadata"] = {"note": [secret]}
    else:
        message["content"] = f"then {secret}"


def _holds_secret(value: Any) -> bool:
    text = json.dumps(value, default=str)
    return any(secret in text for secret in SECRETS)


round_ = st.fixed_dictionaries(
    {
        "grow": st.integers(0, 3),  # clean messages appended to the context
        "edits": st.lists(  # stored messages edited in place: which, how, what
            st.tuples(st.integers(0, 60), st.integers(0, 3), st.sampled_from(SECRETS)),
            max_size=2,
        ),
        "copied": st.lists(st.integers(0, 60), max_size=3),  # event items copied, not shared
        "copy_before_edit": st.booleans(),  # the event's copies taken before the edits
        "cut": st.integers(0, 3),  # stored messages left out at the end of the event
        "ephemeral": st.booleans(),  # a last message for this request only
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=st.lists(round_, min_size=1, max_size=6))
async def test_a_stored_message_edited_in_place_is_redacted_whatever_the_event_holds(
    rounds: list[dict[str, Any]],
) -> None:
    context = Context([_message(n, "all fine") for n in range(4)])
    coordinator = Coordinator(context)
    cleanup = await mount(coordinator, {"notify": False, "guard_providers": False})
    try:
        for step in rounds:
            stored = context.messages
            stored.extend(_message(len(stored) + n, "all fine") for n in range(step["grow"]))
            shown: list[dict[str, Any]] = list(stored)
            copies = {i % len(shown): copy.deepcopy(shown[i % len(shown)]) for i in step["copied"]}
            for index, how, secret in step["edits"]:
                _add_secret(stored[index % len(stored)], how, secret)
            if not step["copy_before_edit"]:
                copies = {i: copy.deepcopy(stored[i]) for i in copies}
            for i, copied in copies.items():
                shown[i] = copied
            shown = shown[: max(1, len(shown) - step["cut"])]
            if step["ephemeral"]:
                shown.append({"role": "system", "content": "reminder, all fine"})
            result = await coordinator.hooks.emit("provider:request", {"messages": shown})
            assert not _holds_secret(context.messages)
            assert not _holds_secret(result.data)
    finally:
        cleanup()


@settings(max_examples=200, deadline=None)
@given(
    length=st.integers(0, 12),
    other=st.integers(0, 12),
    replaced=st.sets(st.integers(0, 11)),
)
def test_same_objects_counts_only_the_very_objects_in_their_places(
    length: int, other: int, replaced: set[int]
) -> None:
    items = [{"n": n} for n in range(length)]
    vouched: list[Any] = items[:other] + [{"n": n} for n in range(len(items), other)]
    for index in replaced:
        if index < len(vouched):
            vouched[index] = dict(vouched[index])  # equal, not the same object
    expected = 0
    while expected < min(len(items), len(vouched)) and items[expected] is vouched[expected]:
        expected += 1
    assert same_objects(items, vouched) == expected
