"""A loopback Anthropic Messages API: checks each request as the real API does.

Valid requests get the next queued :class:`Reply`; invalid ones get the API's error shape
``{"type": "error", "error": {"type", "message"}}`` with the status the real API uses, and
consume nothing. Checks: ``POST /v1/messages``; ``x-api-key`` (401 when missing or wrong),
``anthropic-version`` and a JSON ``content-type``; ``model``, ``max_tokens`` and a non-empty
``messages`` list; only known top-level keys; roles ``user`` / ``assistant`` starting with
``user`` and alternating (the converter must merge turns itself); no empty text; ``tool_use``
only from the assistant; each ``tool_result`` answers a ``tool_use`` of the turn before and
comes first in its turn; each ``tool_use`` is answered in the next turn; tools have a name
and an object ``input_schema``; ``tool_choice`` an object of type ``auto``, ``any``, ``none`` or
``tool`` (with the ``name`` of a tool of the request) and an optional boolean
``disable_parallel_tool_use``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .api import BodyWords, CheckedApi, Invalid
from .server import Reply, Request

__all__ = ["AnthropicApi", "anthropic_error", "anthropic_message"]

_TOP_LEVEL = {
    "model",
    "max_tokens",
    "messages",
    "system",
    "tools",
    "tool_choice",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "stream",
    "metadata",
    "thinking",
}
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


def anthropic_error(
    status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    """An error answer in the Messages API's shape."""
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": message}},
        headers={"request-id": "req_loopback", **(headers or {})},
    )


def anthropic_message(
    text: str = "",
    tool_uses: Iterable[tuple[str, str, dict[str, Any]]] = (),
    *,
    stop_reason: str | None = None,
    usage: tuple[int, int] = (10, 5),
    model: str = "claude-loopback",
) -> Reply:
    """A successful Messages API answer with a text block and ``(id, name, input)`` tool uses."""
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    for tool_id, name, tool_input in tool_uses:
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return Reply(
        body={
            "id": "msg_loopback",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage[0],
                "output_tokens": usage[1],
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        },
        headers={"request-id": "req_loopback"},
    )


class AnthropicApi(CheckedApi):
    """The Messages API handler; ``api_key`` is the ``x-api-key`` every request must carry."""

    top_level = _TOP_LEVEL
    words = BodyWords(
        content_type="content-type: must be application/json",
        not_json="There was an issue with your request body: {err}",
        not_object="request body must be a JSON object",
        unknown_key="{key}: Extra inputs are not permitted",
        no_model="model: Field required",
    )

    def _refusal(self, err: Invalid) -> Reply:
        return anthropic_error(err.status, err.code or "invalid_request_error", str(err))

    def _nothing_queued(self) -> Reply:
        return anthropic_error(500, "api_error", "loopback: no reply queued")

    def _check_request(self, request: Request) -> None:
        if request.method != "POST" or request.path != "/v1/messages":
            raise Invalid(f"Not found: {request.method} {request.path}", 404, "not_found_error")
        key = request.headers.get("x-api-key")
        if key is None:
            raise Invalid("x-api-key header is required", 401, "authentication_error")
        if key != self.api_key:
            raise Invalid("invalid x-api-key", 401, "authentication_error")
        if "anthropic-version" not in request.headers:
            raise Invalid("anthropic-version: header is required")

    @staticmethod
    def _check_fields(body: dict[str, Any]) -> None:
        max_tokens = body.get("max_tokens")
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise Invalid("max_tokens: Field required (an integer >= 1)")
        system = body.get("system")
        if system is not None and not isinstance(system, str | list):
            raise Invalid("system: Input should be a valid string or list of text blocks")

    @staticmethod
    def _check_tool_choice(body: dict[str, Any]) -> None:
        if "tool_choice" not in body:
            return
        choice = body["tool_choice"]
        if not isinstance(choice, dict):
            raise Invalid("tool_choice: Input should be a valid dictionary")
        kind = choice.get("type")
        allowed = {"type", "disable_parallel_tool_use"} | ({"name"} if kind == "tool" else set())
        if kind not in ("auto", "any", "none", "tool"):
            raise Invalid(
                "tool_choice: Input tag does not match any of the expected tags: 'auto', "
                "'any', 'tool', 'none'"
            )
        for key in choice:
            if key not in allowed:
                raise Invalid(f"tool_choice.{kind}.{key}: Extra inputs are not permitted")
        if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
            raise Invalid(
                f"tool_choice.{kind}.disable_parallel_tool_use: Input should be a valid boolean"
            )
        if kind == "tool":
            name = choice.get("name")
            if not isinstance(name, str):
                raise Invalid("tool_choice.tool.name: Field required")
            if name not in {t.get("name") for t in body.get("tools") or []}:
                raise Invalid(f"Tool '{name}' not found in provided tools")

    @staticmethod
    def _check_tools(tools: Any) -> None:
        if tools is None:
            return
        if not isinstance(tools, list):
            raise Invalid("tools: Input should be a valid list")
        names: set[str] = set()
        for index, tool in enumerate(tools):
            where = f"tools.{index}"
            if not isinstance(tool, dict):
                raise Invalid(f"{where}: Input should be an object")
            for key in tool:
                if key not in {"name", "description", "input_schema", "cache_control", "type"}:
                    raise Invalid(f"{where}.{key}: Extra inputs are not permitted")
            name = tool.get("name")
            if not isinstance(name, str) or not _TOOL_NAME.match(name):
                raise Invalid(f"{where}.name: String should match pattern '^[a-zA-Z0-9_-]+$'")
            if name in names:
                raise Invalid(f"tools: Tool names must be unique ({name})")
            names.add(name)
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                raise Invalid(f"{where}.input_schema.type: Input should be 'object'")

    @staticmethod
    def _check_messages(messages: Any) -> None:
        if not isinstance(messages, list) or not messages:
            raise Invalid("messages: at least one message is required")
        previous_tool_uses: set[str] = set()
        for index, message in enumerate(messages):
            where = f"messages.{index}"
            role = _role_of(messages, index, where)
            tool_uses, answered = _read_blocks(
                _blocks_of(message, where), where, role, previous_tool_uses
            )
            if role == "user":
                missing = previous_tool_uses - answered
                if missing:
                    raise Invalid(
                        f"messages.{index - 1}: `tool_use` ids were found without `tool_result` "
                        f"blocks immediately after: {', '.join(sorted(missing))}. Each `tool_use` "
                        "block must have a corresponding `tool_result` block in the next message."
                    )
            previous_tool_uses = tool_uses


