"""A loopback OpenAI chat completions API: checks each request as the real API does.

Valid requests get the next queued :class:`Reply`; invalid ones get the API's error shape
``{"error": {"message", "type", "param", "code"}}`` and consume nothing. Checks:
``POST /v1/chat/completions``; ``Authorization: Bearer <key>`` (401 when missing or wrong;
no check when the API is built with ``api_key=None``, like a local server); a JSON
``content-type``; ``model`` and a non-empty ``messages`` list; only known top-level keys;
known roles; assistant ``tool_calls`` with ``type: function`` and string ``arguments``;
every ``tool`` message answering a ``tool_calls`` id of the assistant message before it, and
every such id answered; tools of ``type: function`` with a name and object parameters;
``max_tokens`` / ``max_completion_tokens`` an integer >= 1; ``tool_choice`` ``"none"``,
``"auto"``, ``"required"`` or ``{"type": "function", "function": {"name"}}`` naming a tool of
the request, and only with ``tools``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .api import BodyWords, CheckedApi, Invalid
from .server import Reply, Request

__all__ = ["OpenAIApi", "openai_completion", "openai_error"]

_TOP_LEVEL = {
    "model",
    "messages",
    "tools",
    "tool_choice",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "stop",
    "stream",
    "n",
    "seed",
    "user",
    "response_format",
    "parallel_tool_calls",
}
_ROLES = {"system", "developer", "user", "assistant", "tool"}


def openai_error(
    status: int,
    message: str,
    kind: str = "invalid_request_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An error answer in the chat completions API's shape."""
    return Reply(
        status=status,
        body={"error": {"message": message, "type": kind, "param": None, "code": code}},
        headers={"x-request-id": "req_loopback", **(headers or {})},
    )


def openai_completion(
    text: str | None = None,
    tool_calls: Iterable[tuple[str, str, str]] = (),
    *,
    finish_reason: str | None = None,
    usage: tuple[int, int] = (12, 7),
    model: str = "gpt-loopback",
) -> Reply:
    """A successful answer; ``tool_calls`` are ``(id, name, arguments-as-JSON-text)``."""
    calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        for call_id, name, arguments in tool_calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    if finish_reason is None:
        finish_reason = "tool_calls" if calls else "stop"
    return Reply(
        body={
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": usage[0] + usage[1],
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        },
        headers={"x-request-id": "req_loopback"},
    )


