"""Fixtures of the pytest plugin for a module's own suite (and the inherited
:mod:`~amplifier_core.validation.structural` / :mod:`~amplifier_core.validation.behavioral`
tests): the module under test, found from the test file's location, mounted on the test's
``coordinator``.

The module is the package beside or above the test file: an ``amplifier_module_*`` package in
the nearest directory holding one directly or under ``src/`` (Amplifier's
``amplifier-module-<type>-<name>/`` layout and a ``src`` layout alike), else the package the
nearest ``pyproject.toml`` names in its ``[project.entry-points."amplifier.modules"]`` table
(``hooks-my-guard = "my_hooks:mount"``: ``my_hooks``, under ``src/`` or beside it);
``--module-path`` names it instead. When Python imports that package from elsewhere (an
installed copy), that copy is the one tested, as the suite's own imports get it; without an
install the source tree is imported. Its type comes from the package name
(``amplifier_module_hooks_*`` is a hook, ``amplifier_module_loop_*`` an orchestrator) or from
the module id (``hooks-my-guard`` is a hook). When no package is found the tests that need one
fail with :data:`NO_MODULE`, never skip silently.
"""

from __future__ import annotations

import importlib.util
import inspect
import tomllib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "NO_MODULE",
    "async_fixture",
    "context_module",
    "detect_module",
    "hook_cleanup",
    "is_module_context",
    "mock_deps",
    "module_path",
    "module_type",
    "orchestrator_module",
    "provider_module",
    "tool_module",
]

_TYPES = {
    "provider": "provider",
    "providers": "provider",
    "tool": "tool",
    "tools": "tool",
    "hook": "hook",
    "hooks": "hook",
    "loop": "orchestrator",
    "orchestrator": "orchestrator",
    "context": "context",
}


def _package_in(directory: Path) -> Path | None:
    for parent in (directory, directory / "src"):
        if not parent.is_dir():
            continue
        for child in sorted(parent.iterdir()):
            if child.name.startswith("amplifier_module_") and (child / "__init__.py").is_file():
                return child
    return None


NO_MODULE = (
    "no module package found from the tests' location: no amplifier_module_* package, and no "
    'entry point in the [project.entry-points."amplifier.modules"] table of the nearest '
    "pyproject.toml; pass --module-path=src/<package>"
)
"""Why the module's contract tests cannot run: the one line they fail with."""


def _entry_points(project: Path) -> dict[str, str]:
    """``{module id: "package.module:attr"}`` declared in ``project/pyproject.toml``."""
    try:
        data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    table = data.get("project", {}).get("entry-points", {}).get("amplifier.modules", {})
    return {str(k): str(v) for k, v in table.items()} if isinstance(table, dict) else {}


def _top_package(target: str) -> str:
    return target.split(":", 1)[0].split(".", 1)[0].strip()


def _imported_from(name: str, source: Path | None) -> Path | None:
    """Where ``import name`` finds the package (an installed copy wins over ``source``)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    origin = getattr(spec, "origin", None)
    if origin and Path(origin).name == "__init__.py":
        return Path(origin).parent
    return source


def _declared_package(project: Path) -> Path | None:
    """The package the project's ``amplifier.modules`` entry point names, or None."""
    for target in _entry_points(project).values():
        name = _top_package(target)
        source = next(
            (d / name for d in (project / "src", project) if (d / name / "__init__.py").is_file()),
            None,
        )
        found = _imported_from(name, source)
        if found is not None:
            return found
    return None


def detect_module(start: Path) -> Path | None:
    """The module package for tests under ``start``, or None."""
    for directory in (start, *start.parents):
        package = _package_in(directory)
        if package is not None:
            return _imported_from(package.name, package)
        if (directory / "pyproject.toml").is_file():
            return _declared_package(directory)
        if (directory / ".git").exists():
            break
    return None


def _module_id(package: Path) -> str | None:
    """The id an ``amplifier.modules`` entry point gives ``package``: from the nearest
    ``pyproject.toml`` above it, else from the installed distributions' metadata."""
    for directory in package.parents:
        if (directory / "pyproject.toml").is_file():
            for module_id, target in _entry_points(directory).items():
                if _top_package(target) == package.name:
                    return module_id
            break
    from importlib.metadata import entry_points

    for entry in entry_points(group="amplifier.modules"):
        if _top_package(entry.value) == package.name:
            return entry.name
    return None


def _test_dir(request: pytest.FixtureRequest) -> Path:
    return Path(str(request.node.path)).parent


@pytest.fixture
def module_path(request: pytest.FixtureRequest) -> Path | None:
    """The package of the module under test (``--module-path`` wins), or None."""
    given = request.config.getoption("--module-path", default=None)
    if given:
        return Path(given)
    return detect_module(_test_dir(request))


