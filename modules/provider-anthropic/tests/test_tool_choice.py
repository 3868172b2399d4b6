"""The request's ``tool_choice`` reaches the Messages API in its own form, whichever of the forms
Amplifier's ``ChatRequest`` carries it in; a choice that cannot be met fails before sending.
A loopback server checks each request as the API does; the tests read the exact JSON it got. The
request's ``top_p`` is sent too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from amplifier_hooks_testsupport.loopback import AnthropicApi, LoopbackServer, anthropic_message
from amplifier_hooks_testsupport.loopback.tool_choice import (
    ProviderUnderTest,
    ToolChoiceContract,
    chat_request,
)

from amplifier_module_provider_anthropic import mount

PROVIDER = ProviderUnderTest(
    name="anthropic",
    mount=mount,
    api=lambda text: AnthropicApi([anthropic_message(text)]),
    tool_names=lambda body: [t["name"] for t in body["tools"]],
)


class TestToolChoice(ToolChoiceContract):
    provider = PROVIDER


@pytest.mark.parametrize(
    ("tool_choice", "wire"),
    [
        ("required", {"type": "any"}),
        ("any", {"type": "any"}),
        ({"type": "any"}, {"type": "any"}),
        ("none", {"type": "none"}),
        ({"type": "none"}, {"type": "none"}),
        ({"name": "bash"}, {"type": "tool", "name": "bash"}),
        ({"type": "tool", "name": "bash"}, {"type": "tool", "name": "bash"}),
        ({"type": "function", "function": {"name": "bash"}}, {"type": "tool", "name": "bash"}),
    ],
)
async def test_the_choice_is_sent_in_the_messages_apis_form(
    tool_choice: Any, wire: dict[str, Any]
) -> None:
    body = await PROVIDER.sent(chat_request(tool_choice))
    assert body["tool_choice"] == wire
    assert [t["name"] for t in body["tools"]] == ["read_file", "bash"]


@pytest.mark.parametrize(
    ("tool_choice", "refusal"),
    [
        ("any", "Input should be a valid dictionary"),
        ({"type": "required"}, "does not match any of the expected tags"),
        ({"type": "tool", "name": "write_file"}, "Tool 'write_file' not found"),
        ({"type": "any", "name": "bash"}, "tool_choice.any.name: Extra inputs"),
    ],
)
async def test_the_loopback_api_refuses_what_the_messages_api_refuses(
    tool_choice: Any, refusal: str
) -> None:
    """What the tests above read was checked: the server refuses a wrong ``tool_choice``."""
    body = {
        "model": "claude-test",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
        "tool_choice": tool_choice,
    }
    api = AnthropicApi([anthropic_message("never")])
    headers = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}
    async with LoopbackServer(api) as server, httpx.AsyncClient() as client:
        answer = await client.post(f"{server.url}/v1/messages", json=body, headers=headers)
    assert answer.status_code == 400
    assert refusal in answer.json()["error"]["message"]
    assert api.bodies == []
