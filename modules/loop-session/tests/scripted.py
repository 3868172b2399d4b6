"""Sessions driven by the scripted provider (provider-scripted): a coordinator with the loop
and the provider mounted, tools that record what they ran, every event recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_core import HookResult, ModuleCoordinator, ToolResult
from amplifier_module_loop_session import SessionLoop
from amplifier_module_provider_scripted import ScriptedProvider

from .conftest import ListContext, LoopDriver, recorded_loop


@dataclass
class RecordingTool:
    """A tool that records every input it runs with; ``fails`` makes it raise instead."""

    name: str
    fails: bool = False
    description: str = "records its calls"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    ran: list[dict[str, Any]] = field(default_factory=list)
    log: list[str] | None = None

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.ran.append(input)
        if self.log is not None:
            self.log.append(self.name)
        if self.fails:
            raise RuntimeError(f"{self.name} broke")
        return ToolResult(success=True, output=f"{self.name} ran with {sorted(input.items())}")


@dataclass
class Session(LoopDriver):
    coordinator: ModuleCoordinator
    loop: SessionLoop
    context: ListContext
    provider: ScriptedProvider
    tools: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]

    def tools_by_name(self) -> dict[str, Any]:
        return self.tools

    def hook(self, event: str, handler: Any, name: str = "test-hook") -> None:
        self.coordinator.hooks.register(event, handler, name=name)

    @property
    def outcome(self) -> Any:
        return self.loop.last_outcome


async def scripted_session(
    workspace: Path,
    script: Sequence[Any] | Mapping[str, Any],
    tools: Sequence[Any] = (),
    **config: Any,
) -> Session:
    """A session in ``workspace`` whose model plays ``script``; every event is recorded."""
    coordinator, loop, events = await recorded_loop(
        workspace, {"checkpoint_every_turn": False, **config}
    )
    provider = ScriptedProvider(list(script))
    context = ListContext()
    await coordinator.mount("context", context)  # where the kernel adds injected messages
    return Session(coordinator, loop, context, provider, {t.name: t for t in tools}, events)


def call(name: str, call_id: str, **tool_input: Any) -> dict[str, Any]:
    """A scripted tool call."""
    return {"name": name, "id": call_id, "input": tool_input}


def deny(reason: str) -> HookResult:
    return HookResult(action="deny", reason=reason)
