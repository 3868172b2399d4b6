"""Gemini CLI's model hooks changing the model call: ``BeforeModel``'s ``llm_request`` and
``llm_response``, ``AfterModel``'s ``llm_response``, ``BeforeToolSelection``'s
``toolConfig`` (Gemini CLI ``docs/hooks/reference.md``, "Model hooks" and "Stable Model API").

The hook's answer becomes ``replaced_data`` on its decision: keys of the ``provider:request``
or ``provider:response`` event data that the orchestrator reads (loop-session,
``model_hooks.py``):

* ``BeforeModel`` ``hookSpecificOutput.llm_request`` overrides parts of the request: ``model``
  -> ``model``; ``config`` ``temperature`` / ``topP`` / ``maxOutputTokens`` -> ``temperature``
  / ``top_p`` / ``max_output_tokens`` (other config keys are ignored with a log line);
  ``messages`` -> ``messages``: when the hook returns as many messages as it was shown (the
  text messages), each replaces the text of its message in place, so tool calls and results
  stay; otherwise the hook's messages are the whole conversation sent (roles ``model`` ->
  ``assistant``), and a warning says how many tool messages that dropped; ``toolConfig`` as
  below.
* ``BeforeModel`` ``hookSpecificOutput.llm_response``: a synthetic response (its first
  candidate's text parts, joined) -> ``response``: the provider is not called.
* ``AfterModel`` ``hookSpecificOutput.llm_response`` replaces the text of the model's answer
  (its tool calls, which the hook's view does not show, stay) -> ``response.content``.
* ``BeforeToolSelection`` ``hookSpecificOutput.toolConfig``: ``allowedFunctionNames`` (Gemini's
  tool names or ours) -> ``tools``, the tools offered; ``mode`` ``NONE`` offers none (and wins
  over every other hook), ``ANY`` -> ``tool_choice: "required"``, ``AUTO`` changes nothing.
  Several hooks' lists are combined (a union), as Gemini combines them.

A value of the wrong shape is a hook failure naming the field (``on_failure``). A decision that
blocks carries none of these. Fired once per complete response (not per streamed chunk).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, Final

from ...answers import BadAnswer
from ...types import Decision, HookContext
from .tools import TOOLS_FROM_GEMINI

__all__ = ["MODEL_EVENTS", "with_model_changes"]

logger = logging.getLogger(__name__)

MODEL_EVENTS: Final = frozenset({"BeforeModel", "AfterModel", "BeforeToolSelection"})
_ROLES_BACK: Final[Mapping[str, str]] = {"model": "assistant", "user": "user", "system": "system"}
_CONFIG: Final[Mapping[str, str]] = {
    "temperature": "temperature",
    "topP": "top_p",
    "maxOutputTokens": "max_output_tokens",
}
_MODES: Final = frozenset({"AUTO", "ANY", "NONE"})
_WHERE: Final = "hookSpecificOutput."


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadAnswer(f"{where} is {type(value).__name__} {value!r:.80}, expected an object")
    return value


def _response_text(value: object, where: str) -> str:
    """The text of an ``LLMResponse``: its first candidate's text parts, joined."""
    response = _object(value, where)
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        raise BadAnswer(f"{where}.candidates: expected a non-empty list")
    content = _object(candidates[0], f"{where}.candidates[0]").get("content")
    parts = _object(content, f"{where}.candidates[0].content").get("parts")
    if not isinstance(parts, list):
        raise BadAnswer(f"{where}.candidates[0].content.parts: expected a list")
    texts = [p if isinstance(p, str) else p.get("text") for p in parts if isinstance(p, str | dict)]
    return "".join(t for t in texts if isinstance(t, str))


