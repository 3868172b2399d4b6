"""pytest plugin for hook module authors, registered with the kernel (``pytest11`` entry point).

Fixtures (each builds its own objects; none reads the machine's installed modules):

``hook_registry``
    A fresh :class:`~amplifier_core.hooks.HookRegistry`.
``coordinator``
    :func:`~amplifier_core.testing.create_test_coordinator`: a real coordinator whose approval
    system allows and records prompts, and whose display records user messages.
``event_recorder``
    An :class:`~amplifier_core.testing.EventRecorder` attached to ``coordinator.hooks``: every
    event emitted, an event a hook denied included (``decisions`` says ``deny`` for it,
    ``denied`` names the handler and its reason).
``mount_module``
    ``await mount_module(mount, config)`` mounts a module's ``mount`` function on
    ``coordinator`` and runs its cleanup (sync or async) when the test ends.
``module_path``, ``module_type``, ``is_module_context``
    The module package under test, found from the test file's location (an
    ``amplifier_module_*`` package in that directory tree, also under ``src/``) or given with
    ``--module-path``, and its type.
``hook_cleanup``, ``tool_module``, ``provider_module``, ``orchestrator_module``, ``context_module``
    That module mounted on ``coordinator`` with an empty config: the cleanup it returned, or
    the object it mounted; cleaned up when the test ends.
``mock_deps``
    ``(context, providers, tools, hooks)`` for an orchestrator's ``execute``.

These serve the inherited test classes of :mod:`amplifier_core.validation.structural` and
:mod:`amplifier_core.validation.behavioral`.

With pytest-asyncio installed, ``async def`` tests run without configuration: when the
project sets no ``asyncio_mode`` (in its ini file or on the command line), the plugin sets
``auto``, and when it sets no ``asyncio_default_fixture_loop_scope``, ``function`` (so
pytest-asyncio has nothing to warn about). A project that sets either keeps its own.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from ._module_fixtures import (
    async_fixture,
    context_module,
    hook_cleanup,
    is_module_context,
    mock_deps,
    module_path,
    module_type,
    orchestrator_module,
    provider_module,
    tool_module,
)
from .hooks import HookRegistry
from .testing import EventRecorder, MockCoordinator, create_test_coordinator

__all__ = [
    "context_module",
    "coordinator",
    "event_recorder",
    "hook_cleanup",
    "hook_registry",
    "is_module_context",
    "mock_deps",
    "module_path",
    "module_type",
    "mount_module",
    "orchestrator_module",
    "provider_module",
    "pytest_addoption",
    "tool_module",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--module-path``: the module package the module fixtures mount."""
    group = parser.getgroup("amplifier")
    group.addoption(
        "--module-path",
        default=None,
        help="path of the Amplifier module package under test (found from the tests' "
        "location when not given)",
    )


MountModule = Callable[..., Awaitable[Any]]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """``asyncio_mode = auto`` and a ``function`` fixture loop scope when pytest-asyncio is
    there and the project chose neither."""
    if not config.pluginmanager.hasplugin("asyncio"):
        return
    # pytest 9 keeps the ini values in ``_inicfg`` and deprecates ``inicfg``; neither
    # ``getini`` nor anything else public tells a value the project set from the default.
    chosen = getattr(config, "_inicfg", None)
    if chosen is None:
        chosen = config.inicfg
    given = getattr(config.option, "asyncio_mode", None) is not None  # on the command line
    if not given and "asyncio_mode" not in chosen:  # else the project's own choice
        config.option.asyncio_mode = "auto"
    if _LOOP_SCOPE not in chosen:
        # pytest-asyncio warns when this is unset; ``function`` is the scope it will default
        # to. ``getini`` reads its cache first, so this is the value pytest-asyncio sees.
        config._inicache[_LOOP_SCOPE] = "function"


_LOOP_SCOPE = "asyncio_default_fixture_loop_scope"


@pytest.fixture
def hook_registry() -> HookRegistry:
    """A fresh hook registry."""
    return HookRegistry()


@pytest.fixture
def coordinator() -> MockCoordinator:
    """A test coordinator (approvals allowed and recorded, user messages recorded)."""
    return create_test_coordinator()


@pytest.fixture
def event_recorder(coordinator: MockCoordinator) -> Iterator[EventRecorder]:
    """Records every event emitted through ``coordinator.hooks``, denied ones included, with
    what became of each (``decisions``)."""
    recorder = EventRecorder()
    detach = recorder.attach(coordinator.hooks)
    yield recorder
    detach()


@async_fixture
async def mount_module(coordinator: MockCoordinator) -> AsyncIterator[MountModule]:
    """Mount module ``mount`` functions on ``coordinator``; clean them up after the test."""
    cleanups: list[Any] = []

    async def mount(
        mount_function: Callable[..., Any], config: dict[str, Any] | None = None
    ) -> Any:
        outcome = mount_function(coordinator, config or {})
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if callable(outcome):
            cleanups.append(outcome)
        return outcome

    yield mount
    for cleanup in reversed(cleanups):
        outcome = cleanup()
        if inspect.isawaitable(outcome):
            await outcome
