"""Secrets on their way to the model and the log, with Amplifier's loop-basic, on any kernel.

``python leaks.py prompt|tool-result WORKDIR [REDACTION_CONFIG_JSON]`` composes a session of
Amplifier's loop-basic, context-simple, provider-mock and tool-bash with our hooks-redaction
(its config given as JSON) and hooks-logging, runs one prompt and prints one JSON line: every
request the provider received (as JSON text), the log file's text, and what the tool did. The
tests in ``test_leaks.py`` run it on our kernel and on amplifier-core 2.0.2 and look for the
secrets in both.

- ``prompt``: the user's prompt holds a GitHub token, and a hook of the session injects text
  holding a Slack token at ``prompt:submit`` (a hook's own output).
- ``tool-result``: the model asks bash to ``cat`` a file that holds a GitHub token, and a hook
  adds an ephemeral injection holding a Slack token at ``tool:post`` (loop-basic appends it to
  the next request after it has read the context: only the provider guard sees it).

provider-mock answers with text unless the last message says "read"; to have it ask for
``bash``, its ``complete`` is wrapped *in the class* before the session mounts it (so that
hooks-redaction's guard wraps this one, and the recording sees what the provider itself gets).
It ends with ``os._exit``: amplifier-core 2.0.2's engine may crash while the interpreter shuts
down.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession
from amplifier_core.message_models import ChatResponse, TextBlock, ToolCall, Usage
from amplifier_core.models import HookResult

# Secrets written for these tests, in the vendors' documented shapes.
GITHUB_TOKEN = "ghp_" + "Q7mZ2xK9pL4vR8sT1wY6uN3bE5cH0jD2fA7g"
SLACK_TOKEN = "xoxb-" + "2048193756-5829104736-Zk8Jq2Wm7Xp4Rt9Ys1Vn6Lc3"
PROMPT = f"My GitHub token is {GITHUB_TOKEN}; keep it in mind and say hello."
CAT_PROMPT = "please cat secret.txt"


def plan(workdir: Path, redaction: dict[str, Any]) -> dict[str, Any]:
    return {
        "session": {"orchestrator": "loop-basic", "context": "context-simple"},
        "orchestrator": {"config": {"max_iterations": 4}},
        "providers": [{"module": "provider-mock", "config": {"responses": ["done"]}}],
        "tools": [{"module": "tool-bash", "config": {"working_dir": str(workdir)}}],
        "hooks": [
            {"module": "hooks-logging", "config": {"path": str(workdir / "events.jsonl")}},
            {"module": "hooks-redaction", "config": redaction},
        ],
    }


def record_requests(requests: list[str]) -> None:
    """Wrap provider-mock's ``complete`` in its class: record each request as JSON text, and
    answer the ``cat`` prompt with a bash call."""
    from amplifier_module_provider_mock import MockProvider

    original = MockProvider.complete

    async def complete(self: Any, request: Any, **kwargs: Any) -> Any:
        requests.append(request.model_dump_json())
        last = request.messages[-1] if request.messages else None
        if last is not None and last.role == "user" and last.content == CAT_PROMPT:
            return ChatResponse(
                content=[TextBlock(text="reading it")],
                tool_calls=[
                    ToolCall(id="call_1", name="bash", arguments={"command": "cat secret.txt"})
                ],
                usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2),
            )
        return await original(self, request, **kwargs)

    MockProvider.complete = complete  # type: ignore[method-assign]


async def run(kind: str, workdir: Path, redaction: dict[str, Any]) -> dict[str, Any]:
    (workdir / "secret.txt").write_text(f"GITHUB_TOKEN={GITHUB_TOKEN}\n")
    requests: list[str] = []
    record_requests(requests)
    session = AmplifierSession(plan(workdir, redaction))
    session.coordinator.register_capability("session.working_dir", str(workdir))
    await session.initialize()
    tool_outputs: list[str] = []
    result_types: list[str] = []

    async def injecting(event: str, data: dict[str, Any]) -> HookResult:
        """A hook whose own output holds a secret (say, a status line it read somewhere)."""
        return HookResult(
            action="inject_context",
            context_injection=f"deploy bot token: {SLACK_TOKEN}",
            context_injection_role="user",
        )

    async def injecting_ephemeral(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(
            action="inject_context",
            context_injection=f"deploy bot token: {SLACK_TOKEN}",
            context_injection_role="user",
            ephemeral=True,
        )

    async def observe(event: str, data: dict[str, Any]) -> HookResult:
        tool_outputs.append(json.dumps(data.get("result"), default=str))
        result_types.append(type(data.get("result")).__name__)
        return HookResult()

    session.coordinator.hooks.register("tool:post", observe, priority=100, name="observe")
    if kind == "prompt":
        session.coordinator.hooks.register("prompt:submit", injecting, name="injecting")
    else:
        session.coordinator.hooks.register("tool:post", injecting_ephemeral, name="injecting")
    answer = await session.execute(PROMPT if kind == "prompt" else CAT_PROMPT)
    await session.cleanup()
    log = workdir / "events.jsonl"
    return {
        "answer": answer,
        "requests": requests,
        "log": log.read_text() if log.exists() else "",
        "tool_outputs": tool_outputs,
        "result_types": result_types,
        "secrets": [GITHUB_TOKEN, SLACK_TOKEN],
    }


if __name__ == "__main__":
    config = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    report = asyncio.run(run(sys.argv[1], Path(sys.argv[2]), config))
    print(json.dumps(report))
    sys.stdout.flush()
    os._exit(0)