def _role_of(messages: list[Any], index: int, where: str) -> str:
    """The role of ``messages[index]``, checked: an object, ``user`` or ``assistant``, the
    first one ``user``, each other than the one before."""
    message = messages[index]
    if not isinstance(message, dict):
        raise Invalid(f"{where}: Input should be an object")
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise Invalid(f"{where}.role: Input should be 'user' or 'assistant'")
    if index == 0 and role != "user":
        raise Invalid('messages: first message must use the "user" role')
    if index > 0 and messages[index - 1].get("role") == role:
        raise Invalid(f'messages: roles must alternate between "user" and "assistant" ({where})')
    return str(role)


def _blocks_of(message: dict[str, Any], where: str) -> list[Any]:
    """A message's content as blocks (a string is one text block); empty content refused."""
    content = message.get("content")
    if isinstance(content, str) and content:
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and content:
        return content
    raise Invalid(f"{where}: all messages must have non-empty content")


def _read_blocks(
    blocks: list[Any], where: str, role: str, previous_tool_uses: set[str]
) -> tuple[set[str], set[str]]:
    """The ids of the ``tool_use`` blocks of one message, and those its ``tool_result`` blocks
    answer (each one of ``previous_tool_uses``), every block checked."""
    tool_uses: set[str] = set()
    answered: set[str] = set()
    seen_other = False
    for number, block in enumerate(blocks):
        spot = f"{where}.content.{number}"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            if not isinstance(block.get("text"), str) or not block["text"]:
                raise Invalid(f"{spot}.text: text content blocks must be non-empty")
            seen_other = True
        elif kind == "tool_use":
            tool_uses.add(_tool_use_id(block, spot, role))
            seen_other = True
        elif kind == "tool_result":
            answered.add(_answered_id(block, spot, role, previous_tool_uses, seen_other))
        else:
            raise Invalid(f"{spot}.type: unknown content block type {kind!r}")
    return tool_uses, answered


def _tool_use_id(block: dict[str, Any], spot: str, role: str) -> str:
    """A ``tool_use`` block's id, the block checked."""
    if role != "assistant":
        raise Invalid(f"{spot}: tool_use blocks are only allowed in assistant messages")
    if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
        raise Invalid(f"{spot}: tool_use needs `id` and `name`")
    if not isinstance(block.get("input"), dict):
        raise Invalid(f"{spot}.input: Input should be a valid dictionary")
    return str(block["id"])


def _answered_id(
    block: dict[str, Any], spot: str, role: str, previous_tool_uses: set[str], seen_other: bool
) -> str:
    """The id a ``tool_result`` block answers, the block checked (``seen_other``: a block of
    another type came before it in its message)."""
    if role != "user":
        raise Invalid(f"{spot}: tool_result blocks are only allowed in user messages")
    tool_use_id = block.get("tool_use_id")
    if tool_use_id not in previous_tool_uses:
        raise Invalid(
            f"{spot}: unexpected `tool_use_id` found in `tool_result` blocks: "
            f"{tool_use_id}. Each `tool_result` block must have a corresponding "
            "`tool_use` block in the previous message."
        )
    if seen_other:
        raise Invalid(f"{spot}: tool_result blocks must come first in the message content")
    if not isinstance(block.get("content", ""), str | list):
        raise Invalid(f"{spot}.content: Input should be a valid string or list")
    if not isinstance(block.get("is_error", False), bool):
        raise Invalid(f"{spot}.is_error: Input should be a valid boolean")
    return str(tool_use_id)
