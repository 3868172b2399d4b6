"""Session runtime edge cases: hook and tool failures, cancellation, compaction, resume, memory.

Each test drives a real session (a scripted provider, real hooks, real tools and files) into a
corner a user can reach and checks that the turn neither crashes nor leaves the session
inconsistent, and that every event keeps its documented contract.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any, ClassVar

import pytest
from amplifier_hooks_cli.session import AgentSession

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ToolCall
from amplifier_core.models import HookResult, ToolResult
from amplifier_core.testing import EventRecorder
from amplifier_module_loop_session import CheckpointError, read_checkpoint
from amplifier_module_loop_session.memory import MemoryWatcher
from amplifier_module_provider_scripted import ScriptedProvider

from .support import (
    call,
    make_bundle,
    module,
    sent,
    session_for,
)

TURN_END = ["prompt:complete", "execution:end", "orchestrator:complete"]


def _contents(messages: list[dict[str, Any]]) -> list[Any]:
    return [m.get("content") for m in messages]


def _tool_sequence_is_valid(messages: list[dict[str, Any]]) -> bool:
    """Every tool call answered right after its assistant message; no orphan results."""
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message.get("role") == "tool":
            return False  # a result whose call is not right before it
        calls = {c["id"] for c in message.get("tool_calls") or ()}
        while calls:
            if index >= len(messages) or messages[index].get("role") != "tool":
                return False
            calls.discard(messages[index]["tool_call_id"])
            index += 1
    return True


def _answer(text: str) -> ChatResponse:
    return ChatResponse(content=[TextBlock(text=text)])


class WaitingTool:
    """A tool that runs until it is released (or cancelled): a long-running command."""

    name = "wait"
    description = "Waits until released."
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult(output="released")


class NoteTool:
    """A tool that returns what it is given."""

    description = "Returns its input."
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, name: str, output: Any = None) -> None:
        self.name = name
        self.output = output
        self.inputs: list[Any] = []

    async def execute(self, input: dict[str, Any]) -> Any:
        self.inputs.append(input)
        return self.output if self.output is not None else ToolResult(output=input)


# -- hook results take effect as documented ---------------------------------------------------


async def test_session_resume_injection_enters_the_restored_context(workspace: Path) -> None:
    session, recorder, _ = session_for(workspace, ["first"])
    async with session:
        await session.run("one")
    path = Path(recorder.get_events("session:checkpoint")[-1][1]["path"])

    provider = ScriptedProvider(["second"])
    resumed = await AgentSession.resume(
        path, make_bundle(), workspace=workspace, provider=provider, start=False
    )
    resumed.coordinator.hooks.register(
        "session:resume",
        lambda e, d: HookResult(action="inject_context", context_injection="RESUMED: re-read"),
        name="resumer",
    )
    async with resumed:
        await resumed.run("two")
    contents = _contents(sent(provider.requests[0]))
    assert "RESUMED: re-read" in contents
    assert contents.index("RESUMED: re-read") < contents.index("two")


async def test_a_session_start_injection_over_the_size_limit_does_not_stop_the_session(
    workspace: Path,
) -> None:
    session, recorder, provider = session_for(workspace, ["hello"])
    session.coordinator.hooks.register(
        "session:start",
        lambda e, d: HookResult(action="inject_context", context_injection="x" * 20_000),
        name="bulky",
    )
    async with session:
        outcome = await session.run("hi")
    assert outcome.status == "completed"
    assert "x" * 20_000 not in _contents(sent(provider.requests[0]))
    notes = [d["message"] for _, d in recorder.get_events("user:notification")]
    assert any("bulky" in note and "session.injection_size_limit" in note for note in notes)


async def test_a_persistent_injection_at_provider_request_reaches_that_request(
    workspace: Path,
) -> None:
    session, _, provider = session_for(workspace, ["a", "b"])
    injected: list[int] = []

    def once(event: str, data: dict[str, Any]) -> HookResult:
        if injected:
            return HookResult()
        injected.append(data["iteration"])
        return HookResult(action="inject_context", context_injection="POLICY: be brief")

    session.coordinator.hooks.register("provider:request", once, name="policy")
    async with session:
        await session.run("first")
        await session.run("second")
        stored = await session.context.get_messages()
    assert _contents(sent(provider.requests[0]))[-1] == "POLICY: be brief"
    assert _contents(sent(provider.requests[1])).count("POLICY: be brief") == 1
    assert _contents(stored).count("POLICY: be brief") == 1


async def test_a_modify_at_provider_request_with_unusable_messages_is_ignored(
    workspace: Path,
) -> None:
    session, recorder, provider = session_for(workspace, ["still fine"])
    session.coordinator.hooks.register(
        "provider:request",
        lambda e, d: HookResult(action="modify", data={**d, "messages": ["not", "messages"]}),
        name="broken",
    )
    async with session:
        outcome = await session.run("hello")
        again = await session.run("again?")
    assert outcome.status == "completed"
    assert outcome.response == "still fine"
    assert _contents(sent(provider.requests[0])) == ["hello"]
    assert again.status == "error"  # the script is exhausted: the session itself goes on
    notes = [d["message"] for _, d in recorder.get_events("user:notification")]
    assert any("provider:request" in note and "messages" in note for note in notes)


async def test_a_tool_pre_injection_never_separates_tool_calls_from_their_results(
    workspace: Path,
) -> None:
    script = [
        {
            "tool_calls": [
                {"name": "note", "input": {"n": 1}},
                {"name": "note", "input": {"n": 2}},
            ]
        },
        "done",
    ]
    session, _, provider = session_for(workspace, script, tools={"note": NoteTool("note")})
    session.coordinator.hooks.register(
        "tool:pre",
        lambda e, d: HookResult(
            action="inject_context", context_injection=f"PRE: {d['tool_input']['n']}"
        ),
        name="pre-note",
    )
    async with session:
        outcome = await session.run("go")
        stored = await session.context.get_messages()
    assert outcome.status == "completed"
    messages = sent(provider.requests[1])
    assert _tool_sequence_is_valid(messages), messages
    assert _contents(messages)[-2:] == ["PRE: 1", "PRE: 2"]
    assert _tool_sequence_is_valid(stored)


async def test_a_denied_tool_keeps_its_injection_after_the_results(workspace: Path) -> None:
    script = [call("note", n=1), "ok"]
    session, recorder, provider = session_for(workspace, script, tools={"note": NoteTool("note")})
    session.coordinator.hooks.register(
        "tool:pre",
        lambda e, d: HookResult(action="deny", reason="no", context_injection="DENIED: why"),
        name="gate",
    )
    async with session:
        await session.run("go")
    messages = sent(provider.requests[1])
    assert _tool_sequence_is_valid(messages), messages
    assert messages[-2]["content"] == "Error: tool call denied by hook 'gate': no"
    assert messages[-1]["content"] == "DENIED: why"
    assert recorder.get_events("policy:violation")


async def test_ask_user_on_an_event_that_cannot_gate_never_asks_the_user(workspace: Path) -> None:
    approvals = StaticApprovalSystem("deny")
    session, recorder, _ = session_for(
        workspace,
        [call("note", n=1), "done"],
        tools={"note": NoteTool("note")},
        approval_system=approvals,
    )
    asks = HookResult(action="ask_user", approval_prompt="Really?")
    for event in ("provider:request", "tool:post"):
        session.coordinator.hooks.register(event, lambda e, d: asks, name=f"ask-{event}")
    async with session:
        outcome = await session.run("go")
    assert outcome.status == "completed"
    assert approvals.requests == []
    assert "approval:required" not in recorder.names


async def test_a_failing_hook_result_processing_does_not_crash_the_turn(workspace: Path) -> None:
    bundle = make_bundle(session={"injection_size_limit": 4})
    session, recorder, _ = session_for(workspace, ["fine"], bundle)

    def inject(event: str, data: dict[str, Any]) -> HookResult:
        # over the session's per-injection limit: acting on the result raises
        return HookResult(action="inject_context", context_injection="a longer note")

    session.coordinator.hooks.register("prompt:submit", inject, name="reconfigure")
    async with session:
        outcome = await session.run("hello")
    assert outcome.status == "completed"
    assert outcome.response == "fine"
    notes = [d["message"] for _, d in recorder.get_events("user:notification")]
    assert any("prompt:submit" in note and "injection_size_limit" in note for note in notes)


# -- provider and tool failures ---------------------------------------------------------------


class OddProvider:
    """A provider whose answers are not what the runtime expects."""

    name = "odd"
    model = "odd-1"

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> Any:
        self.requests.append(request)
        return self.answers.pop(0)


async def test_an_unreadable_provider_response_is_a_provider_error(workspace: Path) -> None:
    readable = {"content": [{"type": "text", "text": "a dict is readable"}]}
    provider = OddProvider([42, readable])
    session = AgentSession(make_bundle(), workspace=workspace, provider=provider, tools={})
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    async with session:
        broken = await session.run("one")
        fine = await session.run("two")
    assert broken.status == "error"
    error = recorder.get_events("provider:error")[0][1]
    assert error["provider"] == "odd"
    assert "ChatResponse" in error["error"]["message"]
    assert fine.status == "completed"
    assert fine.response == "a dict is readable"


async def test_a_tool_call_whose_input_is_not_an_object_becomes_an_error_result(
    workspace: Path,
) -> None:
    odd = ToolCall.model_construct(id="c1", name="note", arguments="ls -la")
    provider = OddProvider(
        [ChatResponse.model_construct(content=[], tool_calls=[odd]), _answer("understood")]
    )
    note = NoteTool("note")
    session = AgentSession(
        make_bundle(), workspace=workspace, provider=provider, tools={"note": note}
    )
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    async with session:
        outcome = await session.run("go")
    assert outcome.status == "completed"
    assert note.inputs == []
    error = recorder.get_events("tool:error")[0][1]
    assert error["error"]["type"] == "TypeError"
    assert error["tool_input"] == {}
    result = sent(provider.requests[1])[-1]
    assert result["role"] == "tool"
    assert "not a JSON object" in result["content"]


async def test_an_unknown_tool_and_odd_tool_results_never_crash_the_turn(workspace: Path) -> None:
    script = [
        {
            "tool_calls": [
                {"name": "nope", "input": {}},
                {"name": "read_file", "input": {"file_path": "x.txt"}},
                {"name": "flag", "input": {}},
            ]
        },
        "done",
    ]
    tools = {
        "read_file": NoteTool("read_file", {"success": 1, "output": {"bytes_read": "many"}}),
        "flag": NoteTool("flag", {"success": 0, "output": "no"}),
    }
    session, recorder, provider = session_for(workspace, script, tools=tools)
    async with session:
        outcome = await session.run("go")
    assert outcome.status == "completed"
    results = [m for m in sent(provider.requests[1]) if m["role"] == "tool"]
    assert results[0]["content"] == "Error: LookupError: no tool named 'nope' is mounted"
    posts = [d["tool_result"]["success"] for _, d in recorder.get_events("tool:post")]
    assert posts == [True, False]
    assert all(isinstance(value, bool) for value in posts)


async def test_a_mention_of_an_unreadable_file_is_skipped(workspace: Path) -> None:
    session, recorder, provider = session_for(workspace, ["ok"])
    async with session:
        outcome = await session.run("what is in @/proc/self/mem ?")
    assert outcome.status == "completed"
    assert _contents(sent(provider.requests[0])) == ["what is in @/proc/self/mem ?"]
    assert "context:include" not in recorder.names


async def test_a_turn_that_fails_reports_no_stale_response(workspace: Path) -> None:
    script = [{"text": "let me look", **call("note", n=1)}, {"error": "model down"}]
    session, recorder, _ = session_for(workspace, script, tools={"note": NoteTool("note")})
    async with session:
        outcome = await session.run("go")
    assert outcome.status == "error"
    assert outcome.response == ""
    assert recorder.get_events("execution:end")[0][1] == {
        **recorder.get_events("execution:end")[0][1],
        "response": "",
        "status": "error",
    }


async def test_a_checkpoint_that_cannot_be_written_does_not_fail_the_turn(
    workspace: Path,
) -> None:
    (workspace / "blocker").write_text("a file where the checkpoint directory should be")
    session, recorder, _ = session_for(
        workspace,
        ["first", "second"],
        make_bundle(session={"checkpoint_dir": "blocker/sessions"}),
    )
    async with session:
        first = await session.run("one")
        second = await session.run("two")
    assert (first.status, second.status) == ("completed", "completed")
    assert "session:checkpoint" not in recorder.names
    notes = [d for _, d in recorder.get_events("user:notification")]
    assert len(notes) == 2
    assert all(n["level"] == "error" and "checkpoint" in n["message"] for n in notes)


async def test_a_tool_mounted_by_a_module_can_be_called(workspace: Path) -> None:
    session, recorder, provider = session_for(workspace, [call("extra", n=1), "done"], tools={})
    async with session:
        await session.coordinator.mount("tools", NoteTool("extra"))
        outcome = await session.run("go")
    assert outcome.status == "completed"
    assert "extra" in [t.name for t in provider.requests[0].tools or []]
    assert recorder.get_events("tool:post")[0][1]["tool_result"]["output"] == {"n": 1}


# -- cancellation and the session's lifecycle -------------------------------------------------


async def test_a_cancel_between_turns_is_a_no_op(workspace: Path) -> None:
    session, recorder, _ = session_for(workspace, ["a", "b"])
    async with session:
        await session.run("one")
        await session.cancel()
        await session.cancel(immediate=True)
        outcome = await session.run("two")
    assert outcome.status == "completed"
    assert "cancel:requested" not in recorder.names
    assert "cancel:completed" not in recorder.names


async def test_an_immediate_cancel_sent_twice_still_finishes_the_turn(workspace: Path) -> None:
    tool = WaitingTool()
    session, recorder, _ = session_for(workspace, [call("wait"), "after"], tools={"wait": tool})
    in_finish = asyncio.Event()
    second_cancel_sent = asyncio.Event()

    async def held_observer(event: str, data: dict[str, Any]) -> None:
        in_finish.set()
        await second_cancel_sent.wait()  # the turn is finishing while the second cancel lands

    # prompt:complete is the first of the closing events a stopped turn fires
    session.coordinator.hooks.register("prompt:complete", held_observer, name="held")
    async with session:
        turn = asyncio.create_task(session.run("wait"))
        await tool.started.wait()
        await session.cancel(immediate=True)
        await in_finish.wait()
        await session.cancel(immediate=True)  # lands while the turn is finishing
        second_cancel_sent.set()
        outcome = await turn
        again = await session.run("go on")
    assert tool.cancelled
    assert outcome.status == "cancelled"
    assert outcome.iterations == 1  # what the turn did before the cancel is kept
    assert outcome.usage["output_tokens"] > 0
    names = recorder.names
    first_turn = names[: names.index("cancel:completed") + 1]
    assert first_turn[-4:] == [*TURN_END, "cancel:completed"]
    assert again.response == "after"


async def test_an_immediate_cancel_during_a_provider_call(workspace: Path) -> None:
    class SlowProvider:
        name = "slow"
        model = "slow-1"

        def __init__(self) -> None:
            self.calls = 0
            self.waiting = asyncio.Event()

        async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
            self.calls += 1
            if self.calls == 1:
                self.waiting.set()
                await asyncio.Event().wait()
            return _answer("second call")

    provider = SlowProvider()
    session = AgentSession(make_bundle(), workspace=workspace, provider=provider, tools={})
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    async with session:
        turn = asyncio.create_task(session.run("one"))
        await provider.waiting.wait()
        await session.cancel(immediate=True)
        outcome = await turn
        again = await session.run("two")
    assert (outcome.status, outcome.iterations) == ("cancelled", 1)
    assert again.response == "second call"
    assert recorder.get_events("execution:end")[0][1]["status"] == "cancelled"
    assert recorder.get_events("orchestrator:complete")[0][1]["status"] == "cancelled"


async def test_an_immediate_cancel_while_the_prompt_waits_for_approval(workspace: Path) -> None:
    class WaitingApprovals:
        def __init__(self) -> None:
            self.asked = asyncio.Event()

        async def request_approval(
            self,
            prompt: str,
            options: list[str],
            timeout: float,  # noqa: ASYNC109 - the approval system signature
            default: str,
        ) -> str:
            self.asked.set()
            await asyncio.Event().wait()
            return "Allow"

    approvals = WaitingApprovals()
    session, recorder, provider = session_for(workspace, ["answer"], approval_system=approvals)
    session.coordinator.hooks.register(
        "prompt:submit", lambda e, d: HookResult(action="ask_user"), name="ask"
    )
    async with session:
        turn = asyncio.create_task(session.run("hello"))
        await approvals.asked.wait()
        await session.cancel(immediate=True)
        outcome = await turn
    assert outcome.status == "cancelled"
    assert provider.requests == []
    assert recorder.get_events("cancel:completed")[0][1]["was_immediate"] is True
    assert "execution:start" not in recorder.names
    assert "execution:end" not in recorder.names


async def test_close_while_a_turn_runs_cancels_it_first(workspace: Path) -> None:
    tool = WaitingTool()
    session, recorder, _ = session_for(workspace, [call("wait"), "never"], tools={"wait": tool})
    await session.start()
    turn = asyncio.create_task(session.run("wait"))
    await tool.started.wait()
    await session.close()
    outcome = await turn
    assert outcome.status == "cancelled"
    assert tool.cancelled
    assert recorder.names[-1] == "session:end"
    assert recorder.names.count("session:end") == 1
    assert recorder.get_events("session:end")[0][1]["status"] == "cancelled"
    assert "session:checkpoint" not in recorder.names
    with pytest.raises(RuntimeError, match="is closed"):
        await session.run("more")


async def test_two_turns_at_once_are_refused(workspace: Path) -> None:
    tool = WaitingTool()
    session, _, _ = session_for(workspace, [call("wait"), "done"], tools={"wait": tool})
    async with session:
        first = asyncio.create_task(session.run("one"))
        await tool.started.wait()
        with pytest.raises(RuntimeError, match="a turn is already running"):
            await session.run("two")
        tool.release.set()
        outcome = await first
    assert outcome.response == "done"


async def test_start_runs_once(workspace: Path) -> None:
    session, recorder, _ = session_for(workspace, ["a"])
    await session.start()
    async with session:
        await session.run("one")
    assert recorder.names.count("session:start") == 1
    assert recorder.names.count("provider:resolve") == 1


# -- checkpoints, resume and fork -------------------------------------------------------------


async def test_resume_continues_with_the_model_the_checkpoint_names(workspace: Path) -> None:
    scripted = module("provider-scripted", {"model": "small", "script": ["a", "b", "c"]})
    bundle = make_bundle(providers=[scripted])
    session = AgentSession(bundle, workspace=workspace)
    async with session:
        await session.run("one")
        await session.switch_model("large")
        await session.run("two")
    path = session.orchestrator.checkpoint_dir() / "checkpoint-0002.json"
    assert read_checkpoint(path).model == "large"
    resumed = await AgentSession.resume(path, bundle, workspace=workspace, start=False)
    recorder = EventRecorder()
    recorder.attach(resumed.coordinator.hooks)
    async with resumed:
        assert resumed.provider.model == "large"
        await resumed.run("three")
    assert [d["model"] for _, d in recorder.get_events("provider:request")] == ["large"]
    assert recorder.get_events("session:resume")[0][1]["model"] == "large"


async def test_a_fork_does_not_include_the_instructions_twice(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("be careful\n")
    session, _, _ = session_for(workspace, ["a"])
    async with session:
        await session.run("one")
        child = await session.fork(provider=ScriptedProvider(["b"]))
        parent_messages = await session.context.get_messages()
        child_messages = await child.context.get_messages()
        await child.close()
    instructions = [
        m for m in child_messages if m.get("metadata", {}).get("source") == "instructions"
    ]
    assert len(instructions) == 1
    assert len(child_messages) == len(parent_messages)


async def test_a_checkpoint_from_another_writer_with_odd_tool_calls_resumes(
    workspace: Path,
) -> None:
    path = workspace / "checkpoint.json"
    path.write_text(
        json.dumps(
            {
                "checkpoint_id": "ckpt_x",
                "session_id": "s1",
                "turn": 1,
                "provider": "scripted",
                "model": "scripted",
                "created": "2025-01-01T00:00:00+00:00",
                "messages": [
                    {"role": "user", "content": "one"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"id": "c9", "function": {"name": "bash"}}, {"x": 1}],
                    },
                ],
            }
        )
    )
    provider = ScriptedProvider(["fine"])
    resumed = await AgentSession.resume(path, make_bundle(), workspace=workspace, provider=provider)
    async with resumed:
        outcome = await resumed.run("two")
    assert outcome.status == "completed"
    repaired = sent(provider.requests[0])[2]
    assert (repaired["role"], repaired["tool_call_id"]) == ("tool", "c9")


# -- compaction -------------------------------------------------------------------------------


async def test_compaction_keeps_the_prompt_when_a_hook_injects_a_user_message_after_it(
    workspace: Path,
) -> None:
    script = ["x" * 400, call("note", n=1), "done"]
    session, recorder, provider = session_for(
        workspace,
        script,
        make_bundle(session={"context_max_tokens": 200}),
        tools={"note": NoteTool("note")},
    )
    session.coordinator.hooks.register(
        "tool:post",
        lambda e, d: HookResult(
            action="inject_context", context_injection="LINT: ok", context_injection_role="user"
        ),
        name="lint",
    )
    prompt = "second prompt " + "z" * 340
    async with session:
        await session.run("first")
        await session.run(prompt)
    assert recorder.get_events("context:compaction")
    last = _contents(sent(provider.requests[-1]))
    assert prompt in last
    assert "LINT: ok" in last


async def test_compaction_keeps_a_mention_with_its_prompt(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("n" * 600)
    session, recorder, provider = session_for(
        workspace, ["x" * 400, "ok"], make_bundle(session={"context_max_tokens": 250})
    )
    async with session:
        await session.run("first")
        await session.run("summarise @notes.txt")
    assert recorder.get_events("context:compaction")
    last = _contents(sent(provider.requests[-1]))
    assert last[-2:] == ["Contents of @notes.txt:\n" + "n" * 600, "summarise @notes.txt"]
    assert "first" not in last


async def test_compaction_never_cuts_between_a_tool_call_and_its_result(workspace: Path) -> None:
    script = [call("note", n=1), "ok", "short"]
    session, recorder, provider = session_for(
        workspace,
        script,
        make_bundle(session={"context_max_tokens": 100}),
        tools={"note": NoteTool("note")},
    )

    async def annotate(event: str, data: dict[str, Any]) -> None:
        # a module writing into the conversation while a tool runs, without provenance
        await session.context.add_message({"role": "user", "content": "aside"})

    session.coordinator.hooks.register("tool:pre", annotate, name="annotate")
    async with session:
        await session.run("first " + "f" * 400)
        await session.run("second")
    assert recorder.get_events("context:compaction")
    for request in provider.requests:
        messages = sent(request)
        results = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
        calls = {c["id"] for m in messages for c in m.get("tool_calls") or ()}
        assert results <= calls, messages
    assert _contents(sent(provider.requests[-1]))[-1] == "second"


async def test_repeated_compactions_keep_one_note_with_the_running_count(workspace: Path) -> None:
    script = ["x" * 400] * 5
    session, recorder, provider = session_for(
        workspace, script, make_bundle(session={"context_max_tokens": 200})
    )
    async with session:
        for prompt in ("one", "two", "three", "four", "five"):
            await session.run(prompt)
        stored = await session.context.get_messages()
    compactions = recorder.get_events("context:post_compact")
    assert len(compactions) >= 2
    notes = [m for m in stored if m.get("metadata", {}).get("source") == "compaction"]
    assert len(notes) == 1
    removed = sum(d["messages_removed"] for _, d in compactions)
    assert notes[0]["content"].startswith(f"[{removed} earlier messages were removed")
    assert _contents(sent(provider.requests[-1]))[-1] == "five"


# -- memory watcher ---------------------------------------------------------------------------


async def test_a_memory_file_changed_between_turns_is_not_blamed_on_a_tool(
    workspace: Path,
) -> None:
    (workspace / "AGENTS.md").write_text("rule one\n")
    script = ["a", call("note", n=1), "b"]
    session, recorder, _ = session_for(workspace, script, tools={"note": NoteTool("note")})
    async with session:
        await session.run("one")
        (workspace / "AGENTS.md").write_text("rule one\nrule two\n")
        await session.run("two")
    updates = [d for _, d in recorder.get_events("memory:update")]
    assert [(u["change"], u["tool_name"]) for u in updates] == [("modified", None)]


def test_an_unreadable_memory_file_is_not_reported_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "AGENTS.md"
    memory.write_text("rule\n")
    watcher = MemoryWatcher(tmp_path)
    memory.write_text("rule, edited\n")
    if os.geteuid() == 0:  # root reads anything: make this one file fail as EACCES would
        real = Path.read_text

        def denied(self: Path, *args: Any, **kwargs: Any) -> str:
            if self == memory.resolve():
                raise PermissionError(13, "Permission denied", str(self))
            return real(self, *args, **kwargs)

        monkeypatch.setattr(Path, "read_text", denied)
    else:
        memory.chmod(0)
    assert watcher.check() == []
    monkeypatch.undo()
    memory.chmod(0o644)
    changes = watcher.check()
    assert [(c.change, c.added_lines, c.removed_lines) for c in changes] == [("modified", 1, 1)]


def test_a_same_size_edit_within_one_timestamp_tick_is_seen(tmp_path: Path) -> None:
    memory = tmp_path / "AGENTS.md"
    memory.write_text("rule one\n")
    watcher = MemoryWatcher(tmp_path)
    stamp = memory.stat().st_mtime_ns
    memory.write_text("rule two\n")  # same size; a coarse clock gives it the same mtime
    os.utime(memory, ns=(stamp, stamp))
    changes = watcher.check()
    assert [(c.change, c.added_lines, c.removed_lines) for c in changes] == [("modified", 1, 1)]
    assert watcher.check() == []


def test_a_checkpoint_that_is_not_text_or_has_messages_without_roles_is_a_clear_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "checkpoint.json"
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(CheckpointError, match=r"checkpoint .*checkpoint.json: not UTF-8"):
        read_checkpoint(path)
    fields = {
        "checkpoint_id": "c",
        "session_id": "s",
        "turn": 1,
        "provider": "scripted",
        "model": "scripted",
        "created": "2025-01-01T00:00:00+00:00",
    }
    path.write_text(json.dumps({**fields, "messages": [{"content": "no role"}]}))
    with pytest.raises(CheckpointError, match=r"messages: .*message 0 has no 'role'"):
        read_checkpoint(path)


async def test_switching_to_a_callers_provider_closes_only_what_the_session_built(
    workspace: Path,
) -> None:
    class CallersProvider:
        name = "callers"
        model = "c-1"

        def __init__(self) -> None:
            self.closed = False

        async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
            return _answer("hi")

        async def aclose(self) -> None:
            self.closed = True

    bundle = make_bundle(providers=[module("provider-scripted", {"script": ["a"]})])
    mine = CallersProvider()
    async with AgentSession(bundle, workspace=workspace) as session:
        await session.switch_model("c-2", provider=mine)
        assert (await session.run("hello")).response == "hi"
    assert mine.closed is False


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("/etc/*.md", r"memory_files\[0\]: '/etc/\*.md' is absolute"),
        ("", r"memory_files\[0\]: expected a glob pattern"),
    ],
)
async def test_bad_memory_file_patterns_are_clear_errors(
    workspace: Path, value: str, message: str
) -> None:
    bundle = make_bundle(session={"memory_files": [value]})
    session = AgentSession(bundle, workspace=workspace, provider=ScriptedProvider(["x"]))
    with pytest.raises(RuntimeError, match=r"loop-session config " + message):
        await session.start()


async def test_a_single_memory_file_pattern_may_be_a_string(workspace: Path) -> None:
    (workspace / "RULES.md").write_text("rules\n")
    session, recorder, _ = session_for(
        workspace, ["a"], make_bundle(session={"memory_files": "RULES.md"})
    )
    async with session:
        await session.run("one")
    includes = [d["path"] for _, d in recorder.get_events("context:include")]
    assert includes == [str((workspace / "RULES.md").resolve())]


def test_memory_globs_see_files_in_directories_created_later(tmp_path: Path) -> None:
    watcher = MemoryWatcher(tmp_path, ("AGENTS.md", ".amplifier/memory/*.md", "docs/**/*.md"))
    assert watcher.check() == []
    (tmp_path / ".amplifier" / "memory").mkdir(parents=True)
    (tmp_path / ".amplifier" / "memory" / "team.md").write_text("team\n")
    (tmp_path / "docs" / "a" / "b").mkdir(parents=True)
    (tmp_path / "docs" / "a" / "b" / "deep.md").write_text("deep\n")
    (tmp_path / "docs" / "a" / "b" / "skip.txt").write_text("not memory\n")
    changes = watcher.check()
    assert sorted((c.path.name, c.change) for c in changes) == [
        ("deep.md", "created"),
        ("team.md", "created"),
    ]
