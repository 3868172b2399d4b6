"""Calling the mounted orchestrator, as amplifier-core 2.0.2's session does at its boundary.

``run_orchestrator(coordinator, prompt)`` hands the orchestrator the context, the providers and
tools mounted (``{}`` when none), the hooks and the coordinator, and returns its answer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_orchestrator"]


async def run_orchestrator(coordinator: Any, prompt: str) -> Any:
    """``await orchestrator.execute(prompt=..., context=..., providers=..., tools=...,
    hooks=..., coordinator=...)`` with what ``coordinator`` has mounted."""
    orchestrator = coordinator.get("orchestrator")
    return await orchestrator.execute(
        prompt=prompt,
        context=coordinator.get("context"),
        providers=coordinator.get("providers") or {},
        tools=coordinator.get("tools") or {},
        hooks=coordinator.hooks,
        coordinator=coordinator,
    )
