"""Gemini CLI's model hooks in whole sessions: ``BeforeModel`` rewrites the request or answers
in the model's place, ``AfterModel`` rewrites the answer, ``BeforeToolSelection`` restricts the
tools offered, and a deny on either model event ends the turn. The project's
``.gemini/settings.json`` (trusted), real hook processes, the scripted model."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.trust import trust_project

from . import support
from .support import sent

HOOK = """#!/usr/bin/env python3
# Gemini CLI hook: records its stdin, then answers with what the answer file holds, where
# "UPPER_LAST" stands for the text of the last message it was shown, upper-cased.
import json, sys
event = json.load(sys.stdin)
log, answer = sys.argv[1], open(sys.argv[2]).read()
with open(log, "a") as out:
    out.write(json.dumps(event) + "\\n")
messages = event.get("llm_request", {}).get("messages", [])
if "UPPER_LAST" in answer:
    answer = answer.replace("UPPER_LAST", messages[-1]["content"].upper())
print(answer)
"""


pytestmark = pytest.mark.usefixtures("python3_on_path")


def session(workspace: Path, hooks: dict[str, dict[str, Any]], script: list[Any]) -> Any:
    """A session whose project's Gemini settings run, per event, a hook answering with the
    given object (the event's stdin is logged to ``<event>.jsonl`` beside the workspace)."""
    script_path = workspace.parent / "hook.py"
    script_path.write_text(HOOK)
    events: dict[str, Any] = {}
    for event, answer in hooks.items():
        answer_path = workspace.parent / f"{event}.answer.json"
        answer_path.write_text(json.dumps(answer))
        log = workspace.parent / f"{event}.jsonl"
        command = shlex.join(["python3", str(script_path), str(log), str(answer_path)])
        events[event] = [{"hooks": [{"type": "command", "command": command}]}]
    (workspace / ".gemini").mkdir()
    (workspace / ".gemini" / "settings.json").write_text(json.dumps({"hooks": events}))
    trust_project(workspace)
    return support.declarative_session(workspace, script)


def logged(workspace: Path, event: str) -> list[dict[str, Any]]:
    return support.records(workspace.parent / f"{event}.jsonl")


def specific(**fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": fields}


def llm_response(text: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": [text]}, "finishReason": "STOP"}],
        "usageMetadata": {"totalTokenCount": 0},
    }


async def test_before_model_llm_request_changes_the_model_and_the_messages(
    workspace: Path,
) -> None:
    rewrite = specific(
        llm_request={
            "model": "small-model",
            "config": {"temperature": 0.1},
            "messages": [{"role": "user", "content": "UPPER_LAST"}],
        }
    )
    agent, _, provider = session(workspace, {"BeforeModel": rewrite}, ["ok"])
    async with agent:
        outcome = await agent.run("please shout")
    assert outcome.response == "ok"
    [request] = provider.requests
    assert request.model == "small-model"
    assert request.temperature == 0.1
    assert sent(request)[-1]["content"] == "PLEASE SHOUT"
    [stdin] = logged(workspace, "BeforeModel")
    assert stdin["llm_request"]["messages"] == [{"role": "user", "content": "please shout"}]


async def test_before_model_llm_response_answers_without_calling_the_model(
    workspace: Path,
) -> None:
    cached = specific(llm_response=llm_response("from the cache"))
    agent, recorder, provider = session(workspace, {"BeforeModel": cached}, ["never sent"])
    async with agent:
        outcome = await agent.run("what is cached?")
    assert outcome.status == "completed"
    assert outcome.response == "from the cache"
    assert provider.requests == []
    assert not recorder.get_events("llm:request")
    history = await agent.context.get_messages()
    assert history[-1]["role"] == "assistant"
    assert history[-1]["content"] == "from the cache"


async def test_after_model_llm_response_replaces_the_answer(workspace: Path) -> None:
    redact = specific(llm_response=llm_response("The password is [redacted]."))
    agent, _, provider = session(workspace, {"AfterModel": redact}, ["The password is hunter2."])
    async with agent:
        outcome = await agent.run("what is the password?")
    assert outcome.response == "The password is [redacted]."
    history = json.dumps(await agent.context.get_messages())
    assert "hunter2" not in history
    [stdin] = logged(workspace, "AfterModel")
    parts = stdin["llm_response"]["candidates"][0]["content"]["parts"]
    assert parts == ["The password is hunter2."]
    assert len(provider.requests) == 1


@pytest.mark.parametrize(
    ("tool_config", "offered"),
    [
        ({"allowedFunctionNames": ["read_file", "run_shell_command"]}, ["bash", "read_file"]),
        ({"mode": "NONE", "allowedFunctionNames": ["read_file"]}, []),
    ],
)
async def test_before_tool_selection_restricts_the_tools_offered(
    workspace: Path, tool_config: dict[str, Any], offered: list[str]
) -> None:
    select = specific(toolConfig=tool_config)
    agent, _, provider = session(workspace, {"BeforeToolSelection": select}, ["ok"])
    async with agent:
        await agent.run("look around")
    [request] = provider.requests
    assert sorted(t.name for t in request.tools or []) == offered
    [stdin] = logged(workspace, "BeforeToolSelection")
    assert stdin["hook_event_name"] == "BeforeToolSelection"
    shown = stdin["llm_request"]["toolConfig"]["allowedFunctionNames"]
    assert "run_shell_command" in shown
    assert "read_file" in shown


@pytest.mark.parametrize("event", ["BeforeModel", "AfterModel"])
async def test_a_deny_on_a_model_event_ends_the_turn(workspace: Path, event: str) -> None:
    deny = {"decision": "deny", "reason": "model calls are paused"}
    agent, recorder, provider = session(workspace, {event: deny}, ["the model's answer"])
    async with agent:
        outcome = await agent.run("hello")
    assert outcome.status == "denied"
    assert outcome.reason is not None
    assert "model calls are paused" in outcome.reason
    assert outcome.response == ""
    history = json.dumps(await agent.context.get_messages())
    assert "the model's answer" not in history
    assert len(provider.requests) == (0 if event == "BeforeModel" else 1)
    [(_, end)] = recorder.get_events("execution:end")
    assert end["status"] == "cancelled"  # stopped by a hook, as a cancel stops it
    [(_, complete)] = recorder.get_events("orchestrator:complete")
    assert complete["status"] == "cancelled"
