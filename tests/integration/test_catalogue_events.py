"""Every event of the catalogue fires for real in sessions, with the data docs/events.md promises.

One scenario drives sessions composed of our modules through everything a user can meet: a
module that is missing and one whose ``on_session_ready`` fails, instruction files and an
``@file`` mention, the Anthropic provider module talking to a loopback server that fails and
throttles before answering, a model switch to a scripted provider that thinks, the file tools,
the todo tool, an unknown tool, approvals granted and denied, a cancel in the middle of a tool
batch and the repair of its history, compaction, a provider error, a checkpoint, a resume and a
fork. The test fails when an event of ``ALL_EVENTS`` never fires or fires without the keys its
catalogue entry requires.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession
from amplifier_hooks_testsupport.loopback import (
    AnthropicApi,
    LoopbackServer,
    anthropic_error,
    anthropic_message,
)

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.catalogue import validate_event_data
from amplifier_core.display import RecordingDisplay
from amplifier_core.events import ALL_EVENTS
from amplifier_core.models import HookResult
from amplifier_module_provider_scripted import ScriptedProvider

from .support import make_bundle, module


class Seen:
    """Every (event, data) pair of every session it is attached to."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def attach(self, session: AgentSession) -> None:
        session.coordinator.hooks.register(
            "*", lambda e, d: self.events.append((e, dict(d))), priority=10**6, name="seen"
        )

    @property
    def names(self) -> set[str]:
        return {name for name, _ in self.events}


def _ready_failing_module(root: Path) -> Path:
    package = root / "modules-src" / "amplifier_module_hooks_readyfail"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(
            """
            def mount(coordinator, config):
                return None

            async def on_session_ready(coordinator):
                raise RuntimeError("not ready today")
            """
        )
    )
    return package.parent


def _gate(event: str, data: dict[str, Any]) -> HookResult:
    command = data["tool_input"].get("command", "")
    if command.startswith("echo gated"):
        return HookResult(action="ask_user", approval_prompt=f"Run {command}?")
    return HookResult()


def _todo(status: str) -> dict[str, Any]:
    item = {"content": "read", "status": status, "activeForm": "Reading"}
    return {"name": "todo", "input": {"action": "write", "todos": [item]}}


THINKING_SCRIPT: list[Any] = [
    {
        "thinking": "The user wants the notes, a plan and two commands.",
        "tool_calls": [
            {"name": "read_file", "input": {"file_path": "notes.txt"}},
            {
                "name": "edit_file",
                "input": {"file_path": "notes.txt", "old_string": "the", "new_string": "my"},
            },
            _todo("in_progress"),
            _todo("completed"),
            {"name": "no_such_tool", "input": {}},
            {"name": "bash", "input": {"command": "echo gated yes"}},
            {"name": "bash", "input": {"command": "echo gated no"}},
        ],
    },
    {"text": "Read @notes.txt and planned."},
    {
        "tool_calls": [
            {"name": "bash", "input": {"command": "echo cancel me"}},
            {"name": "bash", "input": {"command": "echo never runs"}},
        ]
    },
    {"text": "After the cancel."},
    {"error": "the scripted model is unavailable"},
]


async def _scenario(tmp_path: Path) -> Seen:
    """Run every session of the scenario; what they fired."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Be brief.\n")
    (workspace / "notes.txt").write_text("the notes\n")
    hooks = [
        {
            "module": "hooks-not-installed-anywhere",
            "source": "amplifier_module_hooks_not_installed_anywhere:mount",
            "optional": True,
        },
        {
            "module": "hooks-readyfail",
            "source": str(_ready_failing_module(tmp_path)),
            "optional": True,
        },
        {  # observe mode: its would-have decisions fire hook:observed
            **module("hooks-approval", {"audit_log": None}),
            "observe": True,
        },
    ]
    approvals = StaticApprovalSystem("deny", rules=[("Run echo gated yes?*", "allow")])
    seen = Seen()
    api = AnthropicApi(
        [
            anthropic_error(500, "api_error", "try again"),
            anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "0"}),
            anthropic_message(
                "",
                [
                    (
                        "toolu_1",
                        "write_file",
                        {"file_path": "AGENTS.md", "content": "Be brief.\nBe kind.\n"},
                    )
                ],
            ),
            anthropic_message("Updated the instructions."),
        ]
    )
    async with LoopbackServer(api) as server:
        http = module(
            "provider-anthropic",
            {
                "model": "claude-loopback",
                "api_key": "test-key",
                "base_url": server.url,
                "max_retries": 3,
                "backoff_base": 0.001,
                "backoff_max": 0.002,
            },
        )
        bundle = make_bundle(
            session={"context_max_tokens": 400, "raw": True}, providers=[http], hooks=hooks
        )
        session = AgentSession(
            bundle,
            workspace=workspace,
            approval_system=approvals,
            display_system=RecordingDisplay(),
        )
        seen.attach(session)
        session.coordinator.hooks.register("tool:pre", _gate, name="gate")
        await session.start()
        first = await session.run("Add a line to the instructions")
        assert first.status == "completed", first

    scripted = ScriptedProvider(THINKING_SCRIPT)
    await session.switch_model("scripted-thinker", provider=scripted, reason="user")
    second = await session.run("Look at @notes.txt and make a plan")
    assert second.status == "completed", second

    async def cancel_on_first(event: str, data: dict[str, Any]) -> None:
        if data["tool_input"].get("command") == "echo cancel me":
            await session.cancel()

    session.coordinator.hooks.register("tool:pre", cancel_on_first, name="canceller")
    third = await session.run("Run two commands")
    assert third.status == "cancelled"
    fourth = await session.run("Carry on")  # repairs the unanswered second call
    assert fourth.status == "completed", fourth
    fifth = await session.run("One more")
    assert fifth.status == "error"

    child = await session.fork(start=False)
    seen.attach(child)
    await child.start()
    await child.close()
    checkpoint = await session.checkpoint()
    conversation = await session.context.get_messages()
    await session.close()

    resumed = await AgentSession.resume(
        checkpoint, bundle, start=False, workspace=workspace, provider=ScriptedProvider(["hi"])
    )
    seen.attach(resumed)
    await resumed.start()
    assert len(await resumed.context.get_messages()) == len(conversation)
    assert (await resumed.run("Still there?")).response == "hi"
    await resumed.close()
    return seen


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Seen:
    """The events of one run of the scenario, in a home of its own."""
    root = tmp_path_factory.mktemp("catalogue")
    with pytest.MonkeyPatch.context() as patch:
        (root / "home").mkdir()
        patch.setenv("HOME", str(root / "home"))
        patch.delenv("AMPLIFIER_HOME", raising=False)
        return asyncio.run(_scenario(root))


def test_every_catalogue_event_fires(seen: Seen) -> None:
    missing = sorted(set(ALL_EVENTS) - seen.names)
    assert missing == [], f"events that never fired: {missing}"


def test_every_catalogue_event_carries_its_documented_data(seen: Seen) -> None:
    problems = sorted(
        {problem for name, data in seen.events for problem in validate_event_data(name, data)}
    )
    assert problems == [], "events fired without their documented data:\n" + "\n".join(problems)
