"""The package's shape: no import circle among its modules (imports for type checking
included), and a turn runs on any :class:`LoopView`, not only on ``SessionLoop``."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_hooks_util.kernel import Kernel

import amplifier_module_loop_session as package
from amplifier_core import ModuleCoordinator
from amplifier_core.message_models import ToolSpec
from amplifier_module_loop_session.config import LoopConfig, parse_config
from amplifier_module_loop_session.turn import TurnRunner
from amplifier_module_provider_scripted import ScriptedProvider

from .conftest import ListContext
from .scripted import RecordingTool, call

SOURCE = Path(package.__file__).parent
PACKAGE = "amplifier_module_loop_session"


def _imports(path: Path) -> set[str]:
    """The package modules ``path`` imports (relative or absolute, at any depth)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                names = [base] if base else [alias.name for alias in node.names]
            elif base.startswith(PACKAGE):
                names = [base.removeprefix(PACKAGE).lstrip(".")]
            else:
                continue
            found.update(n.split(".")[0] for n in names if n)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name.removeprefix(PACKAGE + ".").split(".")[0])
    modules = {p.stem for p in SOURCE.glob("*.py")}
    return found & modules


def _graph() -> dict[str, set[str]]:
    return {p.stem: _imports(p) - {p.stem} for p in SOURCE.glob("*.py")}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports in ``graph``, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_package_has_no_import_circle() -> None:
    graph = _graph()
    assert "orchestrator" in graph["__init__"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_only_the_orchestrator_and_the_package_import_the_turn_runner() -> None:
    graph = _graph()
    assert {m for m, imports in graph.items() if "turn" in imports} <= {"orchestrator", "__init__"}
    assert {m for m, imports in graph.items() if "orchestrator" in imports} == {"__init__"}


@dataclass
class MinimalLoop:
    """The least a turn needs of its loop: a :class:`LoopView` that is not ``SessionLoop``."""

    coordinator: Any
    provider: Any
    tools: dict[str, Any]
    working_dir: Path
    config: LoopConfig = field(default_factory=lambda: parse_config({}))
    current_request_id: str | None = None
    memory_checks: list[str | None] = field(default_factory=list)

    @property
    def kernel(self) -> Kernel:
        return Kernel.of(self.coordinator)

    @property
    def provider_name(self) -> str:
        return "scripted"

    @property
    def model(self) -> str:
        return "minimal-1"

    @property
    def cancelled(self) -> bool:
        return False

    def tool_specs(self) -> list[ToolSpec]:
        return [ToolSpec(name=n, parameters={"type": "object"}) for n in self.tools]

    async def check_memory(self, tool_name: str | None) -> None:
        self.memory_checks.append(tool_name)


async def test_a_turn_runs_on_any_loop_view(tmp_path: Path) -> None:
    coordinator = ModuleCoordinator()
    events: list[str] = []
    for event in ("prompt:submit", "tool:pre", "tool:post", "orchestrator:complete"):
        coordinator.hooks.register(event, lambda e, d: events.append(e), name=f"rec:{event}")
    provider = ScriptedProvider([{"tool_calls": [call("alpha", "c1", n=1)]}, "done"])
    tool = RecordingTool("alpha")
    loop = MinimalLoop(coordinator, provider, {"alpha": tool}, tmp_path)
    runner = TurnRunner(loop)
    context = ListContext()

    outcome = await runner.run("go", 1, context)

    assert outcome.status == "completed"
    assert outcome.response == "done"
    assert tool.ran == [{"n": 1}]
    assert events == ["prompt:submit", "tool:pre", "tool:post", "orchestrator:complete"]
    assert provider.requests[0].model == "minimal-1"
    assert loop.current_request_id is not None
    assert loop.current_request_id.startswith("req_")
    # memory is looked at after the tool and before prompt:complete
    assert loop.memory_checks == ["alpha", None]
    assert runner.running_tools == []
