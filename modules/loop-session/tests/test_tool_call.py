"""The three steps of a tool call: gate (``tool:pre``: deny, modify, ask the user), execute
(the mounted tool, the cancellation token, failures) and post (artifacts, memory files,
``tool:post`` rewrites, what is acted on after the results). Through real sessions."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar

import pytest

from amplifier_core import HookResult, ToolResult
from amplifier_core.message_models import ChatResponse, TextBlock, ToolCall

from .conftest import RigFactory
from .scripted import RecordingTool, call, deny, scripted_session

# -- gate -------------------------------------------------------------------------------------


async def test_an_input_that_is_not_an_object_is_a_tool_error_and_nothing_runs(
    make_rig: RigFactory,
) -> None:
    broken = ToolCall.model_construct(id="c1", name="write_file", arguments="file_path=x")
    rig = await make_rig(
        [
            ChatResponse.model_construct(content=[], tool_calls=[broken], usage=None),
            ChatResponse(content=[TextBlock(text="sorry")]),
        ]
    )
    assert await rig.turn("write") == "sorry"

    assert rig.tool.calls == []
    assert "tool:pre" not in rig.names()
    error = rig.of("tool:error")[0]
    assert error["error"] == {
        "type": "TypeError",
        "message": "tool input is not a JSON object (got str)",
    }
    assert error["tool_input"] == {}
    result = (await rig.context.get_messages())[2]
    assert result["content"] == "Error: TypeError: tool input is not a JSON object (got str)"


async def test_a_deny_names_the_hook_that_denied(tmp_path: Path) -> None:
    tool = RecordingTool("alpha")
    session = await scripted_session(
        tmp_path, [{"tool_calls": [call("alpha", "c1")]}, "ok"], [tool]
    )

    def guard(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(
            action="deny", reason="not here", source="fence", user_message_source="fence"
        )

    session.hook("tool:pre", guard, name="fence")
    await session.turn("go")

    result = (await session.context.get_messages())[2]
    assert result["content"] == "Error: tool call denied by hook 'fence': not here"
    assert result["is_error"] is True
    assert session.of("policy:violation")[0]["hook"] == "fence"
    assert tool.ran == []


async def test_a_modify_into_something_not_an_object_is_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tool = RecordingTool("alpha")
    session = await scripted_session(
        tmp_path, [{"tool_calls": [call("alpha", "c1", n=1)]}, "ok"], [tool]
    )
    session.hook(
        "tool:pre",
        lambda e, d: HookResult(action="modify", data={**d, "tool_input": ["n", 2]}),
    )
    with caplog.at_level(logging.WARNING):
        await session.turn("go")

    assert tool.ran == [{"n": 1}]
    assert "modified the input of 'alpha' into list, not a dict; ignored" in caplog.text


class _Approvals:
    """An approval system answering ``answer``, keeping each prompt."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    async def request_approval(
        self,
        prompt: str,
        options: list[str],
        timeout: float,  # noqa: ASYNC109 - the approval protocol's name
        default: str,
    ) -> str:
        self.prompts.append(prompt)
        return self.answer


async def _asking(tmp_path: Path, answer: str) -> tuple[Any, RecordingTool, _Approvals]:
    tool = RecordingTool("alpha")
    session = await scripted_session(
        tmp_path, [{"tool_calls": [call("alpha", "c1", path="x")]}, "ok"], [tool]
    )
    approvals = _Approvals(answer)
    session.coordinator.approval_system = approvals

    def ask(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="ask_user", approval_prompt="run alpha?", reason="risky")

    session.hook("tool:pre", ask, name="asker")
    await session.turn("go")
    return session, tool, approvals


async def test_an_approved_call_runs_what_was_approved(tmp_path: Path) -> None:
    session, tool, approvals = await _asking(tmp_path, "Allow")
    assert approvals.prompts
    assert "run alpha?" in approvals.prompts[0]
    assert tool.ran == [{"path": "x"}]
    pre = session.of("tool:pre")[0]["tool_input"]
    assert tool.ran[0] is not pre  # a copy: a later edit of the event cannot change the run


