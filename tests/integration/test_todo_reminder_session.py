"""hooks-todo-reminder mounted from a bundle in a real scripted session that uses the todo tool.

What the provider received (``provider.requests[i].messages``) shows the reminder reaching
every request after the list is written, following status changes, never entering the stored
conversation, and the nudge coming after N other tool calls and going once the todo tool runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_hooks_bundle import Bundle
from amplifier_hooks_cli.session import AgentSession

from amplifier_module_hooks_todo_reminder import BLOCK_OPEN, REMINDER_HANDLER, TRACKER_HANDLER
from amplifier_module_provider_scripted import ScriptedProvider
from amplifier_module_tool_filesystem import ReadFileTool

from .support import make_bundle, module, sent

NUDGE = "The todo tool has not been used"


def write_todos(*items: tuple[str, str]) -> dict[str, Any]:
    todos = [
        {"content": f"Do {name}", "status": status, "activeForm": f"Doing {name}"}
        for name, status in items
    ]
    return {"tool_calls": [{"name": "todo", "input": {"action": "write", "todos": todos}}]}


READ = {"tool_calls": [{"name": "read_file", "input": {"file_path": "notes.txt"}}]}


def bundle(config: dict[str, Any]) -> Bundle:
    return make_bundle(hooks=[module("hooks-todo-reminder", config)])


def text_of(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages)


async def test_reminder_follows_the_plan_and_the_nudge_comes_and_goes(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("step notes\n")
    script: list[Any] = [
        write_todos(("A", "in_progress"), ("B", "pending"), ("C", "pending")),
        READ,
        READ,
        write_todos(("A", "completed"), ("B", "in_progress"), ("C", "pending")),
        {"text": "A is done, B is under way"},
        {"text": "still on B"},
    ]
    provider = ScriptedProvider(script)
    session = AgentSession(
        bundle({"nudge_after": 2}), workspace=workspace, provider=provider, strict=True
    )
    async with session:
        handlers = session.coordinator.hooks.list_handlers()
        assert REMINDER_HANDLER in handlers["provider:request"]
        assert TRACKER_HANDLER in handlers["tool:post"]
        first = await session.run("work through the plan")
        second = await session.run("carry on")
        stored = await session.context.get_messages()

    assert first.status == second.status == "completed"
    assert second.response == "still on B"
    requests = [sent(request) for request in provider.requests]
    assert len(requests) == 6

    # Before the todo tool ran there is no list, no nudge: nothing injected.
    assert BLOCK_OPEN not in text_of(requests[0])

    # Every later request carries exactly one reminder: ephemeral copies never pile up.
    for messages in requests[1:]:
        assert text_of(messages).count(BLOCK_OPEN) == 1

    # The reminder is appended to the last tool result of the request.
    after_write = requests[1][-1]
    assert after_write["role"] == "tool"
    reminder = after_write["content"].split(BLOCK_OPEN, 1)[1]
    assert "Your todo list: 0 of 3 done, 1 in progress, 2 pending" in reminder
    assert "[>] Doing A\n[ ] Do B\n[ ] Do C" in reminder
    assert NUDGE not in reminder

    # One read: below the threshold of 2.
    assert requests[2][-1]["role"] == "tool"
    assert "step notes" in requests[2][-1]["content"]
    assert NUDGE not in text_of(requests[2])

    # Two reads without the todo tool: the nudge appears, beside the list.
    nudged = requests[3][-1]["content"]
    assert "step notes" in nudged
    assert "[>] Doing A" in nudged
    assert f"{NUDGE} for the last 2 tool calls" in nudged

    # The todo tool ran again: the list shows the new statuses and the nudge is gone.
    updated = requests[4][-1]["content"]
    assert "Your todo list: 1 of 3 done, 1 in progress, 1 pending" in updated
    assert "[x] Do A\n[>] Doing B\n[ ] Do C" in updated
    assert NUDGE not in updated

    # Next turn, first request: the last message is the prompt, so the reminder is its own
    # message (role user), marked ephemeral.
    opening = requests[5]
    assert opening[-2]["role"] == "user"
    assert opening[-2]["content"] == "carry on"
    assert opening[-1]["role"] == "user"
    assert opening[-1]["content"].startswith(BLOCK_OPEN)
    assert "[>] Doing B" in opening[-1]["content"]
    assert opening[-1]["metadata"]["ephemeral"] is True

    # Nothing of it was stored in the conversation.
    assert BLOCK_OPEN not in text_of(stored)
    stored_tools = [m["content"] for m in stored if m.get("role") == "tool"]
    assert len(stored_tools) == 4
    assert requests[1][-1]["content"].startswith(stored_tools[0])
    assert session.coordinator.todo_state[1]["status"] == "in_progress"  # type: ignore[attr-defined]


async def test_no_nudge_when_the_session_has_no_todo_tool(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("step notes\n")
    provider = ScriptedProvider([READ, READ, READ, {"text": "read it three times"}])
    session = AgentSession(
        bundle({"nudge_after": 1}),
        workspace=workspace,
        provider=provider,
        tools={"read_file": ReadFileTool(workspace)},
        strict=True,
    )
    async with session:
        outcome = await session.run("read the notes")
    assert outcome.response == "read it three times"
    assert sorted(session.tools) == ["read_file"]
    assert len(provider.requests) == 4
    assert all(BLOCK_OPEN not in text_of(sent(r)) for r in provider.requests)


async def test_nudge_without_a_list_in_a_session(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("step notes\n")
    provider = ScriptedProvider([READ, {"text": "read it"}])
    config = {"nudge_after": 1, "nudge_text": "Plan with the todo tool ({count} calls so far)."}
    session = AgentSession(bundle(config), workspace=workspace, provider=provider, strict=True)
    async with session:
        await session.run("read the notes")
    assert BLOCK_OPEN not in text_of(sent(provider.requests[0]))
    last = sent(provider.requests[1])[-1]
    assert last["role"] == "tool"
    assert "Plan with the todo tool (1 calls so far)." in last["content"]
    assert "Your todo list" not in last["content"]
