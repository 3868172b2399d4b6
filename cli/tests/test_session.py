"""``AgentSession``: turns, cancels, close, checkpoints, resume, fork and model switches on the
kernel's ``AmplifierSession`` with the real runtime modules (imported by source, not by entry
point)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession
from amplifier_hooks_util.state import session_dir

from amplifier_core.message_models import ChatRequest

from .conftest import EchoTool, PlannedProvider, WaitingTool, hermetic_bundle, record_events

LIFECYCLE = (
    "session:start",
    "session:resume",
    "session:fork",
    "session:end",
    "session:checkpoint",
    "cancel:requested",
    "cancel:completed",
    "provider:switch",
)


def session_of(workspace: Path, provider: Any, **kwargs: Any) -> AgentSession:
    kwargs.setdefault("tools", {"echo": EchoTool()})
    return AgentSession(hermetic_bundle(), workspace=workspace, provider=provider, **kwargs)


def names(seen: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [event for event, _ in seen]


async def test_a_turn_runs_on_the_mounted_modules_and_says_how_it_ended(workspace: Path) -> None:
    provider = PlannedProvider(("Let me echo.", [("echo", {"text": "hi"})]), "It said: echo: hi")
    session = session_of(workspace, provider)
    seen = record_events(session.coordinator, *LIFECYCLE)
    async with session:
        assert session.provider is provider
        assert sorted(session.tools) == ["echo"]
        outcome = await session.run("Echo hi")
        assert (outcome.status, outcome.response, outcome.iterations) == (
            "completed",
            "It said: echo: hi",
            2,
        )
        assert outcome.usage == {"input_tokens": 20, "output_tokens": 10}
        assert session.turns == 1
        assert await session.execute("again") == "(out of answers)"
        assert session.turns == 2
        ids = [m.id for m in session.loader.mounted]
        assert ids == ["loop-session", "context-simple"]  # no provider or tools of the bundle
    assert names(seen) == [
        "session:start",
        "session:checkpoint",
        "session:checkpoint",
        "session:end",
    ]
    checkpoint = Path(seen[2][1]["path"])
    assert checkpoint.parent == session_dir(session.session_id, working_dir=workspace)
    assert checkpoint.name == "checkpoint-0002.json"
    assert session.status == "completed"


async def test_the_bundle_provider_and_tools_mount_when_none_are_given(workspace: Path) -> None:
    script = workspace.parent / "script.yaml"
    script.write_text("- text: scripted hello\n", encoding="utf-8")
    bundle = hermetic_bundle(
        f"""
        providers:
          - module: provider-scripted
            source: amplifier_module_provider_scripted:mount
            config: {{script: {script}}}
        tools:
          - module: tool-todo
            source: amplifier_module_tool_todo:mount
        """
    )
    async with AgentSession(bundle, workspace=workspace) as session:
        assert sorted(session.tools) == ["todo"]
        outcome = await session.run("hello")
    assert (outcome.status, outcome.response) == ("completed", "scripted hello")


async def test_without_a_provider_start_fails_clearly_and_cleans_up(workspace: Path) -> None:
    bundle = hermetic_bundle(
        """
        providers:
          - module: provider-scripted
            source: amplifier_module_provider_scripted:mount
            config: {script: /nowhere/at/all.yaml}
        """
    )
    session = AgentSession(bundle, workspace=workspace)
    seen = record_events(session.coordinator, "session:end")
    with pytest.raises(RuntimeError) as raised:
        await session.start()
    message = str(raised.value)
    assert message.startswith(f"session {session.session_id}: no provider is mounted")
    assert "provider-scripted" in message
    assert "/nowhere/at/all.yaml" in message
    assert session.loader.mounted == ()
    assert session.status == "failed"
    assert names(seen) == ["session:end"]


async def test_an_immediate_cancel_stops_the_running_tool(workspace: Path) -> None:
    tool = WaitingTool()
    provider = PlannedProvider(("", [("wait", {})]), "never asked")
    session = session_of(workspace, provider, tools={"wait": tool})
    seen = record_events(session.coordinator, *LIFECYCLE)
    async with session:
        turn = asyncio.create_task(session.run("wait for it"))
        await tool.started.wait()
        await session.cancel(immediate=True)
        outcome = await turn
        assert outcome.status == "cancelled"
        assert not tool.finished
        assert len(provider.requests) == 1
        assert session.status == "cancelled"
        messages = await session.context.get_messages()
        assert messages[0] == {"role": "user", "content": "wait for it"}
    requested = next(data for event, data in seen if event == "cancel:requested")
    assert requested["immediate"] is True
    assert requested["running_tools"] == ["wait"]
    assert "cancel:completed" in names(seen)


async def test_a_graceful_cancel_lets_the_tool_finish_and_asks_no_more(workspace: Path) -> None:
    tool = WaitingTool()
    provider = PlannedProvider(("", [("wait", {})]), "never asked")
    session = session_of(workspace, provider, tools={"wait": tool})
    async with session:
        turn = asyncio.create_task(session.run("wait for it"))
        await tool.started.wait()
        await session.cancel()
        tool.release.set()
        outcome = await turn
        assert outcome.status == "cancelled"
        assert tool.finished
        assert len(provider.requests) == 1
        # the next turn runs: a cancel acts on one turn only
        provider.answers = ["back again"]
        assert (await session.run("next")).response == "back again"


async def test_cancel_between_turns_does_nothing(workspace: Path) -> None:
    session = session_of(workspace, PlannedProvider("one"))
    seen = record_events(session.coordinator, "cancel:requested")
    async with session:
        await session.cancel(immediate=True)
        assert (await session.run("go")).status == "completed"
    assert seen == []


async def test_close_cancels_a_running_turn_and_ends_the_session(workspace: Path) -> None:
    tool = WaitingTool()
    session = session_of(workspace, PlannedProvider(("", [("wait", {})])), tools={"wait": tool})
    seen = record_events(session.coordinator, *LIFECYCLE)
    await session.start()
    turn = asyncio.create_task(session.run("wait"))
    await tool.started.wait()
    await session.close()
    assert (await turn).status == "cancelled"
    assert session.status == "cancelled"
    assert names(seen)[-1] == "session:end"
    assert seen[-1][1]["status"] == "cancelled"
    with pytest.raises(RuntimeError, match="is closed"):
        await session.run("again")


async def test_one_turn_at_a_time(workspace: Path) -> None:
    tool = WaitingTool()
    session = session_of(
        workspace, PlannedProvider(("", [("wait", {})]), "done"), tools={"wait": tool}
    )
    async with session:
        turn = asyncio.create_task(session.run("first"))
        await tool.started.wait()
        with pytest.raises(RuntimeError, match="a turn is already running"):
            await session.run("second")
        tool.release.set()
        assert (await turn).response == "done"


async def test_resume_continues_the_conversation_from_a_checkpoint(workspace: Path) -> None:
    first = session_of(workspace, PlannedProvider("first answer", model="m-2"))
    async with first:
        await first.run("one")
        saved = await first.checkpoint(workspace / "saved.json")
    assert json.loads(saved.read_text())["turn"] == 1

    def remembers(request: ChatRequest) -> str:
        said = [m.content for m in request.messages]
        assert said[:2] == ["one", "first answer"], said
        return "I remember one"

    provider = PlannedProvider(remembers, model="m-2")
    session = await AgentSession.resume(
        saved, hermetic_bundle(), workspace=workspace, provider=provider, start=False
    )
    assert session.session_id == first.session_id
    seen = record_events(session.coordinator, *LIFECYCLE)
    async with session:
        assert session.turns == 1
        outcome = await session.run("two")
        assert outcome.response == "I remember one"
        assert session.turns == 2
    assert names(seen)[0] == "session:resume"
    assert "session:start" not in names(seen)


async def test_resume_with_the_checkpoint_provider_continues_with_its_model(
    workspace: Path,
) -> None:
    script = workspace.parent / "script.yaml"
    script.write_text("- text: first\n- text: second\n", encoding="utf-8")
    bundle = hermetic_bundle(
        f"""
        providers:
          - module: provider-scripted
            source: amplifier_module_provider_scripted:mount
            config: {{script: {script}}}
        """
    )
    async with AgentSession(bundle, workspace=workspace) as first:
        await first.switch_model("scripted-2")
        await first.run("one")
        path = await first.checkpoint()
    async with await AgentSession.resume(path, bundle, workspace=workspace) as session:
        assert session.orchestrator.model == "scripted-2"


async def test_a_fork_starts_with_the_parent_conversation(workspace: Path) -> None:
    provider = PlannedProvider("parent answer", "child answer")
    async with session_of(workspace, provider) as parent:
        await parent.run("question")
        child = await parent.fork(start=False)
        seen = record_events(child.coordinator, *LIFECYCLE)
        async with child:
            assert child.parent_id == parent.session_id
            assert child.provider is provider
            messages = [m["content"] for m in await child.context.get_messages()]
            assert messages == ["question", "parent answer"]
            assert (await child.run("more")).response == "child answer"
    fork = next(data for event, data in seen if event == "session:fork")
    assert fork["parent"] == parent.session_id


async def test_switch_model_to_another_mounted_provider(workspace: Path) -> None:
    first = PlannedProvider("from the first", name="first", model="a-1")
    second = PlannedProvider("from the second", name="second", model="b-1")
    session = session_of(workspace, first)
    seen = record_events(session.coordinator, "provider:switch")
    async with session:
        await session.switch_model("b-2", provider=second, reason="fallback")
        assert session.provider is second
        assert (await session.run("hi")).response == "from the second"
        assert second.requests[0].model == "b-2"
    assert seen == [
        (
            "provider:switch",
            {
                **seen[0][1],
                "old_model": "a-1",
                "new_model": "b-2",
                "old_provider": "first",
                "new_provider": "second",
                "reason": "fallback",
            },
        )
    ]
    assert first.requests == []
