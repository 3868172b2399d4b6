"""Sessions driven by the scripted provider (provider-scripted): a coordinator with the loop
and the provider mounted, tools that record what they ran, every event recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_core import HookResult, ModuleCoordinator, ToolResult
from amplifier_core.events import ALL_EVENTS
from amplifier_module_loop_session import SessionLoop, mount
from amplifier_module_provider_scripted import ScriptedProvider

from .conftest import OUR_EVENTS, ListContext


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
class Session:
    coordinator: ModuleCoordinator
    loop: SessionLoop
    context: ListContext
    provider: ScriptedProvider
    tools: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]

    async def turn(self, prompt: str) -> str:
        result: str = await self.loop.execute(
            prompt,
            self.context,
            {self.provider.name: self.provider},
            self.tools,
            self.coordinator.hooks,
            coordinator=self.coordinator,
        )
        return result

    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    def of(self, event: str) -> list[dict[str, Any]]:
        return [data for name, data in self.events if name == event]

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
    coordinator = ModuleCoordinator()
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, {"checkpoint_every_turn": False, **config})
    loop = coordinator.get("orchestrator")
    assert isinstance(loop, SessionLoop)
    events: list[tuple[str, dict[str, Any]]] = []

    def record(event: str, data: dict[str, Any]) -> None:
        events.append((event, data))

    for event in sorted({*ALL_EVENTS, *OUR_EVENTS}):
        coordinator.hooks.register(event, record, priority=1000, name=f"recorder:{event}")
    provider = ScriptedProvider(list(script))
    context = ListContext()
    await coordinator.mount("context", context)  # where the kernel adds injected messages
    return Session(coordinator, loop, context, provider, {t.name: t for t in tools}, events)


def call(name: str, call_id: str, **tool_input: Any) -> dict[str, Any]:
    """A scripted tool call."""
    return {"name": name, "id": call_id, "input": tool_input}


def deny(reason: str) -> HookResult:
    return HookResult(action="deny", reason=reason)
