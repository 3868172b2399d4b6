"""The metric instruments: GenAI client metrics, tool calls, and hook runs and decisions.

Call counts are the histograms' counts (``amplifier.tool.duration`` counts tool calls,
``gen_ai.client.operation.duration`` provider calls): no separate counters to pay for.
"""

from __future__ import annotations

from dataclasses import dataclass

from opentelemetry.metrics import Counter, Histogram, Meter

__all__ = ["Instruments", "create_instruments"]


@dataclass(frozen=True)
class Instruments:
    token_usage: Histogram
    operation_duration: Histogram
    tool_duration: Histogram
    hook_duration: Histogram
    hook_decisions: Counter
    session_duration: Histogram
    sessions: Counter
    turns: Counter


def create_instruments(meter: Meter) -> Instruments:
    return Instruments(
        token_usage=meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens per provider call"
        ),
        operation_duration=meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="Provider call duration"
        ),
        tool_duration=meter.create_histogram(
            "amplifier.tool.duration", unit="s", description="Tool call duration"
        ),
        hook_duration=meter.create_histogram(
            "amplifier.hook.duration", unit="s", description="Hook handler run duration"
        ),
        hook_decisions=meter.create_counter(
            "amplifier.hook.decisions", unit="{decision}", description="Hook decisions"
        ),
        session_duration=meter.create_histogram(
            "amplifier.session.duration", unit="s", description="Session duration"
        ),
        sessions=meter.create_counter("amplifier.sessions.started", unit="{session}"),
        turns=meter.create_counter("amplifier.turns.completed", unit="{turn}"),
    )
