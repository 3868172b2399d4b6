"""Wildcard support is detected by trying it; the fallback list of names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from amplifier_core import events
from amplifier_core.hooks import HookRegistry
from amplifier_module_hooks_logging.subscribe import (
    declared_events,
    flatten_names,
    known_events,
    supports_wildcards,
)


class ExactOnly:
    """Has ``handlers_for`` but matches names exactly: ``"*"`` is just a name here."""

    def __init__(self) -> None:
        self.handlers: dict[str, list[Any]] = {}

    def register(
        self, event: str, handler: Any, priority: int = 0, name: str | None = None
    ) -> Callable[[], None]:
        self.handlers.setdefault(event, []).append(handler)
        return lambda: self.handlers[event].remove(handler)

    def handlers_for(self, event: str) -> list[Any]:
        class Info:
            def __init__(self, handler: Any) -> None:
                self.handler = handler

        return [Info(h) for h in self.handlers.get(event, [])]


def test_our_registry_supports_wildcards_and_the_probe_leaves_no_trace() -> None:
    registry = HookRegistry()
    assert supports_wildcards(registry)
    assert registry.list_handlers() == {}


def test_an_exact_only_registry_does_not_and_the_probe_is_removed() -> None:
    registry = ExactOnly()
    assert not supports_wildcards(registry)
    assert registry.handlers == {"*": []}


def test_a_registry_without_handlers_for_is_not_even_probed() -> None:
    class Plain:
        def register(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("must not be called")

    assert not supports_wildcards(Plain())


def test_known_events_are_the_kernels() -> None:
    assert known_events() == tuple(events.ALL_EVENTS)


def test_declared_events() -> None:
    class Coordinator:
        def get_capability(self, name: str) -> Any:
            return {"observability.events": ["a:b", ["c:d", 3], "e:f"]}.get(name)

    assert declared_events(Coordinator()) == ["a:b", "c:d", "e:f"]
    assert declared_events(object()) == []
    assert flatten_names("x:y") == ["x:y"]
    assert flatten_names({"k": "v"}) == []
