"""context-simple: what one ``get_messages_for_request`` costs as the conversation grows.

    python bench/context_growth.py [--sizes 50,200,400] [--rounds 7] [--calls 20000] [--check]

For each size a conversation of that many messages is built from exchanges of a prompt, an
assistant message with a tool call (text in content blocks), the tool's result and an answer,
about 1,200 characters each, well under the budget (no compaction). Each figure is the time
of one ``await context.get_messages_for_request(...)``, per call, the best and the median of
``--rounds`` batches of ``--calls`` calls:

- ``with provider``: the call orchestrators make, ``provider=`` a provider whose
  ``get_model_info()`` reports a 200,000-token window (the budget is worked out every call);
- ``no provider``: the bare call; what is left is the list copy the call returns (a new
  list of the stored message dicts, one pointer per message).

The ratio column divides each size's best figure by the smallest size's. ``--check`` exits 1
unless the ``with provider`` ratio of the largest size is at most 1.5.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

try:
    from amplifier_core import ModelInfo
    from amplifier_module_context_simple import SimpleContextManager
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e util -e modules/context-simple"
    )

Message = dict[str, Any]
Call = Callable[[], Awaitable[list[Message]]]
LIMIT = 1.5

MODEL = ModelInfo(
    id="bench-model", display_name="Bench", context_window=200_000, max_output_tokens=64_000
)


class Provider:
    """Reports its model's window, as a provider module does."""

    def get_model_info(self) -> ModelInfo:
        return MODEL


def conversation(size: int) -> list[Message]:
    """``size`` messages: system rules, then exchanges of four messages."""
    messages: list[Message] = [{"role": "system", "content": "You are a careful agent."}]
    n = 0
    while len(messages) < size:
        messages += [
            {"role": "user", "content": f"prompt {n}: " + "please look at this " * 15},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Let me check. " * 10}],
                "tool_calls": [{"id": f"call-{n}", "tool": "bash", "arguments": {"n": n}}],
            },
            {"role": "tool", "tool_call_id": f"call-{n}", "content": "line of output\n" * 30},
            {"role": "assistant", "content": [{"type": "text", "text": "Done. " * 40}]},
        ]
        n += 1
    return messages[:size]


async def per_call(call: Call, rounds: int, calls: int) -> tuple[float, float]:
    """Best and median seconds per call over ``rounds`` batches of ``calls`` calls."""
    for _ in range(min(calls, 1_000)):  # warm up
        await call()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(calls):
            await call()
        samples.append((time.perf_counter() - started) / calls)
    return min(samples), statistics.median(samples)


async def contexts(size: int) -> dict[str, Call]:
    """The calls to time for a conversation of ``size`` messages."""
    messages = conversation(size)
    ours = SimpleContextManager()
    for message in messages:
        await ours.add_message(message)
    provider = Provider()
    sent = await ours.get_messages_for_request(provider=provider)
    assert sent == messages, "the benchmark conversation must fit without compaction"
    assert ours.compactions == 0

    return {
        "with provider": lambda: ours.get_messages_for_request(provider=provider),
        "no provider": lambda: ours.get_messages_for_request(),
    }


async def run(sizes: list[int], rounds: int, calls: int) -> dict[str, dict[int, float]]:
    best: dict[str, dict[int, float]] = {}
    print(f"{'what':<22} {'messages':>8} {'best µs':>9} {'median µs':>10} {'ratio':>6}")
    for size in sizes:
        for name, call in (await contexts(size)).items():
            fastest, median = await per_call(call, rounds, calls)
            best.setdefault(name, {})[size] = fastest
            ratio = fastest / best[name][sizes[0]]
            print(f"{name:<22} {size:>8} {fastest * 1e6:>9.2f} {median * 1e6:>10.2f} {ratio:>6.2f}")
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50,200,400", help="conversation sizes in messages")
    parser.add_argument("--rounds", type=int, default=7, help="timed batches per figure")
    parser.add_argument("--calls", type=int, default=20_000, help="calls per timed batch")
    parser.add_argument(
        "--check", action="store_true", help=f"exit 1 unless the ratio is at most {LIMIT}"
    )
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    best = asyncio.run(run(sizes, args.rounds, args.calls))
    figures = best["with provider"]
    ratio = figures[sizes[-1]] / figures[sizes[0]]
    verdict = "within" if ratio <= LIMIT else "OVER"
    print(f"\nwith provider, {sizes[-1]} vs {sizes[0]} messages: {ratio:.2f}x ({verdict} {LIMIT}x)")
    return 1 if args.check and ratio > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
