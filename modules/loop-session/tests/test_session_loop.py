"""What the loop keeps between turns and around them: the prompt and its mentions, the
instruction files, model switches, checkpoints, cancellation. Through real sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core import HookResult

from .scripted import RecordingTool, call, scripted_session


async def test_a_modify_at_prompt_submit_changes_the_prompt(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["fine"])
    session.hook(
        "prompt:submit",
        lambda e, d: HookResult(action="modify", data={**d, "prompt": "be polite: " + d["prompt"]}),
    )
    await session.turn("hi")

    assert session.provider.requests[0].messages[-1].content == "be polite: hi"
    assert session.of("execution:start")[0]["prompt"] == "be polite: hi"
    assert session.of("prompt:complete")[0]["prompt"] == "be polite: hi"


async def test_a_mentioned_file_is_included_once_and_a_missing_one_is_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.md").write_text("the notes")
    session = await scripted_session(tmp_path, ["read them"])
    await session.turn("see @notes.md and @notes.md, not @missing.md or mail@notes.md")

    messages = await session.context.get_messages()
    included = [m for m in messages if (m.get("metadata") or {}).get("source") == "mention"]
    assert len(included) == 1
    assert included[0]["content"] == "Contents of @notes.md:\nthe notes"
    assert messages[-2]["role"] == "user"  # the prompt comes after what it mentions
    event = session.of("context:include")[0]
    assert event == {
        **event,
        "path": str(tmp_path / "notes.md"),
        "source": "mention",
        "size": 9,
    }


async def test_a_large_mentioned_file_is_cut_at_its_limit(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 150_000)
    session = await scripted_session(tmp_path, ["ok"])
    await session.turn("look at @big.txt")
    assert session.of("context:include")[0]["size"] == 100_000


async def test_instructions_already_in_a_forked_conversation_are_not_added_again(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    session = await scripted_session(tmp_path, ["ok"])
    await session.context.set_messages(
        [
            {
                "role": "system",
                "content": "Instructions from AGENTS.md:\nBe brief.\n",
                "metadata": {"source": "instructions", "path": str(tmp_path / "AGENTS.md")},
            }
        ]
    )
    await session.turn("hello")

    messages = await session.context.get_messages()
    assert sum("Instructions from" in str(m["content"]) for m in messages) == 1
    assert "context:include" not in session.names()


async def test_instructions_can_be_left_out(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    session = await scripted_session(tmp_path, ["ok"], include_instructions=False)
    await session.turn("hello")
    assert [m["role"] for m in await session.context.get_messages()] == ["user", "assistant"]


async def test_a_memory_file_changed_between_turns_is_reported_at_the_next(
    tmp_path: Path,
) -> None:
    session = await scripted_session(tmp_path, ["one", "two"])
    await session.turn("first")
    (tmp_path / "AGENTS.md").write_text("New rule.\n")
    await session.turn("second")

    update = session.of("memory:update")[0]
    assert update["change"] == "created"
    assert update["tool_name"] is None
    names = session.names()
    assert names.index("memory:update") < names.index("prompt:submit", names.index("execution:end"))


async def test_switching_to_an_unmounted_provider_names_the_mounted_ones(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["ok"])
    await session.turn("hello")
    with pytest.raises(ValueError, match="no provider named 'other' is mounted; mounted: scripted"):
        await session.loop.switch_model("m2", provider_name="other")


async def test_a_switched_model_is_what_the_next_request_asks_for(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["one", "two"])
    await session.turn("first")
    await session.loop.switch_model("scripted-large", reason="fallback")
    await session.turn("second")

    assert [r.model for r in session.provider.requests] == ["scripted", "scripted-large"]
    assert session.provider.model == "scripted-large"  # a settable model is told
    assert session.of("provider:switch")[0]["reason"] == "fallback"


async def test_a_checkpoint_that_cannot_be_written_is_reported_and_the_turn_stands(
    tmp_path: Path,
) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")
    session = await scripted_session(
        tmp_path, ["answer"], checkpoint_every_turn=True, checkpoint_dir="taken/sub"
    )
    assert await session.turn("hello") == "answer"

    assert session.outcome.status == "completed"
    assert "session:checkpoint" not in session.names()
    errors = [n for n in session.of("user:notification") if n["level"] == "error"]
    assert "the checkpoint after turn 1 was not saved" in errors[0]["message"]


async def test_a_checkpoint_holds_the_conversation_and_names_its_turn(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path, ["answer"], checkpoint_every_turn=True, checkpoint_dir="ckpt"
    )
    await session.turn("hello")

    saved = session.of("session:checkpoint")[0]
    assert saved["turn"] == 1
    assert saved["messages"] == 2
    assert Path(saved["path"]) == tmp_path / "ckpt" / "checkpoint-0001.json"
    assert saved["checkpoint_id"].startswith("ckpt_1_")


async def test_no_checkpoint_after_a_failed_turn(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path, [{"error": {"message": "down"}}], checkpoint_every_turn=True
    )
    await session.turn("hello")
    assert session.outcome.status == "error"
    assert "session:checkpoint" not in session.names()


async def test_an_immediate_cancel_is_asked_of_the_token(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path, [{"tool_calls": [call("alpha", "c1")]}, "never"], [RecordingTool("alpha")]
    )

    async def stop(event: str, data: dict[str, Any]) -> None:
        await session.loop.cancel(immediate=True)

    session.hook("tool:pre", stop, name="stopper")
    await session.turn("go")

    requested = session.of("cancel:requested")[0]
    assert requested == {**requested, "immediate": True, "running_tools": []}
    assert session.outcome.status == "cancelled"
    assert session.coordinator.cancellation.is_immediate


async def test_a_cancel_between_turns_does_nothing(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["one", "two"])
    await session.turn("first")
    await session.loop.cancel()
    assert await session.turn("second") == "two"
    assert session.outcome.status == "completed"


async def test_the_turn_count_and_the_outcome_follow_each_turn(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["one", "two"])
    await session.turn("first")
    await session.turn("second")

    assert [d["turn"] for d in session.of("prompt:submit")] == [1, 2]
    assert [d["turn"] for d in session.of("execution:end")] == [1, 2]
    assert session.loop.turns == 2
    assert session.outcome.response == "two"
    completed = session.of("prompt:complete")[-1]
    assert completed["status"] == "completed"
    assert completed["iterations"] == 1
    assert "stop_hook_active" not in completed
