"""amplifier_hooks_provider_base.tool_choice: every form of ``ChatRequest.tool_choice`` read as
one choice, checked against the tools offered; a provider that cannot write a choice refuses the
request instead of sending it without."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from amplifier_hooks_provider_base import HttpProvider, HttpProviderConfig, ToolChoice
from amplifier_hooks_provider_base.http import HttpError
from amplifier_hooks_provider_base.provider import Answer, HostKernel
from amplifier_hooks_provider_base.tool_choice import read_tool_choice

OFFERED = ["read_file", "bash"]


def _read(value: object, offered: list[str] = OFFERED) -> ToolChoice | None:
    return read_tool_choice(value, provider="p", model="m", offered=offered)


@pytest.mark.parametrize(
    ("value", "choice"),
    [
        (None, None),
        ("auto", None),
        ({"type": "auto"}, None),
        ("required", ToolChoice("required")),
        ("any", ToolChoice("required")),
        ({"type": "any"}, ToolChoice("required")),
        ({"type": "required"}, ToolChoice("required")),
        ("none", ToolChoice("none")),
        ({"type": "none"}, ToolChoice("none")),
        ({"name": "bash"}, ToolChoice("tool", "bash")),
        ({"type": "tool", "name": "bash"}, ToolChoice("tool", "bash")),
        ({"type": "function", "function": {"name": "bash"}}, ToolChoice("tool", "bash")),
        ({"type": "function", "name": "bash"}, ToolChoice("tool", "bash")),
    ],
)
def test_every_form_reads_as_one_choice(value: object, choice: ToolChoice | None) -> None:
    assert _read(value) == choice


def test_none_without_tools_sends_nothing() -> None:
    assert _read("none", offered=[]) is None


@pytest.mark.parametrize(
    ("value", "offered", "message"),
    [
        ("always", OFFERED, "tool_choice 'always' is not one of"),
        (3, OFFERED, "tool_choice 3 is not one of"),
        ({"type": "any", "name": "bash"}, OFFERED, "is not one of"),
        ({"name": ""}, OFFERED, "is not one of"),
        ({"type": "tool", "name": "sh"}, OFFERED, r"names the tool 'sh'.*offered: read_file, bash"),
        ({"name": "bash"}, [], r"names the tool 'bash'.*tools offered: none"),
        ("required", [], "asks for a tool call, but the request offers no tools"),
    ],
)
def test_a_choice_that_cannot_be_met_is_a_request_error(
    value: object, offered: list[str], message: str
) -> None:
    with pytest.raises(HttpError, match=message) as caught:
        _read(value, offered)
    assert caught.value.kind == "request"
    assert caught.value.provider == "p"
    assert str(caught.value).startswith("p m: ")


class _Plain(HttpProvider):
    """A provider that does not write ``tool_choice``."""

    endpoint = "/v1/plain"
    display_name = "Plain"

    def auth_headers(self) -> dict[str, str]:
        return {}

    def request_body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        model: str,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        return {"model": model}

    def read_answer(self, body: dict[str, Any], model: str) -> Answer:
        return Answer()


def test_a_provider_that_cannot_write_a_choice_refuses_the_request() -> None:
    kernel = HostKernel(
        llm_errors=ModuleType("llm_errors"),  # not reached: no call is made
        provider_info=dict,
        model_info=dict,
        chat_response=dict,
    )
    config = HttpProviderConfig(model="plain-1", name="plain", base_url="http://127.0.0.1:9")
    provider = _Plain(config, kernel=kernel)
    with pytest.raises(HttpError, match=r"plain plain-1: this provider cannot send tool_choice"):
        provider.apply_tool_choice({}, ToolChoice("tool", "bash"))
