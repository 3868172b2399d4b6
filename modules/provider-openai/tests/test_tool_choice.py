"""The request's ``tool_choice`` reaches the chat completions API in its own form, whichever of
the forms Amplifier's ``ChatRequest`` carries it in; a choice that cannot be met fails before
sending. A loopback server checks each request as the API does; the tests read the exact JSON it
got. The request's ``top_p`` is sent too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from amplifier_hooks_testsupport.loopback import LoopbackServer, OpenAIApi, openai_completion
from amplifier_hooks_testsupport.loopback.tool_choice import (
    ProviderUnderTest,
    ToolChoiceContract,
    chat_request,
)

from amplifier_module_provider_openai import mount

PROVIDER = ProviderUnderTest(
    name="openai",
    mount=mount,
    api=lambda text: OpenAIApi([openai_completion(text)]),
    tool_names=lambda body: [t["function"]["name"] for t in body["tools"]],
)


class TestToolChoice(ToolChoiceContract):
    provider = PROVIDER


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
    body = await PROVIDER.sent(chat_request(tool_choice))
    assert body["tool_choice"] == wire
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "bash"]


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
