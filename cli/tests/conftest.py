"""What the command-line package's tests share: a hermetic runtime, a provider, tools, events.

Sessions in these tests name every runtime module with a ``package:mount`` source, so the
loader imports them directly and never reads the machine's installed entry points.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_bundle import Bundle, parse_bundle

from amplifier_core import HookResult
from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ToolCall, Usage

RUNTIME = """\
session:
  orchestrator:
    module: loop-session
    source: amplifier_module_loop_session:mount
    config: {memory_files: []}
  context:
    module: context-simple
    source: amplifier_module_context_simple:mount
"""
"""The runtime modules of a hermetic test bundle (no tools, no provider: tests give them)."""


def hermetic_bundle(extra: str = "", path: Path | None = None) -> Bundle:
    """A bundle of :data:`RUNTIME` and ``extra`` (YAML at the top level)."""
    text = RUNTIME + textwrap.dedent(extra)
    if path is None:
        return parse_bundle(text, "bundle.yaml")
    path.write_text(text, encoding="utf-8")
    from amplifier_hooks_bundle import load_bundle

    return load_bundle(path)


class PlannedProvider:
    """A provider that answers from a list: text, and optionally tool calls ``(name, input)``.

    It keeps every request it got. An answer may be a callable taking the request (to check
    what the model was sent).
    """

    def __init__(self, *answers: Any, name: str = "planned", model: str = "plan-1") -> None:
        self.name = name
        self.model = model
        self.answers = list(answers)
        self.requests: list[ChatRequest] = []

    def get_info(self) -> dict[str, Any]:
        return {"id": self.name, "display_name": self.name}

    async def list_models(self) -> list[Any]:
        return []

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        answer = self.answers.pop(0) if self.answers else "(out of answers)"
        if callable(answer):
            answer = answer(request)
        text, calls = (answer, []) if isinstance(answer, str) else answer
        return ChatResponse(
            content=[TextBlock(text=text)] if text else [],
            tool_calls=[
                ToolCall(id=f"call_{len(self.requests)}_{i}", name=n, arguments=a)
                for i, (n, a) in enumerate(calls)
            ]
            or None,
            usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
            finish_reason="tool_use" if calls else "end_turn",
        )


class EchoTool:
    """A tool that answers with its input's ``text``."""

    name = "echo"
    description = "Echo the text back."
    input_schema: dict[str, Any] = {  # noqa: RUF012 - read only
        "type": "object",
        "properties": {"text": {"type": "string"}},
    }

    async def execute(self, tool_input: dict[str, Any]) -> Any:
        from amplifier_core import ToolResult

        return ToolResult(success=True, output=f"echo: {tool_input.get('text', '')}")


class WaitingTool:
    """A tool that says it started, then waits until released (or cancelled)."""

    name = "wait"
    description = "Wait for the test."
    input_schema: dict[str, Any] = {"type": "object"}  # noqa: RUF012 - read only

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.finished = False

    async def execute(self, tool_input: dict[str, Any]) -> Any:
        from amplifier_core import ToolResult

        self.started.set()
        await self.release.wait()
        self.finished = True
        return ToolResult(success=True, output="released")


Recorder = Callable[..., list[tuple[str, dict[str, Any]]]]


def record_events(coordinator: Any, *names: str) -> list[tuple[str, dict[str, Any]]]:
    """Every emit of ``names`` on ``coordinator.hooks``, in order, as ``(event, data)``."""
    seen: list[tuple[str, dict[str, Any]]] = []

    def handler(event: str, data: dict[str, Any]) -> HookResult:
        seen.append((event, dict(data)))
        return HookResult()

    for name in names:
        coordinator.hooks.register(name, handler, priority=1_000_000, name="test.recorder")
    return seen


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path
