"""The request's ``tool_choice`` reaches the chat completions API in its own form, whichever of
the forms Amplifier's ``ChatRequest`` carries it in; a choice that cannot be met fails before
sending. A loopback server checks each request as the API does; the tests read the exact JSON it
got. The request's ``top_p`` is sent too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from amplifier_hooks_testsupport.loopback import LoopbackServer, OpenAIApi, openai_completion

from amplifier_core import llm_errors
from amplifier_core.message_models import ChatRequest, Message, ToolSpec
from amplifier_core.testing import create_test_coordinator
from amplifier_module_provider_openai import mount

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
    api = OpenAIApi([openai_completion("ok")])
    async with LoopbackServer(api) as server:
        coordinator = create_test_coordinator()
        await mount(coordinator, {**CONFIG, "base_url": server.url})
        await coordinator.get("providers")["openai"].complete(request)
    assert api.rejected == []
    [body] = api.bodies
    return body


@pytest.mark.parametrize(
    ("tool_choice", "wire"),
    [
        ("required", "required"),
        ("any", "required"),
        ({"type": "any"}, "required"),
        ("none", "none"),
        ({"type": "none"}, "none"),
        ({"name": "bash"}, {"type": "function", "function": {"name": "bash"}}),
        ({"type": "tool", "name": "bash"}, {"type": "function", "function": {"name": "bash"}}),
        (
            {"type": "function", "function": {"name": "bash"}},
            {"type": "function", "function": {"name": "bash"}},
        ),
    ],
)
async def test_the_choice_is_sent_in_the_messages_apis_form(
    tool_choice: Any, wire: str | dict[str, Any]
) -> None:
    body = await _sent(_request(tool_choice))
    assert body["tool_choice"] == wire
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "bash"]


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
    api = OpenAIApi([openai_completion("never")])
    async with LoopbackServer(api) as server:
        coordinator = create_test_coordinator()
        await mount(coordinator, {**CONFIG, "base_url": server.url})
        provider = coordinator.get("providers")["openai"]
        with pytest.raises(llm_errors.InvalidRequestError, match=message) as caught:
            await provider.complete(_request(tool_choice, tools))
    assert caught.value.provider == "openai"
    assert server.requests == []


@pytest.mark.parametrize(
    ("tools", "tool_choice", "refusal"),
    [
        ([], "required", "only allowed when 'tools' are specified"),
        (None, "none", "only allowed when 'tools' are specified"),
        (["bash"], "any", "Supported values are: 'none', 'auto', and 'required'"),
        (["bash"], {"type": "tool", "name": "bash"}, "expected a string or a function"),
        (["bash"], {"type": "function", "function": {"name": "sh"}}, "function 'sh' is not in"),
    ],
)
async def test_the_loopback_api_refuses_what_the_chat_completions_api_refuses(
    tools: list[str] | None, tool_choice: Any, refusal: str
) -> None:
    """What the tests above read was checked: the server refuses a wrong ``tool_choice``."""
    body: dict[str, Any] = {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "hi"}],
        "tool_choice": tool_choice,
    }
    if tools is not None:
        body["tools"] = [{"type": "function", "function": {"name": name}} for name in tools]
    api = OpenAIApi([openai_completion("never")])
    headers = {"authorization": "Bearer test-key"}
    async with LoopbackServer(api) as server, httpx.AsyncClient() as client:
        answer = await client.post(f"{server.url}/v1/chat/completions", json=body, headers=headers)
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