@pytest.fixture
def module_type(module_path: Path | None) -> str | None:
    """``provider``, ``tool``, ``hook``, ``orchestrator`` or ``context``, read from the
    package name (``amplifier_module_hooks_*`` is a hook) or its module id (``hooks-x``), or
    None."""
    if module_path is None:
        return None
    if module_path.name.startswith("amplifier_module_"):
        kind = module_path.name.removeprefix("amplifier_module_").split("_", 1)[0]
        return _TYPES.get(kind)
    module_id = _module_id(module_path)
    return None if module_id is None else _TYPES.get(module_id.split("-", 1)[0])


@pytest.fixture
def is_module_context(module_path: Path | None) -> bool:
    """Whether the tests run inside a module whose package was found."""
    return module_path is not None


def _mount_function(path: Path) -> Any:
    from .validation.base import import_module_from_path

    if not path.exists():
        raise FileNotFoundError(f"Module path not found: {path}")
    module = import_module_from_path(path)
    mount = getattr(module, "mount", None)
    if mount is None:
        raise AttributeError(f"{module.__name__} ({path}) has no mount() function")
    return mount


async def _mount(module_path: Path | None, coordinator: Any) -> Any:
    """Import the module at ``module_path`` and mount it on ``coordinator``: its cleanup."""
    if module_path is None:
        pytest.fail(NO_MODULE, pytrace=False)
    returned = _mount_function(module_path)(coordinator, {})
    if inspect.isawaitable(returned):
        returned = await returned
    return returned if callable(returned) else None


async def _clean_up(cleanup: Any) -> None:
    if cleanup is None:
        return
    outcome = cleanup()
    if inspect.isawaitable(outcome):
        await outcome


async def _mounted_at(module_path: Path | None, coordinator: Any, point: str) -> AsyncIterator[Any]:
    cleanup = await _mount(module_path, coordinator)
    found = coordinator.mount_points.get(point)
    if isinstance(found, dict):
        found = next(iter(found.values()), None)
    if found is None:
        await _clean_up(cleanup)
        pytest.fail(f"{module_path} mounted nothing at '{point}'")
    try:
        yield found
    finally:
        await _clean_up(cleanup)


def async_fixture(function: _F) -> _F:
    """An async fixture that also works in pytest-asyncio's strict mode."""
    try:
        from pytest_asyncio import fixture
    except ImportError:  # pragma: no cover - pytest-asyncio is part of the test extra
        return cast(_F, pytest.fixture(function))
    return cast(_F, fixture(function))


@async_fixture
async def hook_cleanup(module_path: Path | None, coordinator: Any) -> AsyncIterator[Any]:
    """Mounts the hook module on ``coordinator``; the value is the cleanup it returned."""
    cleanup = await _mount(module_path, coordinator)
    try:
        yield cleanup
    finally:
        await _clean_up(cleanup)


@async_fixture
async def tool_module(module_path: Path | None, coordinator: Any) -> AsyncIterator[Any]:
    """The first tool the module mounted."""
    async for tool in _mounted_at(module_path, coordinator, "tools"):
        yield tool


@async_fixture
async def provider_module(module_path: Path | None, coordinator: Any) -> AsyncIterator[Any]:
    """The first provider the module mounted."""
    async for provider in _mounted_at(module_path, coordinator, "providers"):
        yield provider


@async_fixture
async def orchestrator_module(module_path: Path | None, coordinator: Any) -> AsyncIterator[Any]:
    """The orchestrator the module mounted."""
    async for orchestrator in _mounted_at(module_path, coordinator, "orchestrator"):
        yield orchestrator


@async_fixture
async def context_module(module_path: Path | None, coordinator: Any) -> AsyncIterator[Any]:
    """The context manager the module mounted."""
    async for context in _mounted_at(module_path, coordinator, "context"):
        yield context


@pytest.fixture
def mock_deps() -> tuple[Any, dict[str, Any], dict[str, Any], Any]:
    """``(context, providers, tools, hooks)`` for calling an orchestrator's ``execute``:
    a :class:`MockContextManager`, a provider answering "Mock response", a
    :class:`MockTool` named ``test_tool`` and an :class:`EventRecorder` as the hooks."""
    from .descriptions import ProviderInfo
    from .message_models import ChatResponse, TextBlock
    from .testing import EventRecorder, MockContextManager, MockTool

    class MockProvider:
        name = "mock"

        def get_info(self) -> ProviderInfo:
            return ProviderInfo(id="mock", display_name="Mock Provider")

        async def list_models(self) -> list[Any]:
            return []

        async def complete(self, request: Any, **kwargs: Any) -> ChatResponse:
            return ChatResponse(content=[TextBlock(text="Mock response")])

        def parse_tool_calls(self, response: Any) -> list[Any]:
            return []

    return (
        MockContextManager(),
        {"default": MockProvider()},
        {"test_tool": MockTool(name="test_tool", output="test result")},
        EventRecorder(),
    )
