"""Session lifecycle: checkpoints and resume, model switch, memory updates, compaction, cancel."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from amplifier_hooks_bundle import parse_bundle
from amplifier_hooks_cli.session import AgentSession

from amplifier_core.errors import BundleError
from amplifier_core.testing import EventRecorder
from amplifier_module_loop_session import CheckpointError, read_checkpoint
from amplifier_module_provider_scripted import ScriptedProvider

from .support import (
    call,
    make_bundle,
    sent,
    session_for,
)


async def test_checkpoint_after_each_turn_and_resume_restores_the_conversation(
    workspace: Path,
) -> None:
    session, recorder, _ = session_for(workspace, ["first answer", "second answer"])
    async with session:
        await session.run("one")
        await session.run("two")
    checkpoints = recorder.get_events("session:checkpoint")
    assert [data["turn"] for _, data in checkpoints] == [1, 2]
    path = Path(checkpoints[-1][1]["path"])
    saved = read_checkpoint(path)
    assert saved.session_id == session.session_id
    assert [m["content"] for m in saved.messages] == ["one", "first answer", "two", "second answer"]

    provider = ScriptedProvider([{"text": "third answer", "expect": "three"}])
    resumed = await AgentSession.resume(
        path, make_bundle(), workspace=workspace, provider=provider, start=False
    )
    events = EventRecorder()
    events.attach(resumed.coordinator.hooks)
    async with resumed:
        outcome = await resumed.run("three")
    assert outcome.response == "third answer"
    assert events.names[:2] == ["session:resume", "provider:resolve"]
    assert "session:start" not in events.names
    resume = events.get_events("session:resume")[0][1]
    assert resume["turn"] == 2
    assert resume["messages"] == 4
    assert resume["checkpoint_id"] == saved.checkpoint_id
    assert len(provider.requests[0].messages) == 5  # four restored, one new
    assert events.get_events("prompt:submit")[0][1]["turn"] == 3


async def test_a_broken_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.json"
    path.write_text('{"version": 1, "turn": "x"')
    with pytest.raises(
        CheckpointError, match=r"checkpoint .*checkpoint.json:1:\d+: not valid JSON"
    ):
        read_checkpoint(path)
    path.write_text(json.dumps({"version": 1, "turn": 1}))
    with pytest.raises(CheckpointError, match="checkpoint_id: Field required"):
        read_checkpoint(path)


async def test_switch_model_fires_resolve_and_switch_and_uses_the_new_model(
    workspace: Path,
) -> None:
    session, recorder, _ = session_for(workspace, ["a", "b"])
    async with session:
        await session.run("one")
        await session.switch_model("bigger-model")
        await session.run("two")
    switch = recorder.get_events("provider:switch")[0][1]
    assert switch == {
        **switch,
        "old_model": "scripted",
        "new_model": "bigger-model",
        "old_provider": "scripted",
        "new_provider": "scripted",
        "reason": "user",
    }
    requests = [data["model"] for _, data in recorder.get_events("provider:request")]
    assert requests == ["scripted", "bigger-model"]
    assert recorder.get_events("provider:resolve")[-1][1]["requested"] == "scripted/bigger-model"


async def test_memory_update_names_the_file_the_tool_and_the_change(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("rule one\n")
    script = [
        call("edit_file", file_path="AGENTS.md", old_string="rule one", new_string="rule two"),
        "edited",
        "idle",
    ]
    session, recorder, _ = session_for(workspace, script)
    async with session:
        await session.run("edit the rules")
        (workspace / "AGENTS.md").unlink()
        await session.run("anything new?")
    updates = [data for _, data in recorder.get_events("memory:update")]
    assert [(u["change"], u["tool_name"]) for u in updates] == [
        ("modified", "edit_file"),
        ("deleted", None),
    ]
    assert updates[0]["path"] == str((workspace / "AGENTS.md").resolve())
    assert (updates[0]["added_lines"], updates[0]["removed_lines"]) == (1, 1)
    assert "-rule one" in updates[0]["diff"]
    assert "+rule two" in updates[0]["diff"]
    include = recorder.get_events("context:include")[0][1]
    assert include["source"] == "instructions"


async def test_compaction_keeps_instructions_and_the_latest_exchange(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("keep me\n")
    long = "x" * 400
    session, recorder, provider = session_for(
        workspace,
        [long, long, long, "short"],
        make_bundle(session={"context_max_tokens": 300}),
    )
    async with session:
        for prompt in ("one", "two", "three", "four"):
            await session.run(prompt)
    assert recorder.get_events("context:compaction"), recorder.names
    compaction = recorder.get_events("context:compaction")[0][1]
    assert compaction["tokens_after"] < compaction["tokens_before"]
    last_request = sent(provider.requests[-1])
    assert last_request[0]["content"].startswith("Instructions from AGENTS.md")
    assert "earlier messages were removed" in last_request[1]["content"]
    assert last_request[-1]["content"] == "four"
    order = recorder.names
    assert order.index("context:pre_compact") < order.index("context:post_compact")


async def test_cancel_immediate_stops_a_running_tool_and_the_session_goes_on(
    workspace: Path,
) -> None:
    script = [call("bash", command="sleep 30"), "after the cancel"]
    session, recorder, _ = session_for(workspace, script)
    tool_started = asyncio.Event()
    session.coordinator.hooks.register(
        "tool:pre", lambda e, d: tool_started.set(), priority=10**6, name="started"
    )
    async with session:
        turn = asyncio.create_task(session.run("sleep"))
        await tool_started.wait()
        await session.cancel(immediate=True)
        outcome = await turn
        assert outcome.status == "cancelled"
        again = await session.run("go on")
    assert again.response == "after the cancel"
    requested = recorder.get_events("cancel:requested")[0][1]
    assert requested == {**requested, "immediate": True, "running_tools": ["bash"]}
    assert recorder.get_events("cancel:completed")[0][1]["was_immediate"] is True
    assert recorder.get_events("provider:tool_sequence_repaired")
    end = recorder.get_events("session:end")[0][1]
    assert end["turns"] == 2


@pytest.mark.parametrize("value", ["0", "-1", "soon", "true"])
def test_a_bad_hook_timeout_is_a_clear_error_at_its_line(value: str) -> None:
    text = f"session:\n  orchestrator: loop-session\n  hook_timeout: {value}\n"
    with pytest.raises(BundleError) as raised:
        parse_bundle(text, "bundle.yaml")
    assert str(raised.value).startswith(
        "invalid bundle bundle.yaml:3: session.hook_timeout: expected seconds > 0 or null"
    )
