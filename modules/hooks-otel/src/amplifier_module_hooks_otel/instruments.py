"""The metric instruments: GenAI client metrics, tool calls, and hook runs and decisions.

Call counts are the histograms' counts (``amplifier.tool.duration`` counts tool calls,
``gen_ai.client.operation.duration`` provider calls): no separate counters to pay for.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterable
from dataclasses import dataclass, field

from opentelemetry.metrics import CallbackOptions, Counter, Histogram, Meter, Observation

__all__ = ["Instruments", "create_instruments"]


@dataclass(frozen=True)
class Instruments:
    token_usage: Histogram
    operation_duration: Histogram
    tool_duration: Histogram
    hook_duration: Histogram
    session_duration: Histogram
    sessions: Counter
    turns: Counter
    decisions: Tally[tuple[str, str]] = field(default_factory=Tally)
    """(hook, decision) -> count, read by the ``amplifier.hook.decisions`` observable counter
    when metrics are collected: a hook run costs a dict increment, not a measurement."""


def create_instruments(meter: Meter) -> Instruments:
    instruments = _create(meter)

    def observe(options: CallbackOptions) -> Iterable[Observation]:
        return [
            Observation(count, {"hook.name": name, "hook.decision": decision})
            for (name, decision), count in list(instruments.decisions.items())
        ]

    meter.create_observable_counter(
        "amplifier.hook.decisions",
        callbacks=[observe],
        unit="{decision}",
        description="Hook decisions",
    )
    return instruments


def _create(meter: Meter) -> Instruments:
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
        session_duration=meter.create_histogram(
            "amplifier.session.duration", unit="s", description="Session duration"
        ),
        sessions=meter.create_counter("amplifier.sessions.started", unit="{session}"),
        turns=meter.create_counter("amplifier.turns.completed", unit="{turn}"),
    )
