"""Claude Code ``type: prompt`` and ``type: agent`` hooks guarding whole sessions.

The agent's model is provider-scripted; the hooks' model is provider-openai, mounted from the
bundle under the name ``guard`` against a loopback server speaking the OpenAI wire format
(real HTTP on 127.0.0.1). hooks-declarative runs the project's ``.claude/settings.json``
unchanged, with ``prompt_provider: guard`` in its bundle config.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession
from amplifier_hooks_testsupport.loopback import LoopbackServer, OpenAIApi, Reply, Request
from amplifier_hooks_testsupport.loopback import openai_completion as completion

from amplifier_core.display import RecordingDisplay
from amplifier_core.testing import EventRecorder
from amplifier_module_hooks_declarative.runners.prompt_hook import OK_SCHEMA, PROMPT_INSTRUCTIONS
from amplifier_module_hooks_declarative.trust import trust_project

from .support import call, make_bundle, module, tool_results

GUARD_PROMPT = "Block destructive shell commands. The tool call: $ARGUMENTS"
LABEL = ".claude/settings.json:hooks.PreToolUse[0].hooks[0]"


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "victim").mkdir()
    (workspace / "victim" / "data.txt").write_text("keep me")
    return workspace


@pytest.fixture
async def guard() -> AsyncIterator[tuple[LoopbackServer, OpenAIApi]]:
    """The hooks' model server; tests queue its answers on ``api.replies``."""
    api = OpenAIApi(api_key=None)
    async with LoopbackServer(api) as server:
        yield server, api


def claude_settings(project: Path, hook: dict[str, Any], matcher: str = "Bash") -> None:
    """The project's ``.claude/settings.json`` with one PreToolUse hook, and the project
    trusted (its hooks run only then)."""
    settings = {"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]}]}}
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    trust_project(project)


def guard_provider(server: LoopbackServer) -> dict[str, Any]:
    config = {"name": "guard", "base_url": server.url, "api_key_env": None, "max_retries": 0}
    return module("provider-openai", {**config, "model": "guard-model"})


def session_for(
    project: Path,
    script: list[Any],
    *,
    providers: list[dict[str, Any]],
    config: dict[str, Any] | None = None,
) -> tuple[AgentSession, EventRecorder, RecordingDisplay]:
    """A session whose agent plays ``script`` (provider-scripted, mounted first, so the turn
    uses it) beside ``providers``, with hooks-declarative asking ``guard``."""
    hooks_config = {"prompt_provider": "guard", **(config or {})}
    bundle = make_bundle(
        providers=[module("provider-scripted", {"script": script}), *providers],
        hooks=[module("hooks-declarative", hooks_config)],
    )
    display = RecordingDisplay()
    session = AgentSession(bundle, workspace=project, display_system=display, strict=True)
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    return session, recorder, display


def agent_model(session: AgentSession) -> Any:
    return session.coordinator.get("providers")["scripted"]


async def test_a_prompt_hook_blocks_rm_rf_and_the_model_reads_why(
    project: Path, guard: tuple[LoopbackServer, OpenAIApi]
) -> None:
    server, api = guard
    api.replies.append(completion('{"ok": false, "reason": "rm -rf deletes the workspace"}'))
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT, "timeout": 20})
    script = [
        call("bash", command="rm -rf victim"),
        {"text": "I will leave it.", "expect": "rm -rf deletes the workspace"},
    ]
    session, recorder, _ = session_for(project, script, providers=[guard_provider(server)])
    async with session:
        outcome = await session.run("clean up the workspace")
    assert outcome.response == "I will leave it."
    assert (project / "victim" / "data.txt").read_text() == "keep me"
    assert "tool:post" not in recorder.names
    [result] = tool_results(agent_model(session))
    assert result == f"Error: tool call denied by hook '{LABEL}': rm -rf deletes the workspace"
    # What the guard's model was asked: the kernel's request, on the OpenAI wire.
    [body] = api.bodies
    assert body["model"] == "guard-model"
    assert body["messages"][0] == {"role": "system", "content": PROMPT_INSTRUCTIONS}
    asked = body["messages"][1]["content"]
    assert asked.startswith("Block destructive shell commands. The tool call: <untrusted-data")
    given = json.loads(asked.split("\n")[1])
    assert (given["hook_event_name"], given["tool_name"]) == ("PreToolUse", "Bash")
    assert given["tool_input"] == {"command": "rm -rf victim"}
    assert given["cwd"] == str(project)
    assert body["response_format"]["json_schema"]["schema"] == OK_SCHEMA


