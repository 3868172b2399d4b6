"""The Messages API wire format: a request body from a ``ChatRequest``, and back.

- every ``system`` (and ``developer``) message, wherever it stands, is joined (blank line
  between) into the top-level ``system`` field;
- ``user`` text becomes a user turn; ``assistant`` text and ``tool_calls`` become one assistant
  turn with a ``text`` block and ``tool_use`` blocks ``{type, id, name, input}``;
- ``tool`` results become ``tool_result`` blocks ``{type, tool_use_id, content, is_error}`` in
  a user turn; consecutive tool results, and user text that follows them, are merged into one
  user turn with the ``tool_result`` blocks first, as the API requires;
- empty text (which the API rejects) is left out, and so is an assistant message with neither
  text nor tool calls.

A request's ``tool_choice`` (read by the provider base) is the API's ``tool_choice`` object:
``{"type": "any"}`` (a tool call is required), ``{"type": "none"}``, ``{"type": "tool",
"name": N}``.

The answer's ``text`` blocks become text blocks, ``thinking`` blocks thinking blocks,
``tool_use`` blocks tool calls; ``usage`` maps onto input/output/total tokens (and the cache
counters); ``stop_reason`` is kept as the finish reason.
"""

from __future__ import annotations

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

NAME = "anthropic"


def _convert_messages(
    messages: list[dict[str, Any]], model: str
) -> tuple[str, list[dict[str, Any]]]:
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for index, message in enumerate(messages):
        role = message.get("role")
        if role in ("system", "developer"):
            if text := text_of(message.get("content")):
                system.append(text)
        elif role == "user":
            if text := text_of(message.get("content")):
                add("user", [{"type": "text", "text": text}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if text := text_of(message.get("content")):
                blocks.append({"type": "text", "text": text})
            for number, call in enumerate(message.get("tool_calls") or []):
                where = f"messages[{index}].tool_calls[{number}]"
                call_id, name, arguments = call_fields(NAME, model, call, where)
                blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
            add("assistant", blocks)
        elif role == "tool":
            call_id = message_key(NAME, model, message, "tool_call_id", f"messages[{index}]")
            result = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": text_of(message.get("content")),
                "is_error": bool(message.get("is_error", False)),
            }
            add("user", [result])
        else:
            raise unknown_role(NAME, model, index, role)
    for turn in turns:
        if turn["role"] == "user":  # tool_result blocks must lead the user turn that answers
            turn["content"].sort(key=lambda block: block.get("type") != "tool_result")
        if all(block.get("type") == "text" for block in turn["content"]):
            turn["content"] = "\n\n".join(block["text"] for block in turn["content"])
    return "\n\n".join(system), turns


def request_body(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    model: str,
    max_tokens: int,
    temperature: float | None,
) -> dict[str, Any]:
    """The Messages API request body (``messages`` as dicts, ``tools`` as ``ToolSpec`` dicts)."""
    system, turns = _convert_messages(messages, model)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": turns}
    if system:
        body["system"] = system
    if temperature is not None:
        body["temperature"] = temperature
    if tools:
        body["tools"] = [
            {
                "name": tool["name"],
                **({"description": tool["description"]} if tool.get("description") else {}),
                "input_schema": tool.get("parameters") or {"type": "object", "properties": {}},
            }
            for tool in tools
        ]
    return body


def tool_choice(choice: ToolChoice) -> dict[str, Any]:
    """The Messages API's ``tool_choice`` object for ``choice``."""
    if choice.mode == "tool":
        return {"type": "tool", "name": choice.name}
    return {"type": {"required": "any"}.get(choice.mode, choice.mode)}


def read_answer(body: dict[str, Any], model: str) -> Answer:
    """The content blocks, tool calls, usage and stop reason of a Messages API answer."""
    content = body.get("content")
    if not isinstance(content, list):
        raise answer_error(NAME, model, f"answer has no `content` list: {short_repr(body)}")
    answer = Answer()
    for index, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            answer.content.append({"type": "text", "text": str(block.get("text", ""))})
        elif kind == "thinking":
            answer.content.append(
                {
                    "type": "thinking",
                    "thinking": str(block.get("thinking", "")),
                    "signature": block.get("signature"),
                }
            )
        elif kind == "tool_use":
            tool_input = block.get("input", {})
            if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                raise answer_error(
                    NAME,
                    model,
                    f"content[{index}] tool_use block lacks id or name: {short_repr(block)}",
                )
            if not isinstance(tool_input, dict):
                raise answer_error(
                    NAME,
                    model,
                    f"tool_use {block['name']!r} ({block['id']}) input is not an object: "
                    f"{short_repr(tool_input)}",
                )
            answer.tool_calls.append(
                {"id": block["id"], "name": block["name"], "arguments": tool_input}
            )
    raw = body.get("usage")
    if isinstance(raw, dict):
        given = int(raw.get("input_tokens") or 0)
        made = int(raw.get("output_tokens") or 0)
        answer.usage = {"input_tokens": given, "output_tokens": made, "total_tokens": given + made}
        for theirs, ours in (
            ("cache_read_input_tokens", "cache_read_tokens"),
            ("cache_creation_input_tokens", "cache_write_tokens"),
        ):
            if isinstance(raw.get(theirs), int):
                answer.usage[ours] = raw[theirs]
    stop = body.get("stop_reason")
    answer.finish_reason = str(stop) if stop else None
    return answer
