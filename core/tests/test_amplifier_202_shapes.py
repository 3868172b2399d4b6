"""What Amplifier's own suite checks on amplifier-core 2.0.2, each as observed there: the
session's lifecycle, cleanup after a fatal exception, emit's data, the engine's class names."""

from __future__ import annotations

import json
from typing import Any

import pytest

import amplifier_core
from amplifier_core import AmplifierSession
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.hooks import HookRegistry

PLAN = {"session": {"orchestrator": "loop-basic", "context": "context-simple"}}


class Dumps:
    """A pydantic-like object: json cannot encode it, ``model_dump()`` gives its dict."""

    def __init__(self, **fields: Any) -> None:
        self.fields = fields

    def model_dump(self) -> dict[str, Any]:
        return dict(self.fields)


def test_is_resumed_is_an_attribute() -> None:
    assert AmplifierSession(PLAN).is_resumed is False
    assert AmplifierSession(PLAN, is_resumed=True).is_resumed is True


async def test_execute_before_initialize_is_refused_and_cleanup_uninitializes() -> None:
    session = AmplifierSession(PLAN)
    with pytest.raises(RuntimeError, match=r"^Session not initialized\. Call initialize\(\)"):
        await session.execute("hello")
    session._initialized = True  # as after initialize(), without resolving modules
    await session.cleanup()
    assert session.initialized is False


@pytest.mark.parametrize("fatal", [KeyboardInterrupt, SystemExit])
async def test_cleanup_runs_every_cleanup_then_raises_the_fatal_one(
    fatal: type[BaseException],
) -> None:
    coordinator = ModuleCoordinator()
    ran: list[str] = []
    coordinator.register_cleanup(lambda: ran.append("first registered"))

    def interrupted() -> None:
        ran.append("fatal")
        raise fatal("stop now")

    coordinator.register_cleanup(interrupted)
    coordinator._cleanup_fns.append(42)  # type: ignore[arg-type]  # skipped, as 2.0.2
    with pytest.raises(fatal):
        await coordinator.cleanup()
    assert ran == ["fatal", "first registered"]


async def test_emit_takes_a_model_dump_object_or_json_text_as_its_dict() -> None:
    registry = HookRegistry()
    seen: list[dict[str, Any]] = []

    async def handler(event: str, data: dict[str, Any]) -> None:
        seen.append({k: v for k, v in data.items() if k != "timestamp"})

    registry.register("test:event", handler, name="h")
    await registry.emit("test:event", Dumps(greeting="hello"))  # type: ignore[arg-type]
    await registry.emit("test:event", json.dumps({"n": 1}))  # type: ignore[arg-type]
    collected = await registry.emit_and_collect("test:event", Dumps(k="v"))  # type: ignore[arg-type]
    assert seen == [{"greeting": "hello"}, {"n": 1}, {"k": "v"}]
    assert collected == []
    with pytest.raises(TypeError, match=r"emit\('test:event'\): data is JSON list"):
        await registry.emit("test:event", "[1]")  # type: ignore[arg-type]


def test_a_pydantic_config_is_taken_as_its_dict() -> None:
    coordinator = ModuleCoordinator(config=Dumps(injection_size_limit=1000))  # type: ignore[arg-type]
    assert coordinator.config == {"injection_size_limit": 1000}


async def test_mount_wording_is_2_0_2s() -> None:
    coordinator = ModuleCoordinator()
    with pytest.raises(ValueError, match=r"^Hooks should be registered"):
        await coordinator.mount("hooks", object())
    with pytest.raises(ValueError, match=r"^Name required"):
        await coordinator.unmount("tools")


def test_the_engine_names_are_the_public_classes() -> None:
    assert amplifier_core.RustSession is AmplifierSession
    assert amplifier_core.RustCoordinator is ModuleCoordinator
    assert amplifier_core.RustHookRegistry is HookRegistry
    assert amplifier_core.RustCancellationToken is amplifier_core.CancellationToken
