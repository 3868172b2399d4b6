"""LLM hook latency: answers from the cache versus calls to the model, in one run.

    python bench/llm_hook.py [--misses 300] [--hits 5000] [--json PATH]

A loopback HTTP server speaking the Anthropic Messages API runs in the same process and event
loop (127.0.0.1, keep-alive), so a miss costs the whole real path, with no network and no model
time: render the prompt, build the request, POST it through the provider-anthropic module
mounted as ``guard`` (httpx), read and parse the answer, decide. A hit renders the prompt,
computes the cache key and re-reads the cached answer. Misses use a different tool argument
each time (each a cache miss); hits repeat one already answered. The number of requests the
server received is checked against the number of misses, so no hit is secretly a call.

Prints the median (and p90) latency of each in microseconds, and the ratio miss / hit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    from amplifier_module_hooks_declarative.runners.llm import LlmRunner
    from amplifier_module_hooks_declarative.specs import LlmHookSpec
    from amplifier_module_hooks_declarative.types import HookContext
    from amplifier_module_provider_anthropic import AnthropicConfig, AnthropicProvider
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e util -e provider-base -e core -e modules/hooks-declarative "
        "-e modules/provider-anthropic"
    )

ANSWER = '{"safe": false, "reason": "removes files outside the project"}'
PROMPT = (
    "Evaluate if this tool use is safe:\nTool: {{tool}}\nArgs: {{args}}\n"
    'Respond with JSON: {"safe": true/false, "reason": "..."}'
)


class MessagesApi:
    """A keep-alive HTTP/1.1 server answering every ``POST /v1/messages`` with ``ANSWER``."""

    def __init__(self) -> None:
        self.requests = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                request = json.loads(await reader.readexactly(length))
                self.requests += 1
                body = json.dumps(
                    {
                        "id": "msg_bench",
                        "type": "message",
                        "role": "assistant",
                        "model": request["model"],
                        "content": [{"type": "text", "text": ANSWER}],
                        "stop_reason": "end_turn",
                        "usage": {"input_tokens": 40, "output_tokens": 14},
                    }
                ).encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    + f"content-length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # client gone, or the loop is shutting down
        finally:
            writer.close()


def context(command: str) -> HookContext:
    args = {"command": command, "description": "clean the build directory"}
    return HookContext(
        event="tool:pre",
        alias="PreToolUse",
        data={"tool_name": "Bash", "tool_input": args, "tool_call_id": "call_1"},
        session_id="bench",
        project_dir="/project",
        tool="Bash",
        args=args,
    )


async def timed(runner: LlmRunner, ctx: HookContext) -> float:
    started = time.perf_counter_ns()
    decision = await runner.run(ctx)
    elapsed = (time.perf_counter_ns() - started) / 1000
    if decision.action != "block":
        raise SystemExit(f"unexpected decision {decision!r}: the benchmark is broken")
    return elapsed


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_us": statistics.median(ordered),
        "p90_us": ordered[int(len(ordered) * 0.9) - 1],
        "min_us": ordered[0],
        "count": len(ordered),
    }


async def measure(misses: int, hits: int) -> dict[str, Any]:
    api = MessagesApi()
    url = await api.start()
    spec = LlmHookSpec(
        type="llm",
        model="claude-3-haiku",
        prompt=PROMPT,
        cache=True,
        cache_size=misses + 16,
        provider="guard",
    )
    config = AnthropicConfig(name="guard", base_url=url, api_key="bench-key", max_retries=0)
    guard = AnthropicProvider(config)
    runner = LlmRunner(spec, label="bench", providers=lambda: {"guard": guard})
    try:
        for warm in range(20):  # connection pool, imports, first-call costs
            await timed(runner, context(f"warm-up {warm}"))
        before = api.requests
        miss_samples = [await timed(runner, context(f"rm -rf build/{n}")) for n in range(misses)]
        calls = api.requests - before
        if calls != misses:
            raise SystemExit(f"{calls} requests for {misses} misses: the benchmark is broken")
        repeated = context("rm -rf build/0")
        hit_samples = [await timed(runner, repeated) for _ in range(hits)]
        if api.requests != before + misses:
            raise SystemExit("a cache hit reached the server: the benchmark is broken")
    finally:
        await guard.aclose()
        await api.stop()
    miss, hit = summary(miss_samples), summary(hit_samples)
    return {
        "miss": miss,
        "hit": hit,
        "ratio_median_miss_over_hit": miss["median_us"] / hit["median_us"],
        "server_requests": api.requests,
        "python": sys.version.split()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", type=int, default=300, help="calls that reach the server")
    parser.add_argument("--hits", type=int, default=5000, help="calls answered from the cache")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    options = parser.parse_args()
    result = asyncio.run(measure(options.misses, options.hits))
    miss, hit = result["miss"], result["hit"]
    print("LLM hook latency (loopback Anthropic Messages API, same process)")
    print(f"{'':6} {'median us':>10} {'p90 us':>10} {'min us':>10} {'calls':>7}")
    for name, figures in (("miss", miss), ("hit", hit)):
        print(
            f"{name:6} {figures['median_us']:>10.1f} {figures['p90_us']:>10.1f} "
            f"{figures['min_us']:>10.1f} {figures['count']:>7}"
        )
    print(f"miss / hit (median): {result['ratio_median_miss_over_hit']:.0f}x")
    print(f"server requests: {result['server_requests']} (20 warm-up + {options.misses} misses)")
    if options.json:
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
