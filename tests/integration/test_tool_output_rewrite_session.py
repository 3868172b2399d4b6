"""A Claude Code ``PostToolUse`` hook rewrites a tool's output in a whole session: the model
reads the hook's output, the ``tool:post`` event (what a session log records) keeps the
tool's own. Real hook processes, real tools, the scripted model."""

from __future__ import annotations

import json
import logging
import shlex
from pathlib import Path
from typing import Any, ClassVar

import pytest

from amplifier_core.models import ToolResult
from amplifier_core.testing import EventRecorder
from amplifier_module_provider_scripted import ScriptedProvider

from . import support
from .support import DECLARATIVE_SCRIPTS as SCRIPTS
from .support import call, make_bundle, module, records, tool_results

SECRET = "build 4242 finished"


pytestmark = pytest.mark.usefixtures("python3_on_path")


def prints(payload: dict[str, Any]) -> dict[str, Any]:
    command = shlex.join(["python3", str(SCRIPTS / "cc_json.py"), json.dumps(payload)])
    return {"type": "command", "command": command}


def post_tool_use(**specific: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", **specific}}


class MemoryTool:
    """An MCP tool as the session sees one (``mcp__<server>__<tool>``)."""

    name = "mcp__memory__lookup"
    description = "Looks a key up."
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(output={"key": input.get("key"), "value": SECRET})


def session_for(
    workspace: Path, hooks: dict[str, Any], script: list[Any], **kwargs: Any
) -> tuple[Any, ScriptedProvider, EventRecorder]:
    """A session with the hooks file and hooks-logging writing ``events.jsonl`` beside it."""
    hooks_file = workspace.parent / "hooks.json"
    hooks_file.write_text(json.dumps({"claude_code": hooks}, indent=2))
    log = {"path": str(workspace.parent / "events.jsonl"), "redact_values": False}
    bundle = make_bundle(
        hooks=[
            module("hooks-logging", log),
            module("hooks-declarative", {"files": [str(hooks_file)]}),
        ]
    )
    session, recorder, provider = support.session_for(
        workspace, script, bundle, strict=True, **kwargs
    )
    return session, provider, recorder


def logged(workspace: Path, event: str) -> list[str]:
    """The records hooks-logging wrote for ``event``, each as JSON text."""
    found = [r for r in records(workspace.parent / "events.jsonl") if r.get("event") == event]
    return [json.dumps(r) for r in found]


async def test_updated_tool_output_replaces_what_the_model_reads_of_a_bash_call(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    redact = prints(post_tool_use(updatedToolOutput="[output redacted by policy]"))
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [redact]}]}
    script = [call("bash", command="echo build $((4000 + 242)) finished"), {"text": "done"}]
    session, provider, recorder = session_for(workspace, hooks, script)
    with caplog.at_level(logging.INFO):
        async with session:
            outcome = await session.run("print the token")
    assert outcome.response == "done"
    assert tool_results(provider) == ["[output redacted by policy]"]
    assert SECRET not in json.dumps([m.model_dump() for m in provider.requests[1].messages])
    # the log has both: tool:post the tool's own output, the next request the rewrite
    [post] = logged(workspace, "tool:post")
    assert SECRET in post
    assert "[output redacted by policy]" not in post
    assert "[output redacted by policy]" in logged(workspace, "llm:request")[1]
    # a handler after the hooks (this recorder) sees the result the model is given
    [(_, seen)] = recorder.get_events("tool:post")
    assert seen["tool_result"]["output"] == "[output redacted by policy]"
    # and the session's log names the rewrite
    assert any("rewrote the result of 'bash'" in r.getMessage() for r in caplog.records)


async def test_updated_mcp_tool_output_replaces_an_mcp_tools_output(workspace: Path) -> None:
    rewrite = prints(post_tool_use(updatedMCPToolOutput={"key": "api", "value": "[hidden]"}))
    hooks = {"PostToolUse": [{"matcher": "mcp__memory__.*", "hooks": [rewrite]}]}
    script = [call("mcp__memory__lookup", key="api"), {"text": "done"}]
    session, provider, _ = session_for(
        workspace, hooks, script, tools={MemoryTool.name: MemoryTool()}
    )
    async with session:
        await session.run("look it up")
    [seen] = tool_results(provider)
    assert json.loads(seen) == {"key": "api", "value": "[hidden]"}
    [post] = logged(workspace, "tool:post")
    assert SECRET in post


async def test_updated_mcp_tool_output_on_a_builtin_tool_is_ignored_as_claude_code_does(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rewrite = prints(post_tool_use(updatedMCPToolOutput="replaced"))
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [rewrite]}]}
    script = [call("bash", command="echo kept"), {"text": "done"}]
    session, provider, _ = session_for(workspace, hooks, script)
    with caplog.at_level(logging.WARNING):
        async with session:
            await session.run("run it")
    [seen] = tool_results(provider)
    assert "kept" in seen
    assert "replaced" not in seen
    assert any("MCP tools only" in r.getMessage() for r in caplog.records)


async def test_two_rewrites_the_later_in_declaration_order_wins_and_context_is_kept(
    workspace: Path,
) -> None:
    first = prints(post_tool_use(updatedToolOutput="first"))
    second = prints(post_tool_use(updatedToolOutput="second", additionalContext="checked"))
    hooks = {"PostToolUse": [{"hooks": [first]}, {"hooks": [second]}]}
    script = [call("bash", command="echo original"), {"text": "done"}]
    session, provider, _ = session_for(workspace, hooks, script)
    async with session:
        await session.run("run it")
    assert tool_results(provider) == ["second"]
    later = json.dumps([m.model_dump() for m in provider.requests[1].messages])
    assert "checked" in later
