"""Every event of the catalogue fires for real in sessions, with the data docs/events.md promises.

One scenario drives a session through everything a user can meet: a module that is missing
and one whose ``on_session_ready`` fails, instruction files and an ``@file`` mention, an HTTP
provider (a loopback server speaking the Anthropic Messages API) that throttles and fails
before answering, a model switch to a scripted provider that thinks, file tools, the todo
tool, an unknown tool, approvals granted and denied, a cancel in the middle of a tool batch
and the repair of its history, compaction, a provider error, a checkpoint, a resume and a
fork. The test fails when an event of ``ALL_EVENTS`` never fires or fires without the keys its
catalogue entry requires.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.bundle import parse_bundle
from amplifier_core.catalogue import validate_event_data
from amplifier_core.display import RecordingDisplay
from amplifier_core.events import ALL_EVENTS
from amplifier_core.models import HookResult
from amplifier_core.providers import AnthropicProvider, ScriptedProvider
from amplifier_core.session import AmplifierSession

from .loopback import AnthropicApi, LoopbackServer, anthropic_error, anthropic_message


class Seen:
    """Every (event, data) pair of every session it is attached to."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def attach(self, session: AmplifierSession) -> None:
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


async def test_every_catalogue_event_fires_with_its_documented_data(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Be brief.\n")
    (workspace / "notes.txt").write_text("the notes\n")
    source = _ready_failing_module(tmp_path)
    bundle = parse_bundle(
        textwrap.dedent(
            f"""
            session:
              context_max_tokens: 400
            hooks:
              - module: hooks-not-installed-anywhere
              - module: hooks-readyfail
                source: {source}
            """
        ),
        "bundle.yaml",
    )
    approvals = StaticApprovalSystem("deny", rules=[("Run echo gated yes?", "allow")])
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
        http = AnthropicProvider(
            "claude-loopback",
            api_key="test-key",
            base_url=server.url,
            max_retries=3,
            backoff_base=0.001,
            backoff_max=0.002,
        )
        session = AmplifierSession(
            bundle,
            workspace=workspace,
            provider=http,
            approval_system=approvals,
            display_system=RecordingDisplay(),
        )
        seen.attach(session)
        session.coordinator.hooks.register("tool:pre", _gate, name="gate")
        await session.start()
        first = await session.run("Add a line to the instructions")
        assert first.status == "completed", first

    scripted = ScriptedProvider(
        [
            {
                "thinking": "The user wants the notes, a plan and two commands.",
                "tool_calls": [
                    {"name": "read_file", "input": {"file_path": "notes.txt"}},
                    {
                        "name": "edit_file",
                        "input": {
                            "file_path": "notes.txt",
                            "old_string": "the",
                            "new_string": "my",
                        },
                    },
                    {
                        "name": "todo",
                        "input": {
                            "action": "write",
                            "todos": [
                                {
                                    "content": "read",
                                    "status": "in_progress",
                                    "activeForm": "Reading",
                                }
                            ],
                        },
                    },
                    {
                        "name": "todo",
                        "input": {
                            "action": "write",
                            "todos": [
                                {"content": "read", "status": "completed", "activeForm": "Reading"}
                            ],
                        },
                    },
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
    )
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
    await session.close()

    resumed = await AmplifierSession.resume(
        checkpoint, bundle, start=False, workspace=workspace, provider=ScriptedProvider(["hi"])
    )
    seen.attach(resumed)
    await resumed.start()
    assert len(resumed.context.messages) == len(session.context.messages)
    await resumed.close()

    missing = sorted(set(ALL_EVENTS) - seen.names)
    assert missing == [], f"events that never fired: {missing}"
    for name, data in seen.events:
        assert validate_event_data(name, data) == [], (name, data)