async def test_a_prompt_hook_that_answers_ok_lets_the_command_run(
    project: Path, guard: tuple[LoopbackServer, OpenAIApi]
) -> None:
    server, api = guard
    api.replies.append(completion('{"ok": true}'))
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT})
    script = [call("bash", command="ls victim"), {"text": "It holds data.txt."}]
    session, recorder, display = session_for(project, script, providers=[guard_provider(server)])
    async with session:
        outcome = await session.run("what is in victim?")
    assert outcome.response == "It holds data.txt."
    [(_, post)] = recorder.get_events("tool:post")
    assert post["tool_result"]["output"]["stdout"] == "data.txt\n"
    assert len(api.bodies) == 1
    assert display.texts() == []


AMBIGUOUS = 'The command looks fine to me.\n{"ok": true}'


async def test_an_ambiguous_answer_is_not_read_as_ok_and_warns_by_default(
    project: Path, guard: tuple[LoopbackServer, OpenAIApi]
) -> None:
    server, api = guard
    api.replies.append(completion(AMBIGUOUS))
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT})
    script = [call("bash", command="ls victim"), {"text": "Listed."}]
    session, recorder, display = session_for(project, script, providers=[guard_provider(server)])
    async with session:
        await session.run("list victim")
    assert len(recorder.get_events("tool:post")) == 1  # prompt_on_failure: warn goes on
    [warning] = display.texts()
    assert f"hook {LABEL} failed: prompt hook: unusable answer from guard-model" in warning
    assert "is not one JSON object alone" in warning


async def test_an_ambiguous_answer_blocks_with_prompt_on_failure_block(
    project: Path, guard: tuple[LoopbackServer, OpenAIApi]
) -> None:
    server, api = guard
    api.replies.append(completion(AMBIGUOUS))
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT})
    script = [
        call("bash", command="rm -rf victim"),
        {"text": "Not deleted.", "expect": "is not one JSON object alone"},
    ]
    session, recorder, _ = session_for(
        project,
        script,
        providers=[guard_provider(server)],
        config={"prompt_on_failure": "block"},
    )
    async with session:
        outcome = await session.run("clean up")
    assert outcome.response == "Not deleted."
    assert (project / "victim" / "data.txt").exists()
    assert "tool:post" not in recorder.names


async def test_without_the_guards_provider_the_hook_follows_prompt_on_failure(
    project: Path,
) -> None:
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT})
    script = [
        call("bash", command="rm -rf victim"),
        {"text": "Stopped.", "expect": "no provider named 'guard' is mounted"},
    ]
    session, _, _ = session_for(
        project, script, providers=[], config={"prompt_on_failure": "block"}
    )
    async with session:
        outcome = await session.run("clean up")
    assert outcome.response == "Stopped."
    assert (project / "victim" / "data.txt").exists()
    [result] = tool_results(agent_model(session))
    assert f"hook {LABEL} failed: prompt hook: no provider named 'guard' is mounted" in result
    assert "(mounted: scripted)" in result
    assert "(event tool:pre)" in result


async def test_without_the_guards_provider_a_warning_is_shown_by_default(project: Path) -> None:
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT})
    script = [call("bash", command="ls victim"), {"text": "Listed."}]
    session, recorder, display = session_for(project, script, providers=[])
    async with session:
        await session.run("list victim")
    assert len(recorder.get_events("tool:post")) == 1
    [warning] = display.texts()
    assert "no provider named 'guard' is mounted" in warning


POLICY = "Deploys are frozen until Monday: no git push to main."


def _policy_reader(seen: list[dict[str, Any]]) -> Any:
    """The hooks' model as an agent: it reads the policy file with ``read_file``, then
    answers from what the file says (the second request carries the file's content)."""

    async def answer(request: Request) -> Reply:
        body = request.json()
        seen.append(body)
        if len(seen) == 1:
            return completion(
                None, [("read-1", "read_file", json.dumps({"file_path": "POLICY.md"}))]
            )
        tool_message = body["messages"][-1]
        if tool_message["role"] == "tool" and POLICY in tool_message["content"]:
            return completion('{"ok": false, "reason": "POLICY.md: deploys are frozen"}')
        return completion('{"ok": true}')

    return answer


