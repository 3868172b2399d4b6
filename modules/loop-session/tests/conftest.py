"""A coordinator with the loop mounted, a provider answering from a list, and a recording tool."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import ModuleCoordinator, ToolResult
from amplifier_core.events import ALL_EVENTS
from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ToolCall, Usage
from amplifier_module_loop_session import SessionLoop, mount

# fired by this loop beyond amplifier-core 2.0.2's catalogue
OUR_EVENTS = ("session:checkpoint", "provider:switch", "memory:update", "execution:start")


def say(text: str, *calls: tuple[str, str, dict[str, Any]]) -> ChatResponse:
    """A response with ``text`` and tool calls given as (id, name, arguments)."""
    return ChatResponse(
        content=[TextBlock(text=text)] if text else [],
        tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in calls] or None,
        usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5),
    )


class ListContext:
    """The context-manager protocol over a list: every message, no compaction."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(self.messages)

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any = None
    ) -> list[dict[str, Any]]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)

    async def clear(self) -> None:
        self.messages = []


class ListProvider:
    """Answers each request with the next response of a list; keeps the requests it got."""

    def __init__(self, responses: list[ChatResponse | Exception]) -> None:
        self.name = "listed"
        self.model = "list-1"
        self.responses = list(responses)
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        answer = self.responses.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return response.tool_calls or []


@dataclass
class EchoTool:
    """Writes ``text`` into ``file_path`` under a directory and answers what it did."""

    root: Path
    name: str = "write_file"
    description: str = "write a file"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.calls.append(input)
        path = self.root / str(input["file_path"])
        path.write_text(str(input.get("text", "")))
        return ToolResult(
            success=True, output={"path": str(path), "bytes_written": path.stat().st_size}
        )


class LoopDriver:
    """What drives the mounted loop turn by turn and reads the events it recorded."""

    coordinator: ModuleCoordinator
    loop: SessionLoop
    context: ListContext
    provider: Any
    events: list[tuple[str, dict[str, Any]]]

    def tools_by_name(self) -> dict[str, Any]:
        raise NotImplementedError

    async def turn(self, prompt: str) -> str:
        result: str = await self.loop.execute(
            prompt,
            self.context,
            {self.provider.name: self.provider},
            self.tools_by_name(),
            self.coordinator.hooks,
            coordinator=self.coordinator,
        )
        return result

    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    def of(self, event: str) -> list[dict[str, Any]]:
        return [data for name, data in self.events if name == event]


async def recorded_loop(
    workspace: Path, config: dict[str, Any]
) -> tuple[ModuleCoordinator, SessionLoop, list[tuple[str, dict[str, Any]]]]:
    """A coordinator working in ``workspace`` with the loop mounted (``config``), and the list
    every event it emits is recorded in."""
    coordinator = ModuleCoordinator()
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, config)
    loop = coordinator.get("orchestrator")
    assert isinstance(loop, SessionLoop)
    events: list[tuple[str, dict[str, Any]]] = []

    def record(event: str, data: dict[str, Any]) -> None:
        events.append((event, data))

    for event in sorted({*ALL_EVENTS, *OUR_EVENTS}):
        coordinator.hooks.register(event, record, priority=1000, name=f"recorder:{event}")
    return coordinator, loop, events


@dataclass
class Rig(LoopDriver):
    coordinator: ModuleCoordinator
    loop: SessionLoop
    context: ListContext
    provider: ListProvider
    tool: EchoTool
    events: list[tuple[str, dict[str, Any]]]

    def tools_by_name(self) -> dict[str, Any]:
        return {self.tool.name: self.tool}


RigFactory = Callable[..., Any]


@pytest.fixture
def make_rig(tmp_path: Path) -> RigFactory:
    async def build(responses: list[ChatResponse | Exception], **config: Any) -> Rig:
        coordinator, loop, events = await recorded_loop(tmp_path, config)
        return Rig(
            coordinator, loop, ListContext(), ListProvider(responses), EchoTool(tmp_path), events
        )

    return build
