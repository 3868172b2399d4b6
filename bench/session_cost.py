"""The session runtime's own cost per tool call, in one run, three ways.

1. no hooks mounted;
2. the reference bundle (hooks-redaction, hooks-template, hooks-logging writing to a temp dir);
3. ten no-op handlers on every event (``*``).

Each turn is one provider request asking for one tool call, the tool, and a final answer, with
a scripted provider and an in-process tool, so what is measured is the session itself: events,
hook dispatch, result processing, context bookkeeping. A checkpoint per turn is switched off.

    python bench/session_cost.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from amplifier_core.bundle import parse_bundle
from amplifier_core.models import HookResult
from amplifier_core.providers import ScriptedProvider
from amplifier_core.session import AmplifierSession
from amplifier_core.testing import MockTool

CONTINUE = HookResult()
REFERENCE = """\
session: {{checkpoint_every_turn: false, context_max_tokens: null}}
hooks:
  - module: hooks-redaction
  - module: hooks-template
  - module: hooks-logging
    config: {{path: "{logs}/{{session_id}}.jsonl"}}
"""


async def _noop(event: str, data: dict[str, Any]) -> HookResult:
    return CONTINUE


async def _measure(workspace: Path, bundle_text: str, calls: int, noop_handlers: int) -> float:
    script: list[Any] = []
    for i in range(calls):
        script.append({"tool_calls": [{"name": "echo", "input": {"text": f"call {i}"}}]})
        script.append({"text": f"answer {i}"})
    session = AmplifierSession(
        parse_bundle(bundle_text, "bench.yaml"),
        workspace=workspace,
        provider=ScriptedProvider(script),
        tools={"echo": MockTool("echo", "ok")},
    )
    for index in range(noop_handlers):
        session.coordinator.hooks.register("*", _noop, name=f"noop-{index}")
    async with session:
        await session.run("warm up")  # first turn: imports, caches
        session.context.max_tokens = None
        started = time.perf_counter()
        for i in range(1, calls):
            await session.run(f"turn {i}")
            await session.context.clear()  # keep every turn the same size
        elapsed = time.perf_counter() - started
    return elapsed / (calls - 1)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        plain = "session: {checkpoint_every_turn: false}\n"
        reference = REFERENCE.format(logs=root / "logs")
        rows = [
            ("no hooks", await _measure(root, plain, args.calls, 0)),
            ("reference bundle", await _measure(root, reference, args.calls, 0)),
            ("10 no-op hooks per event", await _measure(root, plain, args.calls, 10)),
        ]
    base = rows[0][1]
    print(f"session cost per tool call ({args.calls} turns, one tool call each)")
    print(f"{'setup':<28}{'us/call':>12}{'x no hooks':>12}")
    for name, seconds in rows:
        print(f"{name:<28}{seconds * 1e6:>12.1f}{seconds / base:>12.2f}")


if __name__ == "__main__":
    asyncio.run(main())