def _messages(data: Mapping[str, Any], value: object, label: str) -> list[dict[str, Any]]:
    """``llm_request.messages`` applied to the messages of ``data`` (see the docstring)."""
    where = f"{_WHERE}llm_request.messages"
    if not isinstance(value, list):
        raise BadAnswer(f"{where}: expected a list of {{role, content}}")
    given: list[tuple[str, str]] = []
    for index, item in enumerate(value):
        message = _object(item, f"{where}[{index}]")
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str) or role not in _ROLES_BACK or not isinstance(content, str):
            raise BadAnswer(
                f"{where}[{index}]: expected role user, model or system and a content string"
            )
        given.append((_ROLES_BACK[role], content))
    ours = [m for m in data.get("messages") or () if isinstance(m, Mapping)]
    shown = [i for i, m in enumerate(ours) if isinstance(m.get("content"), str)]
    if len(given) == len(shown):  # the same messages, texts changed in place
        changed = [dict(m) for m in ours]
        for index, (_, content) in zip(shown, given, strict=True):
            changed[index]["content"] = content
        return changed
    dropped = len(ours) - len(shown)
    if dropped:
        logger.warning(
            "hook %s: llm_request.messages has %d messages where %d were shown; they replace "
            "the conversation sent, without its %d tool call and result message(s)",
            label,
            len(given),
            len(shown),
            dropped,
        )
    return [{"role": role, "content": content} for role, content in given]


def _tool_selection(data: Mapping[str, Any], value: object, where: str) -> dict[str, Any]:
    config = _object(value, where)
    mode = config.get("mode")
    if mode is not None and mode not in _MODES:
        raise BadAnswer(f"{where}.mode is {mode!r}, expected AUTO, ANY or NONE")
    if mode == "NONE":
        return {"tools": [], "tool_choice": "none"}
    changed: dict[str, Any] = {}
    names = config.get("allowedFunctionNames")
    if names is not None:
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise BadAnswer(f"{where}.allowedFunctionNames: expected a list of tool names")
        wanted = {TOOLS_FROM_GEMINI.get(n, n) for n in names}
        offered = [t for t in data.get("tools") or () if isinstance(t, str)]
        changed["tools"] = [t for t in offered if t in wanted]
    if mode == "ANY":
        changed["tool_choice"] = "required"
    return changed


def _request(data: Mapping[str, Any], value: object, label: str) -> dict[str, Any]:
    where = f"{_WHERE}llm_request"
    request = _object(value, where)
    changed: dict[str, Any] = {}
    model = request.get("model")
    if model is not None and model != data.get("model"):
        if not isinstance(model, str) or not model:
            raise BadAnswer(f"{where}.model: expected a model name")
        changed["model"] = model
    config = request.get("config")
    if config is not None:
        for key, item in _object(config, f"{where}.config").items():
            if key in _CONFIG:
                changed[_CONFIG[key]] = item
            else:
                logger.info("hook %s: llm_request.config.%s has no counterpart here", label, key)
    if "messages" in request:
        changed["messages"] = _messages(data, request["messages"], label)
    if request.get("toolConfig") is not None:
        changed.update(_tool_selection(data, request["toolConfig"], f"{where}.toolConfig"))
    return changed


def with_model_changes(
    ctx: HookContext, name: str, answer: Mapping[str, Any], decision: Decision, label: str
) -> Decision:
    """``decision`` carrying the model-call changes of a Gemini answer on ``name`` (see the
    module docstring); ``decision`` unchanged when there are none.

    :raises BadAnswer: a field has the wrong shape.
    """
    specific = answer.get("hookSpecificOutput")
    if name not in MODEL_EVENTS or not isinstance(specific, Mapping):
        return decision
    if decision.action == "block" or decision.stop:
        return decision
    data = ctx.data
    changed: dict[str, Any] = {}
    if name == "BeforeModel":
        if specific.get("llm_request") is not None:
            changed.update(_request(data, specific["llm_request"], label))
        if specific.get("llm_response") is not None:
            text = _response_text(specific["llm_response"], f"{_WHERE}llm_response")
            changed["response"] = {"content": text, "stop_reason": "stop"}
    elif name == "AfterModel" and specific.get("llm_response") is not None:
        text = _response_text(specific["llm_response"], f"{_WHERE}llm_response")
        response = data.get("response")
        before = response if isinstance(response, Mapping) else {}
        changed["response"] = {**before, "content": text}
    elif name == "BeforeToolSelection" and specific.get("toolConfig") is not None:
        changed.update(_tool_selection(data, specific["toolConfig"], f"{_WHERE}toolConfig"))
    if not changed:
        return decision
    logger.info("hook %s: %s changes %s", label, name, ", ".join(sorted(changed)))
    return dataclasses.replace(decision, replaced_data=changed)