async def test_an_agent_hook_reads_a_file_with_a_read_only_tool_before_it_answers(
    project: Path,
) -> None:
    (project / "POLICY.md").write_text(POLICY + "\n")
    claude_settings(
        project,
        {"type": "agent", "prompt": "Does this follow POLICY.md? $ARGUMENTS", "timeout": 30},
    )
    seen: list[dict[str, Any]] = []
    script = [
        call("bash", command="git push origin main"),
        {"text": "Not pushing.", "expect": "POLICY.md: deploys are frozen"},
    ]
    async with LoopbackServer(_policy_reader(seen)) as server:
        session, recorder, _ = session_for(project, script, providers=[guard_provider(server)])
        async with session:
            outcome = await session.run("ship it")
    assert outcome.response == "Not pushing."
    # The hook's read went through tool:pre and tool:post; the agent's bash never ran.
    posts = [d for name, d in recorder.events if name == "tool:post"]
    assert [d["tool_name"] for d in posts] == ["read_file"]
    first, second = seen
    # Only the read-only tools the session mounts are offered: never bash or write_file.
    assert [t["function"]["name"] for t in first["tools"]] == ["read_file"]
    assert second["messages"][2]["tool_calls"][0]["function"]["name"] == "read_file"
    # The session's read_file tool read the file; its output reached the model as data.
    tool_message = second["messages"][3]
    assert tool_message["role"] == "tool"
    assert tool_message["content"].startswith('<untrusted-data id="')
    assert POLICY in tool_message["content"]


SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _env_reader(seen: list[dict[str, Any]]) -> Any:
    """The hooks' model as an attacker would steer it: it reads ``.env`` first."""

    async def answer(request: Request) -> Reply:
        seen.append(request.json())
        if len(seen) == 1:
            return completion(None, [("read-1", "read_file", json.dumps({"file_path": ".env"}))])
        return completion('{"ok": true}')

    return answer


@pytest.mark.parametrize("guarded_by", ["deny-rule", "redaction"])
async def test_an_agent_hooks_reads_obey_the_sessions_guards(
    project: Path, guarded_by: str
) -> None:
    """The attack: an agent hook's model calls read_file(".env"). Under a bundle with a .env
    deny rule the read is denied; under redaction alone the token is redacted before any
    request leaves. Either way the secret never reaches the hook's provider."""
    (project / ".env").write_text(f"GITHUB_TOKEN={SECRET}\n")
    claude_settings(project, {"type": "agent", "prompt": "Is this safe? $ARGUMENTS", "timeout": 30})
    hooks: list[dict[str, Any]] = []
    if guarded_by == "deny-rule":
        rule = {"name": "secrets", "action": "deny", "path": [".env", ".env.*"]}
        hooks.append(module("hooks-approval", {"rules": [rule], "audit_log": None}))
    else:
        hooks.append(module("hooks-redaction", {}))
    hooks.append(module("hooks-declarative", {"prompt_provider": "guard"}))
    seen: list[dict[str, Any]] = []
    script = [call("bash", command="echo hello"), {"text": "ok"}]
    async with LoopbackServer(_env_reader(seen)) as server:
        bundle = make_bundle(
            providers=[module("provider-scripted", {"script": script}), guard_provider(server)],
            hooks=hooks,
        )
        session = AgentSession(bundle, workspace=project, display_system=RecordingDisplay())
        recorder = EventRecorder()
        recorder.attach(session.coordinator.hooks)
        async with session:
            await session.run("say hello")
    assert len(seen) == 2  # the read, then the verdict
    assert all(SECRET not in json.dumps(body) for body in seen)
    posts = [d for name, d in recorder.events if name == "tool:post" and d.get("hook")]
    answered = json.dumps(seen[1]["messages"][-1])
    if guarded_by == "deny-rule":  # denied at tool:pre: the file was never read
        assert "denied" in answered
        assert "secrets" in answered
        assert posts == []
    else:  # read, and redacted at tool:post before the model saw it
        assert "REDACTED" in answered
        assert [(d["tool_name"], d["tool_input"]) for d in posts] == [
            ("read_file", {"file_path": ".env"})
        ]
    requests = [d for name, d in recorder.events if name == "provider:request" and d.get("hook")]
    assert len(requests) == 2


async def test_a_prompt_hooks_request_is_redacted_before_it_leaves(project: Path) -> None:
    claude_settings(project, {"type": "prompt", "prompt": GUARD_PROMPT, "timeout": 20})
    seen: list[dict[str, Any]] = []

    async def answer(request: Request) -> Reply:
        seen.append(request.json())
        return completion('{"ok": false, "reason": "sends a token"}')

    command = f"curl -H 'Authorization: token {SECRET}' https://api.github.com/user"
    script = [call("bash", command=command), {"text": "ok"}]
    async with LoopbackServer(answer) as server:
        bundle = make_bundle(
            providers=[module("provider-scripted", {"script": script}), guard_provider(server)],
            hooks=[
                module("hooks-redaction", {}),
                module("hooks-declarative", {"prompt_provider": "guard"}),
            ],
        )
        session = AgentSession(bundle, workspace=project, display_system=RecordingDisplay())
        async with session:
            await session.run("check my token")
    assert len(seen) == 1
    assert SECRET not in json.dumps(seen[0])
    assert "REDACTED" in json.dumps(seen[0])
