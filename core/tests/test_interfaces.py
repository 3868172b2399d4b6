"""The module protocols: their shapes, what a type checker accepts as an implementation, the
defaults they give, and that importing them keeps the envelope models unloaded."""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import interfaces
from amplifier_core.interfaces import (
    ContextManager,
    HookHandler,
    Orchestrator,
    Provider,
    Tool,
)
from amplifier_core.models import HookResult, ToolResult


def _params(function: Any) -> list[tuple[str, Any]]:
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


def test_the_protocol_methods_have_the_ecosystem_signatures() -> None:
    empty = inspect.Parameter.empty
    assert _params(Orchestrator.execute) == [
        ("self", empty),
        ("prompt", empty),
        ("context", empty),
        ("providers", empty),
        ("tools", empty),
        ("hooks", empty),
        ("kwargs", empty),
    ]
    assert _params(Provider.complete) == [("self", empty), ("request", empty), ("kwargs", empty)]
    assert _params(Provider.parse_tool_calls) == [("self", empty), ("response", empty)]
    assert _params(Tool.execute) == [("self", empty), ("input", empty)]
    assert _params(ContextManager.get_messages_for_request) == [
        ("self", empty),
        ("token_budget", None),
        ("provider", None),
    ]
    for method in (
        Orchestrator.execute,
        Provider.complete,
        Provider.list_models,
        Tool.execute,
        ContextManager.add_message,
        ContextManager.get_messages,
        ContextManager.set_messages,
        ContextManager.clear,
        HookHandler.__call__,
    ):
        assert inspect.iscoroutinefunction(method), method.__qualname__
    assert not inspect.iscoroutinefunction(Provider.get_info)
    assert not inspect.iscoroutinefunction(Provider.parse_tool_calls)
    for prop in (Provider.name, Tool.name, Tool.description, Tool.input_schema):
        assert isinstance(prop, property)


def test_the_annotations_resolve_to_the_kernel_models() -> None:
    from amplifier_core.interfaces import ChatResponse  # loaded on first use
    from amplifier_core.message_models import ChatRequest, ToolCall

    assert interfaces.ChatRequest is ChatRequest

    complete = typing.get_type_hints(Provider.complete)
    assert complete["request"] is ChatRequest
    assert complete["return"] is ChatResponse
    assert typing.get_type_hints(Provider.parse_tool_calls)["return"] == list[ToolCall]
    assert typing.get_type_hints(Tool.execute)["return"] is ToolResult
    assert typing.get_type_hints(HookHandler.__call__)["return"] is HookResult


def test_a_tool_that_names_the_protocol_gets_an_empty_input_schema() -> None:
    class Echo(Tool):
        @property
        def name(self) -> str:
            return "echo"

        @property
        def description(self) -> str:
            return "says it back"

        async def execute(self, input: dict[str, Any]) -> ToolResult:
            return ToolResult(output=input)

    assert Echo().input_schema == {}


def test_a_hook_handler_is_recognised_at_runtime() -> None:
    async def handler(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult()

    assert isinstance(handler, HookHandler)
    assert not isinstance("not callable", HookHandler)


def test_the_public_names_are_listed_and_the_approval_ones_are_the_kernels() -> None:
    from amplifier_core.approval import ApprovalProvider, ApprovalRequest, ApprovalResponse

    assert interfaces.ApprovalProvider is ApprovalProvider
    assert interfaces.ApprovalRequest is ApprovalRequest
    assert interfaces.ApprovalResponse is ApprovalResponse
    for name in interfaces.__all__:
        assert hasattr(interfaces, name), name


def test_importing_the_protocols_leaves_the_envelope_models_unloaded() -> None:
    probe = (
        "import sys, amplifier_core.interfaces; "
        "print(sorted(m for m in ('amplifier_core.message_models', "
        "'amplifier_core.cancellation', 'amplifier_core.llm_errors', "
        "'amplifier_core.content_models') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


IMPLEMENTATIONS = """
from typing import Any

from amplifier_core.hooks import HookRegistry
from amplifier_core.interfaces import ContextManager, HookHandler, Orchestrator, Provider, Tool
from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ToolCall
from amplifier_core.models import HookResult, ModelInfo, ProviderInfo, ToolResult


class EchoTool:
    name = "echo"
    description = "says it back"
    input_schema: dict[str, Any] = {"type": "object"}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(output=input)


class FixedProvider:
    @property
    def name(self) -> str:
        return "fixed"

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="fixed", display_name="Fixed")

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        return ChatResponse(content=[TextBlock(text="hi")])

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return response.tool_calls or []


class ListContext:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]:
        return list(self.messages)

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)

    async def clear(self) -> None:
        self.messages = []


class OneShot:
    async def execute(
        self,
        prompt: str,
        context: ContextManager,
        providers: dict[str, Provider],
        tools: dict[str, Tool],
        hooks: HookRegistry,
        **kwargs: Any,
    ) -> str:
        return prompt


async def handler(event: str, data: dict[str, Any]) -> HookResult:
    return HookResult()


tool: Tool = EchoTool()
provider: Provider = FixedProvider()
context: ContextManager = ListContext()
orchestrator: Orchestrator = OneShot()
hook: HookHandler = handler


class WrongTool:
    name = "wrong"
    description = "returns text"
    input_schema: dict[str, Any] = {}

    def execute(self, input: dict[str, Any]) -> str:
        return ""


wrong: Tool = WrongTool()  # the one error mypy must report
"""


@pytest.mark.slow
def test_a_type_checker_accepts_implementations_by_shape_and_rejects_a_wrong_one(
    tmp_path: Path,
) -> None:
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mypy is not installed next to this interpreter")
    source = tmp_path / "implementations.py"
    source.write_text(textwrap.dedent(IMPLEMENTATIONS))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--config-file",
            "/dev/null",
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, out.stdout
    assert "WrongTool" in errors[0]
    assert 'variable has type "Tool"' in errors[0]
