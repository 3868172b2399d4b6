"""Event selection: include and exclude patterns, debug events, levels."""

from __future__ import annotations

import pytest

from amplifier_module_hooks_logging import EventFilter, event_level


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("tool:pre", "info"),
        ("session:start", "info"),
        ("my_plugin:thing", "info"),
        ("tool:error", "error"),
        ("provider:error", "error"),
        ("module:load_failed", "error"),
        ("module:on_session_ready_failed", "error"),
        ("provider:retry", "warning"),
        ("policy:violation", "warning"),
        ("approval:denied", "warning"),
        ("llm:request:debug", "debug"),
        ("llm:response:debug", "debug"),
        ("custom:debug:extra", "debug"),
    ],
)
def test_event_level(name: str, level: str) -> None:
    assert event_level(name) == level


def test_debug_patterns_make_debug_events() -> None:
    assert event_level("llm:request:raw", ["*:raw"]) == "debug"
    assert event_level("tool:error", ["tool:*"]) == "debug"


def test_include_and_exclude() -> None:
    selection = EventFilter(include=["tool:*", "session:*"], exclude=["tool:error"])
    assert selection.level_for("tool:pre") == "info"
    assert selection.level_for("session:end") == "info"
    assert selection.level_for("tool:error") is None  # exclude wins
    assert selection.level_for("prompt:submit") is None  # not included


def test_patterns_are_case_sensitive() -> None:
    selection = EventFilter(include=["tool:*"])
    assert selection.level_for("Tool:pre") is None


@pytest.mark.parametrize(
    ("threshold", "written"),
    [
        ("debug", {"llm:request:debug", "tool:pre", "provider:retry", "tool:error"}),
        ("info", {"tool:pre", "provider:retry", "tool:error"}),
        ("warning", {"provider:retry", "tool:error"}),
        ("error", {"tool:error"}),
    ],
)
def test_level_threshold(threshold: str, written: set[str]) -> None:
    selection = EventFilter(level=threshold)  # type: ignore[arg-type]
    names = ["llm:request:debug", "tool:pre", "provider:retry", "tool:error"]
    assert {n for n in names if selection.level_for(n) is not None} == written


def test_debug_events_key_only_at_debug_level() -> None:
    at_info = EventFilter(debug_events=["content_block:*"])
    at_debug = EventFilter(debug_events=["content_block:*"], level="debug")
    assert at_info.level_for("content_block:delta") is None
    assert at_debug.level_for("content_block:delta") == "debug"
    assert at_info.level_for("tool:pre") == "info"


def test_decisions_are_cached() -> None:
    selection = EventFilter(exclude=["x:*"])
    assert selection.level_for("x:y") is None
    assert selection.decisions == {"x:y": None}
    assert selection.level_for("a:b") == "info"
    assert selection.decisions == {"x:y": None, "a:b": "info"}


def test_wanted_keeps_order_and_drops_duplicates() -> None:
    selection = EventFilter(exclude=["b:*"])
    assert selection.wanted(["a:1", "b:1", "a:2", "a:1"]) == ["a:1", "a:2"]