async def test_a_refused_approval_denies_and_nothing_runs(tmp_path: Path) -> None:
    session, tool, _ = await _asking(tmp_path, "Deny")
    assert tool.ran == []
    result = (await session.context.get_messages())[2]
    assert result["is_error"] is True
    assert result["content"].startswith("Error: tool call denied")


async def test_an_injection_at_tool_pre_comes_after_every_result(tmp_path: Path) -> None:
    tools = [RecordingTool("alpha"), RecordingTool("beta")]
    script = [{"tool_calls": [call("alpha", "c1"), call("beta", "c2")]}, "ok"]
    session = await scripted_session(tmp_path, script, tools)

    def remind(event: str, data: dict[str, Any]) -> HookResult | None:
        if data["tool_name"] != "alpha":
            return None
        return HookResult(action="inject_context", context_injection="alpha is slow")

    session.hook("tool:pre", remind, name="reminder")
    await session.turn("go")

    roles = [(m["role"], m.get("tool_call_id")) for m in await session.context.get_messages()]
    assert roles[:4] == [("user", None), ("assistant", None), ("tool", "c1"), ("tool", "c2")]
    assert "alpha is slow" in str((await session.context.get_messages())[4]["content"])
    assert [t.ran for t in tools] == [[{}], [{}]]


# -- execute ----------------------------------------------------------------------------------


class _Watching:
    """A tool that records, while it runs, which tools the loop says are running."""

    name = "watch"
    description = "watches"
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, session: Any) -> None:
        self.session = session
        self.seen: list[list[str]] = []

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.seen.append(self.session.loop.running_tools)
        return ToolResult(success=True, output="watched")


async def test_a_running_tool_is_named_while_it_runs_and_only_then(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, [{"tool_calls": [call("watch", "c1")]}, "ok"])
    watcher = _Watching(session)
    session.tools["watch"] = watcher
    await session.turn("go")

    assert watcher.seen == [["watch"]]
    assert session.loop.running_tools == []


async def test_a_tool_that_raises_is_a_tool_error_the_model_sees(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path,
        [{"tool_calls": [call("broken", "c1", n=1)]}, "ok"],
        [RecordingTool("broken", fails=True)],
    )
    await session.turn("go")

    error = session.of("tool:error")[0]
    assert error["error"] == {"type": "RuntimeError", "message": "broken broke"}
    assert error["tool_input"] == {"n": 1}
    assert error["tool_call_id"] == "c1"
    assert "tool:post" not in session.names()
    result = (await session.context.get_messages())[2]
    assert result == {
        "role": "tool",
        "tool_call_id": "c1",
        "name": "broken",
        "content": "Error: RuntimeError: broken broke",
        "is_error": True,
    }


class _Failing:
    """A tool that answers a failed result (it does not raise)."""

    name = "flaky"
    description = "fails politely"
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(success=False, output=None, error={"message": "disk full"})


async def test_a_failed_result_is_an_error_message_but_a_tool_post(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, [{"tool_calls": [call("flaky", "c1")]}, "ok"])
    session.tools["flaky"] = _Failing()
    await session.turn("go")

    assert "tool:error" not in session.names()
    assert session.of("tool:post")[0]["tool_result"]["success"] is False
    result = (await session.context.get_messages())[2]
    assert result["is_error"] is True
    assert result["content"].startswith("Error: disk full")


# -- post -------------------------------------------------------------------------------------


class _FileTool:
    """A read_file / write_file stand-in over real files under ``root``."""

    description = "files"
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        path = self.root / input["file_path"]
        if self.name == "read_file":
            return ToolResult(success=True, output={"content": path.read_text()})
        created = not path.exists()
        path.write_text(input["text"])
        return ToolResult(
            success=True, output={"file_path": str(path), "created": created, "bytes_written": 3}
        )


