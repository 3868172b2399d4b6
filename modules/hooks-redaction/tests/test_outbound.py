"""The context and provider guards, on a real registry and a real ChatRequest.

The context and the provider here are the smallest that keep the protocols the guards use
(``get_messages`` / ``set_messages``; ``complete(request)``); the compat tests run the same
guards with Amplifier's own context-simple, provider-mock and loop-basic on both kernels.
"""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.message_models import ChatRequest, Message
from amplifier_module_hooks_redaction import mount
from amplifier_module_hooks_redaction.outbound import RedactionFailedError

from .support import Context, Provider

GH = "ghp_" + "Lm4Kp9Qz2Wx7Rt1Yv6Bn3Cd8Fg5Hj0As2De9T"
SLACK = "xoxb-" + "3049581726-6172839405-Qw7Er2Ty9Ui4Op1As6Df3Gh8"


class Coordinator:
    def __init__(self, context: Any, providers: dict[str, Any]) -> None:
        self.hooks = HookRegistry()
        self._mounted = {"context": context, "providers": providers}

    def get(self, mount_point: str) -> Any:
        return self._mounted[mount_point]


def request(*texts: str) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text) for text in texts])


async def test_provider_request_redacts_the_stored_messages_of_the_context() -> None:
    context = Context([{"role": "user", "content": f"my token is {GH}"}])
    coordinator = Coordinator(context, {})
    await mount(coordinator, {})
    result = await coordinator.hooks.emit("provider:request", {"provider": "mock"})
    assert context.messages == [{"role": "user", "content": "my token is [REDACTED:github_token]"}]
    assert result.user_message == "Redacted 1 secret (github_token: 1)"
    # Nothing new: the messages already seen clean are not scanned or written again.
    await coordinator.hooks.emit("provider:request", {"provider": "mock"})
    assert context.sets == 1


async def test_every_request_a_mounted_provider_receives_is_redacted() -> None:
    provider = Provider()
    coordinator = Coordinator(Context([]), {"recording": provider})
    cleanup = await mount(coordinator, {})
    await provider.complete(request("hello", f"deploy with {SLACK}"))
    sent = provider.received[-1]
    assert isinstance(sent, ChatRequest)
    assert SLACK not in sent.model_dump_json()
    assert sent.messages[1].content == "deploy with [REDACTED:slack_token]"
    clean = request("nothing here")
    await provider.complete(clean)
    assert provider.received[-1] is clean  # nothing to redact: the very request
    cleanup()
    await provider.complete(request(f"after cleanup {SLACK}"))
    assert SLACK in provider.received[-1].model_dump_json()  # the wrapper is gone


async def test_a_provider_mounted_after_the_hook_is_guarded_at_provider_request() -> None:
    providers: dict[str, Any] = {}
    coordinator = Coordinator(Context([]), providers)
    await mount(coordinator, {})
    late = Provider()
    providers["late"] = late
    await coordinator.hooks.emit("provider:request", {"provider": "late"})
    await late.complete(request(GH))
    assert GH not in late.received[-1].model_dump_json()


async def test_guards_are_off_when_configured_so() -> None:
    context = Context([{"role": "user", "content": GH}])
    provider = Provider()
    coordinator = Coordinator(context, {"recording": provider})
    await mount(coordinator, {"guard_context": False, "guard_providers": False})
    await coordinator.hooks.emit("provider:request", {"provider": "recording"})
    await provider.complete(request(GH))
    assert context.messages[0]["content"] == GH
    assert GH in provider.received[-1].model_dump_json()


async def test_a_request_that_cannot_be_redacted_is_refused_when_fail_closed() -> None:
    class Unreadable(ChatRequest):
        def model_dump(self, **kwargs: Any) -> dict[str, Any]:
            raise RuntimeError("cannot read")

    provider = Provider()
    coordinator = Coordinator(Context([]), {"recording": provider})
    await mount(coordinator, {"fail_closed": True})
    with pytest.raises(RedactionFailedError, match="provider 'recording'"):
        await provider.complete(Unreadable(messages=[Message(role="user", content=GH)]))
    assert provider.received == []
