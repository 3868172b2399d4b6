"""A handler registered for an event that exists nowhere is reported at mount, with the module,
the file and line of the ``register`` call and the closest events; events a module declares on
``observability.events`` exist."""

from __future__ import annotations

import logging
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amplifier_core import events
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.declared_events import known_events, unknown_registrations
from amplifier_core.hooks import HookRegistry
from amplifier_core.loader import ModuleLoader

KNOWN = sorted(known_events())


def _noop(event: str, data: dict[str, object]) -> None:
    return None


@given(st.sampled_from(KNOWN))
def test_every_catalogued_event_and_alias_is_known(name: str) -> None:
    registry = HookRegistry()
    registry.register(name, _noop)
    registry.register(events.canonical(name), _noop)
    assert unknown_registrations(registry.registrations()) == []


@st.composite
def typos(draw: st.DrawFn) -> tuple[str, str]:
    """A catalogued event with one letter dropped, doubled or changed, that names no event."""
    name = draw(st.sampled_from([n for n in KNOWN if ":" in n]))
    index = draw(st.integers(0, len(name) - 1))
    how = draw(st.sampled_from(["drop", "double", "change"]))
    if how == "drop":
        typo = name[:index] + name[index + 1 :]
    elif how == "double":
        typo = name[:index] + name[index] + name[index:]
    else:
        letter = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
        typo = name[:index] + letter + name[index + 1 :]
    return name, typo


@given(typos())
def test_a_typo_of_an_event_is_reported_with_the_event_it_misspells(pair: tuple[str, str]) -> None:
    name, typo = pair
    registry = HookRegistry()
    registry.register(typo, _noop, name="guard")
    found = unknown_registrations(registry.registrations())
    if events.canonical(typo) in known_events() or events.is_pattern(typo):
        return  # the typo is another event's name, or a pattern
    [unknown] = found
    assert unknown.event == events.canonical(typo)
    assert unknown.handler == "guard"
    assert unknown.origin is not None
    assert unknown.origin.startswith(__file__)
    assert name in unknown.suggestions or len(unknown.suggestions) == 2


@given(st.text("abcdefghij:_", min_size=1, max_size=12).filter(lambda s: ":" in s))
def test_a_declared_event_is_known(name: str) -> None:
    registry = HookRegistry()
    registry.register(name, _noop)
    assert unknown_registrations(registry.registrations(), [events.canonical(name)]) == []


def test_a_pattern_that_matches_no_event_is_reported_and_one_that_does_is_not() -> None:
    registry = HookRegistry()
    registry.register("tol:*", _noop, name="typo")
    registry.register("tool:*", _noop, name="fine")
    registry.register("*:error", _noop, name="errors")
    assert [u.handler for u in unknown_registrations(registry.registrations())] == ["typo"]


# ------------------------------------------------------------------------------ at mount


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("amplifier_module_declared_"):
            del sys.modules[name]


def _module(base: Path, module_id: str, code: str) -> Path:
    package = base / module_id / ("amplifier_module_" + module_id.replace("-", "_"))
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return base / module_id


TYPO = """\
async def guard(event, data):
    return None

async def mount(coordinator, config):
    coordinator.hooks.register("tool:pree", guard, name="typo-guard")
"""

OWN_EVENTS = """\
async def on_done(event, data):
    return None

async def mount(coordinator, config):
    coordinator.register_contributor("observability.events", "declared-own", lambda: ["own:done"])
    coordinator.hooks.register("own:done", on_done, name="own-listener")
"""

LISTENER = """\
async def on_done(event, data):
    return None

async def mount(coordinator, config):
    coordinator.hooks.register("own:done", on_done, name="listener")
"""


async def test_a_module_registering_a_typo_is_reported_at_mount(
    modules: Path, caplog: pytest.LogCaptureFixture
) -> None:
    where = _module(modules, "declared-typo", TYPO)
    loader = ModuleLoader(ModuleCoordinator())
    with caplog.at_level(logging.WARNING, "amplifier_core.loader"):
        await loader.mount_all([{"module": "declared-typo", "source": str(where)}])
    await loader.cleanup()
    [unknown] = loader.unknown_events
    assert (unknown.module_id, unknown.handler, unknown.event) == (
        "declared-typo",
        "typo-guard",
        "tool:pree",
    )
    init = where / "amplifier_module_declared_typo" / "__init__.py"
    assert unknown.origin == f"{init}:5"
    [message] = [r.getMessage() for r in caplog.records if "tool:pree" in r.getMessage()]
    assert "module 'declared-typo'" in message
    assert f"{init}:5" in message
    assert "did you mean 'tool:pre'" in message


async def test_events_a_mounted_module_declares_are_known_to_the_others(modules: Path) -> None:
    """The listener mounts before the module that declares the event: the check runs once
    every module is mounted."""
    listener = _module(modules, "declared-listener", LISTENER)
    own = _module(modules, "declared-own", OWN_EVENTS)
    loader = ModuleLoader(ModuleCoordinator())
    await loader.mount_all(
        [
            {"module": "declared-listener", "source": str(listener)},
            {"module": "declared-own", "source": str(own)},
        ]
    )
    await loader.cleanup()
    assert loader.unknown_events == []


async def test_the_hook_contract_tests_fail_on_a_registration_for_no_event() -> None:
    from amplifier_core.testing import MockCoordinator
    from amplifier_core.validation.behavioral import HookBehaviorTests

    coordinator = MockCoordinator()
    coordinator.hooks.register("tool:pree", _noop, name="typo-guard")
    with pytest.raises(AssertionError, match=r"'typo-guard' is registered for 'tool:pree'"):
        await HookBehaviorTests().test_registers_only_events_that_exist(None, coordinator)
    coordinator.register_contributor("observability.events", "x", lambda: ["tool:pree"])
    await HookBehaviorTests().test_registers_only_events_that_exist(None, coordinator)