async def test_file_tools_fire_artifact_events_with_their_sizes(tmp_path: Path) -> None:
    script = [
        {"tool_calls": [call("write_file", "c1", file_path="a.txt", text="hello")]},
        {"tool_calls": [call("read_file", "c2", file_path="a.txt")]},
        "ok",
    ]
    tools = [_FileTool("write_file", tmp_path), _FileTool("read_file", tmp_path)]
    session = await scripted_session(tmp_path, script, tools)
    await session.turn("go")

    keys = ("path", "tool_name", "bytes", "created")
    written = {k: v for k, v in session.of("artifact:write")[0].items() if k in keys}
    assert written == {
        "path": str(tmp_path / "a.txt"),
        "tool_name": "write_file",
        "bytes": 3,  # as the tool reported it
        "created": True,
    }
    read = {k: v for k, v in session.of("artifact:read")[0].items() if k in keys}
    assert read == {"path": str(tmp_path / "a.txt"), "tool_name": "read_file", "bytes": 5}
    names = session.names()
    assert names.index("artifact:write") < names.index("tool:post")


async def test_a_memory_file_a_tool_writes_fires_memory_update_before_tool_post(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("be brief\n")
    script = [
        {"tool_calls": [call("write_file", "c1", file_path="AGENTS.md", text="be thorough\n")]},
        "ok",
    ]
    session = await scripted_session(tmp_path, script, [_FileTool("write_file", tmp_path)])
    await session.turn("go")

    update = session.of("memory:update")[0]
    assert update["tool_name"] == "write_file"
    assert update["path"] == str(tmp_path / "AGENTS.md")
    names = session.names()
    assert names.index("memory:update") < names.index("tool:post")


async def test_a_rewrite_at_tool_post_is_what_the_model_sees(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path, [{"tool_calls": [call("alpha", "c1")]}, "ok"], [RecordingTool("alpha")]
    )

    def shorten(event: str, data: dict[str, Any]) -> HookResult:
        result = {**data["tool_result"], "output": "[shortened]"}
        return HookResult(action="modify", data={**data, "tool_result": result})

    session.hook("tool:post", shorten, name="shorten")
    await session.turn("go")

    result = (await session.context.get_messages())[2]
    assert result["content"] == "[shortened]"
    assert session.provider.requests[1].messages[2].content == "[shortened]"


async def test_a_deny_at_tool_post_or_error_does_not_stop_the_turn(tmp_path: Path) -> None:
    script = [{"tool_calls": [call("alpha", "c1"), call("broken", "c2")]}, "ok"]
    tools = [RecordingTool("alpha"), RecordingTool("broken", fails=True)]
    session = await scripted_session(tmp_path, script, tools)
    session.hook("tool:post", lambda e, d: deny("too late"), name="late")
    session.hook("tool:error", lambda e, d: deny("also too late"), name="later")

    assert await session.turn("go") == "ok"
    assert session.outcome.status == "completed"
    assert [t.ran for t in tools] == [[{}], [{}]]


async def test_a_cancel_between_calls_leaves_the_rest_to_the_repair(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path,
        [{"tool_calls": [call("alpha", "c1"), call("beta", "c2")]}, "never"],
    )
    beta = RecordingTool("beta")

    class _Cancelling:
        name = "alpha"
        description = "cancels the turn"
        input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

        async def execute(self, input: dict[str, Any]) -> ToolResult:
            await session.loop.cancel()
            return ToolResult(success=True, output="cancelled")

    session.tools.update({"alpha": _Cancelling(), "beta": beta})
    await session.turn("go")

    assert session.outcome.status == "cancelled"
    assert beta.ran == []
    assert [m.get("tool_call_id") for m in await session.context.get_messages()] == [
        None,
        None,
        "c1",
    ]
