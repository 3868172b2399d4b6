"""Fixtures of the pytest plugin for a module's own suite (and the inherited
:mod:`~amplifier_core.validation.structural` / :mod:`~amplifier_core.validation.behavioral`
tests): the module under test, found from the test file's location, mounted on the test's
``coordinator``.

The module is the package beside or above the test file: an ``amplifier_module_*`` package in
the nearest directory holding one directly or under ``src/`` (Amplifier's
``amplifier-module-<type>-<name>/`` layout and a ``src`` layout alike); ``--module-path``
names it instead. Its type comes from the package name (``amplifier_module_hooks_*`` is a
hook, ``amplifier_module_loop_*`` an orchestrator).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
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


def detect_module(start: Path) -> Path | None:
    """The module package for tests under ``start``, or None."""
    for directory in (start, *start.parents):
        package = _package_in(directory)
        if package is not None:
            return package
        if (directory / "pyproject.toml").is_file() or (directory / ".git").exists():
            break
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
    package name (``amplifier_module_hooks_*`` is a hook), or None."""
    if module_path is None:
        return None
    kind = module_path.name.removeprefix("amplifier_module_").split("_", 1)[0]
    return _TYPES.get(kind)


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
        pytest.skip("No module path detected")
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
