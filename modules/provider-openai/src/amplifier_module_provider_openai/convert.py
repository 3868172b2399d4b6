"""The chat completions wire format: a request body from a ``ChatRequest``, and back.

- ``system``, ``developer`` and ``user`` messages keep their role, in place;
- ``assistant`` messages carry ``tool_calls: [{id, type: "function", function: {name,
  arguments}}]`` with the arguments as a JSON string, and ``content: null`` when they have no
  text;
- ``tool`` results become ``{role: "tool", tool_call_id, content}``; the wire format has no
  error flag, so a failed result's content is prefixed with ``Error: ``;
- tools become ``[{type: "function", function: {name, description, parameters}}]``.

A request's ``tool_choice`` (read by the provider base) is ``"required"``, ``"none"`` or
``{"type": "function", "function": {"name": N}}``.

The answer's ``choices[0].message`` gives the text and tool calls (``arguments`` decoded;
text that is not a JSON object is an error naming the tool call); ``usage.prompt_tokens`` /
``completion_tokens`` map onto input/output tokens; ``finish_reason`` is kept.
"""

from __future__ import annotations

import json
from typing import Any

from amplifier_hooks_provider_base import ToolChoice
from amplifier_hooks_provider_base.provider import (
    Answer,
    answer_error,
    call_fields,
    message_key,
    short_repr,
    text_of,
    unknown_role,
)

__all__ = ["read_answer", "request_body", "tool_choice"]

NAME = "openai"


def _message(message: dict[str, Any], index: int, model: str) -> dict[str, Any]:
    role = message.get("role")
    text = text_of(message.get("content"))
    if role in ("system", "developer", "user"):
        return {"role": role, "content": text}
    if role == "assistant":
        converted: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = []
        for number, call in enumerate(message.get("tool_calls") or []):
            where = f"messages[{index}].tool_calls[{number}]"
            call_id, name, arguments = call_fields(NAME, model, call, where)
            calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": name,
                        "arguments": json.dumps(arguments, ensure_ascii=False),
                    },
                }
            )
        if calls:
            converted["tool_calls"] = calls
        elif not text:
            converted["content"] = ""
        return converted
    if role == "tool":
        call_id = message_key(NAME, model, message, "tool_call_id", f"messages[{index}]")
        if message.get("is_error"):
            text = f"Error: {text}"
        return {"role": "tool", "tool_call_id": call_id, "content": text}
    raise unknown_role(NAME, model, index, role)


def request_body(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    model: str,
    max_tokens: int,
    max_tokens_param: str,
    temperature: float | None,
) -> dict[str, Any]:
    """The chat completions request body (``messages`` and ``tools`` as dicts)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [_message(m, i, model) for i, m in enumerate(messages)],
        max_tokens_param: max_tokens,
    }
    if temperature is not None:
        body["temperature"] = temperature
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description") or "",
                    "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
                },
            }
            for tool in tools
        ]
    return body


def tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """The chat completions ``tool_choice`` for ``choice``."""
    if choice.mode == "tool":
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode


def _tool_call(raw: Any, index: int, model: str) -> dict[str, Any]:
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise answer_error(
            NAME, model, f"tool_calls[{index}] has no function name: {short_repr(raw)}"
        )
    name = function["name"]
    call_id = raw.get("id") or f"call_{index + 1}"
    arguments = function.get("arguments")
    if arguments is None or arguments == "":
        decoded: Any = {}
    elif isinstance(arguments, dict):
        decoded = arguments
    else:
        try:
            decoded = json.loads(arguments)
        except (TypeError, ValueError) as err:
            raise answer_error(
                NAME,
                model,
                f"tool call {name!r} ({call_id}) has arguments that are not valid JSON "
                f"({err}): {short_repr(arguments)}",
            ) from err
    if not isinstance(decoded, dict):
        raise answer_error(
            NAME,
            model,
            f"tool call {name!r} ({call_id}) has arguments that are not a JSON object: "
            f"{short_repr(arguments)}",
        )
    return {"id": str(call_id), "name": name, "arguments": decoded}


def read_answer(body: dict[str, Any], model: str) -> Answer:
    """The text, tool calls, usage and finish reason of a chat completions answer."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise answer_error(NAME, model, f"answer has no choices: {short_repr(body)}")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise answer_error(NAME, model, f"choices[0] has no message: {short_repr(choices[0])}")
    answer = Answer()
    content = message.get("content")
    if isinstance(content, str) and content:
        answer.content.append({"type": "text", "text": content})
    answer.tool_calls = [
        _tool_call(raw, i, model) for i, raw in enumerate(message.get("tool_calls") or [])
    ]
    raw_usage = body.get("usage")
    if isinstance(raw_usage, dict):
        given = int(raw_usage.get("prompt_tokens") or 0)
        made = int(raw_usage.get("completion_tokens") or 0)
        answer.usage = {"input_tokens": given, "output_tokens": made, "total_tokens": given + made}
        details = raw_usage.get("prompt_tokens_details")
        if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
            answer.usage["cache_read_tokens"] = details["cached_tokens"]
    finish = choices[0].get("finish_reason")
    answer.finish_reason = (
        "tool_calls" if answer.tool_calls else (str(finish) if finish else "stop")
    )
    return answer
