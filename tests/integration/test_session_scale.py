"""Many sessions in one process: each starts in about the time of a bare one, none loses a
record, none sees another's data.

Sessions are started the way Amplifier's application and a server embedding the kernel start
them (``AmplifierSession(plan)`` + ``initialize()``): loop-session, context-simple,
hooks-redaction and hooks-logging, a provider answering from a script and a tool whose
every result holds the session's own GitHub token and a marker naming the session.

The start-up bound is a ratio of CPU times measured in this very process, never an absolute
time; see :data:`START_RATIO`.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import secrets
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import AmplifierSession, ToolResult
from amplifier_core.message_models import ChatResponse, TextBlock, ToolCall, Usage

pytestmark = [pytest.mark.slow, pytest.mark.cpu_timing]

SESSIONS = 200
CALLS = 5
STARTS = 41  # sessions of each kind timed one after another for the start-up ratio

START_RATIO = 30.0
"""How many times a bare session's CPU time a session with hooks-redaction and hooks-logging
may take to start (median of :data:`STARTS` each, started alternately, after the first).

Measured on the 2-core reference machine under a load of about 10: 2.5x (0.9 to 1.1 ms of
CPU against 0.36 to 0.44 ms); the first session of the process compiles the redaction engine
(about a second) and is not counted. When every mount built its own engine (hooks-redaction
one, hooks-logging another, each about half a second of CPU) and every session read all
installed distributions' metadata (about 10 ms), a later session took about 50x to 100x a
bare one, and it would take about 1,000x with the metadata kept but the engine built again.
30x leaves more than ten times the measured ratio for a slow machine and still fails every
one of those. CPU time
(``time.process_time``), not wall time: a busy machine delays a process but hardly changes
the CPU it spends, and both kinds are measured alternately, so a busy moment falls on both;
medians drop a collection or a slow moment on one sample."""

_TOKEN = re.compile(r"ghp_[A-Za-z0-9]{36}")
_MARK = re.compile(r"mark-(\d+)-(\d+)")
_USAGE = Usage(input_tokens=1, output_tokens=1, total_tokens=2)


class ScriptProvider:
    name = "script"

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.served = 0

    async def complete(self, request: Any, **kwargs: Any) -> ChatResponse:
        self.served += 1
        if self.served <= self.calls:
            call = ToolCall(id=f"c{self.served}", name="probe", arguments={"n": self.served})
            return ChatResponse(content=[], tool_calls=[call], usage=_USAGE)
        return ChatResponse(content=[TextBlock(text="done")], usage=_USAGE)

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return response.tool_calls or []


class TokenTool:
    name = "probe"
    description = "returns a credential"
    input_schema: dict[str, Any] = {"type": "object"}  # noqa: RUF012

    def __init__(self, number: int, token: str) -> None:
        self.number = number
        self.token = token

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        mark = f"mark-{self.number}-{input.get('n')}"
        return ToolResult(success=True, output=f"{mark} export GITHUB_TOKEN={self.token}")


def _plan(workspace: Path, hooks: bool) -> dict[str, Any]:
    entries = (
        [
            {"module": "hooks-redaction", "config": {}},
            {"module": "hooks-logging", "config": {"path": str(workspace / "{session_id}.jsonl")}},
        ]
        if hooks
        else []
    )
    return {
        "session": {
            "orchestrator": {
                "module": "loop-session",
                "config": {"checkpoint_every_turn": False, "working_dir": str(workspace)},
            },
            "context": {"module": "context-simple", "config": {}},
        },
        "providers": [],
        "tools": [],
        "hooks": entries,
    }


async def _start_cpu(plan: dict[str, Any], workspace: Path) -> float:
    session = AmplifierSession(plan)
    session.coordinator.register_capability("session.working_dir", str(workspace))
    started = time.process_time()
    await session.initialize()
    spent = time.process_time() - started
    await session.cleanup()
    return spent


async def test_a_session_with_hooks_starts_within_a_bound_of_a_bare_one(workspace: Path) -> None:
    hooked, bare = _plan(workspace, hooks=True), _plan(workspace, hooks=False)
    await _start_cpu(bare, workspace)  # imports
    await _start_cpu(hooked, workspace)  # imports, and the process's one engine
    samples: dict[bool, list[float]] = {True: [], False: []}
    gc.collect()
    for _ in range(STARTS):
        for kind in (True, False):
            samples[kind].append(await _start_cpu(hooked if kind else bare, workspace))
    with_hooks, without = statistics.median(samples[True]), statistics.median(samples[False])
    ratio = with_hooks / without
    assert ratio <= START_RATIO, (
        f"a session with hooks-redaction and hooks-logging took {with_hooks * 1e3:.2f} ms of "
        f"CPU to start, {ratio:.1f}x a bare session's {without * 1e3:.2f} ms "
        f"(bound {START_RATIO}x): something is built again for every session"
    )


async def _run(number: int, token: str, plan: dict[str, Any], workspace: Path) -> None:
    session = AmplifierSession(plan, session_id=f"s{number:04d}")
    session.coordinator.register_capability("session.working_dir", str(workspace))
    await session.initialize()
    provider = ScriptProvider(CALLS)
    await session.coordinator.mount("providers", provider, name="script")
    await session.coordinator.mount("tools", TokenTool(number, token), name="probe")
    answer = await session.execute("go")
    await session.cleanup()
    assert answer == "done", f"session {number}: {answer!r}"
    assert provider.served == CALLS + 1


async def test_many_sessions_at_once_lose_nothing_and_cross_nothing(workspace: Path) -> None:
    plan = _plan(workspace, hooks=True)
    tokens = ["ghp_" + secrets.token_hex(18) for _ in range(SESSIONS)]
    await asyncio.gather(*(_run(n, token, plan, workspace) for n, token in enumerate(tokens)))
    for number in range(SESSIONS):
        text = (workspace / f"s{number:04d}.jsonl").read_text(encoding="utf-8")
        assert _TOKEN.search(text) is None, f"s{number:04d}: a raw token in its log"
        events = [json.loads(line)["event"] for line in text.splitlines()]
        assert events.count("tool:post") == CALLS, f"s{number:04d}: {events}"
        assert "[REDACTED:github_token]" in text
        marks = {(int(a), int(b)) for a, b in _MARK.findall(text)}
        assert {a for a, _ in marks} == {number}, f"s{number:04d}: another session's marker"
        assert {b for _, b in marks} == set(range(1, CALLS + 1)), f"s{number:04d}: {marks}"