class OpenAIApi(CheckedApi):
    """The chat completions handler; ``api_key=None`` checks no ``Authorization`` header."""

    top_level = _TOP_LEVEL
    words = BodyWords(
        content_type="Invalid content type: expected application/json",
        not_json="We could not parse the JSON body of your request. ({err})",
        not_object="The request body must be a JSON object.",
        unknown_key="Unrecognized request argument supplied: {key}",
        no_model="you must provide a model parameter",
    )

    def _refusal(self, err: Invalid) -> Reply:
        return openai_error(err.status, str(err), code=err.code)

    def _nothing_queued(self) -> Reply:
        return openai_error(500, "loopback: no reply queued", "server_error")

    def _check_request(self, request: Request) -> None:
        if request.method != "POST" or request.path != "/v1/chat/completions":
            raise Invalid(f"Invalid URL ({request.method} {request.path})", 404)
        if self.api_key is not None:
            auth = request.headers.get("authorization")
            if auth is None:
                raise Invalid(
                    "You didn't provide an API key. You need to provide your API key in an "
                    "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                    401,
                )
            if auth != f"Bearer {self.api_key}":
                raise Invalid("Incorrect API key provided.", 401, "invalid_api_key")

    @staticmethod
    def _check_fields(body: dict[str, Any]) -> None:
        for key in ("max_tokens", "max_completion_tokens"):
            if key in body and (not isinstance(body[key], int) or body[key] < 1):
                raise Invalid(f"Invalid '{key}': expected an integer >= 1.")

    @staticmethod
    def _check_tool_choice(body: dict[str, Any]) -> None:
        if "tool_choice" not in body:
            return
        choice = body["tool_choice"]
        tools = body.get("tools") or []
        if not tools:
            raise Invalid(
                "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' "
                "are specified."
            )
        if isinstance(choice, str):
            if choice not in ("none", "auto", "required"):
                raise Invalid(
                    f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and "
                    "'required'."
                )
            return
        function = choice.get("function") if isinstance(choice, dict) else None
        if (
            not isinstance(choice, dict)
            or choice.get("type") != "function"
            or not isinstance(function, dict)
            or not isinstance(function.get("name"), str)
        ):
            raise Invalid("Invalid value for 'tool_choice': expected a string or a function.")
        names = {t["function"]["name"] for t in tools}
        if function["name"] not in names:
            raise Invalid(
                f"Invalid value for 'tool_choice': function '{function['name']}' is not in 'tools'."
            )

    @staticmethod
    def _check_tools(tools: Any) -> None:
        if tools is None:
            return
        if not isinstance(tools, list):
            raise Invalid("Invalid type for 'tools': expected an array.")
        for index, tool in enumerate(tools):
            where = f"tools[{index}]"
            if not isinstance(tool, dict) or tool.get("type") != "function":
                raise Invalid(f"Invalid value for '{where}.type': expected 'function'.")
            function = tool.get("function")
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise Invalid(f"Missing required parameter: '{where}.function.name'.")
            parameters = function.get("parameters", {"type": "object"})
            if not isinstance(parameters, dict) or parameters.get("type") != "object":
                raise Invalid(
                    f"Invalid schema for function '{function['name']}': must be an object."
                )

    @staticmethod
    def _check_messages(messages: Any) -> None:
        if not isinstance(messages, list) or not messages:
            raise Invalid(
                "Invalid 'messages': empty array. Expected an array with minimum length 1."
            )
        pending: set[str] = set()
        for index, message in enumerate(messages):
            where = f"messages[{index}]"
            if not isinstance(message, dict) or message.get("role") not in _ROLES:
                raise Invalid(f"Invalid value for '{where}.role'.")
            role = message["role"]
            if pending and role != "tool":
                raise _unanswered(pending)
            content = message.get("content")
            if role == "tool":
                call_id = message.get("tool_call_id")
                if call_id not in pending:
                    raise Invalid(
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'."
                    )
                if not isinstance(content, str | list):
                    raise Invalid(f"Invalid type for '{where}.content': expected a string.")
                pending.discard(call_id)
            elif role == "assistant":
                pending.update(_assistant_calls(message, where))
            elif not isinstance(content, str | list):
                raise Invalid(f"Invalid type for '{where}.content': expected a string.")
        if pending:
            raise _unanswered(pending)


def _assistant_calls(message: dict[str, Any], where: str) -> list[str]:
    """The ids of an assistant message's tool calls, checked as the API checks the message
    (``where``: its place, ``messages[N]``)."""
    content = message.get("content")
    calls = message.get("tool_calls")
    if content is None and not calls:
        raise Invalid(f"Missing required parameter: '{where}.content'.")
    if content is not None and not isinstance(content, str | list):
        raise Invalid(f"Invalid type for '{where}.content'.")
    ids: list[str] = []
    for number, call in enumerate(calls or []):
        spot = f"{where}.tool_calls[{number}]"
        if not isinstance(call, dict) or not isinstance(call.get("id"), str):
            raise Invalid(f"Missing required parameter: '{spot}.id'.")
        if call.get("type") != "function":
            raise Invalid(f"Invalid value for '{spot}.type': expected 'function'.")
        function = call.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise Invalid(f"Missing required parameter: '{spot}.function.name'.")
        if not isinstance(function.get("arguments"), str):
            raise Invalid(
                f"Invalid type for '{spot}.function.arguments': expected a string, "
                f"but got {type(function.get('arguments')).__name__} instead."
            )
        ids.append(call["id"])
    return ids


def _unanswered(pending: set[str]) -> Invalid:
    """The error for tool calls of an assistant message that no tool message answered."""
    return Invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages "
        "responding to each 'tool_call_id'. The following tool_call_ids did not have "
        f"response messages: {', '.join(sorted(pending))}"
    )
