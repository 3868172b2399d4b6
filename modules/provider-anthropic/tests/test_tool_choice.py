"""The request's ``tool_choice`` reaches the Messages API in its own form, whichever of the forms
Amplifier's ``ChatRequest`` carries it in; a choice that cannot be met fails before sending.
A loopback server checks each request as the API does; the tests read the exact JSON it got. The
request's ``top_p`` is sent too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from amplifier_hooks_testsupport.loopback import AnthropicApi, LoopbackServer, anthropic_message

from amplifier_core import llm_errors
from amplifier_core.message_models import ChatRequest, Message, ToolSpec
from amplifier_core.testing import create_test_coordinator
from amplifier_module_provider_anthropic import mount

CONFIG: dict[str, Any] = {"api_key": "test-key", "max_retries": 0}
TOOLS = [
    ToolSpec(name=name, description=f"The {name} tool.", parameters={"type": "object"})
    for name in ("read_file", "bash")
]


def _request(tool_choice: Any, tools: list[ToolSpec] | None = TOOLS) -> ChatRequest:
    return ChatRequest(
        messages=[Message(role="user", content="Look at README.md")],
        tools=tools,
        tool_choice=tool_choice,
    )


async def _sent(request: ChatRequest) -> dict[str, Any]:
    """The body the API received for ``request``."""
    api = AnthropicApi([anthropic_message("ok")])
    async with LoopbackServer(api) as server:
        coordinator = create_test_coordinator()
        await mount(coordinator, {**CONFIG, "base_url": server.url})
        await coordinator.get("providers")["anthropic"].complete(request)
    assert api.rejected == []
    [body] = api.bodies
    return body


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
    body = await _sent(_request(tool_choice))
    assert body["tool_choice"] == wire
    assert [t["name"] for t in body["tools"]] == ["read_file", "bash"]


@pytest.mark.parametrize("tool_choice", [None, "auto", {"type": "auto"}])
async def test_auto_sends_no_choice(tool_choice: Any) -> None:
    body = await _sent(_request(tool_choice))
    assert "tool_choice" not in body
    assert len(body["tools"]) == 2


async def test_none_without_tools_sends_neither() -> None:
    body = await _sent(_request("none", tools=None))
    assert "tool_choice" not in body
    assert "tools" not in body


@pytest.mark.parametrize(
    ("tool_choice", "tools", "message"),
    [
        ({"name": "write_file"}, TOOLS, "names the tool 'write_file'.*offered: read_file, bash"),
        ("required", None, "asks for a tool call, but the request offers no tools"),
        ("always", TOOLS, "tool_choice 'always' is not one of"),
        ({"type": "tool"}, TOOLS, "is not one of"),
    ],
)
async def test_a_choice_that_cannot_be_met_fails_before_sending(
    tool_choice: Any, tools: list[ToolSpec] | None, message: str
) -> None:
    api = AnthropicApi([anthropic_message("never")])
    async with LoopbackServer(api) as server:
        coordinator = create_test_coordinator()
        await mount(coordinator, {**CONFIG, "base_url": server.url})
        provider = coordinator.get("providers")["anthropic"]
        with pytest.raises(llm_errors.InvalidRequestError, match=message) as caught:
            await provider.complete(_request(tool_choice, tools))
    assert caught.value.provider == "anthropic"
    assert server.requests == []


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


async def test_the_requests_top_p_is_sent() -> None:
    """Gemini's ``BeforeModel`` ``config.topP`` arrives as ``ChatRequest.top_p``."""
    request = ChatRequest(
        messages=[Message(role="user", content="hi")], top_p=0.25, temperature=0.5
    )
    body = await _sent(request)
    assert (body["top_p"], body["temperature"]) == (0.25, 0.5)
    assert "top_p" not in await _sent(_request(None))
