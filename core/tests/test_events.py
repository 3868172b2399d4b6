"""Event names: the upstream 43, the three new ones, the constants and the PascalCase aliases."""

from __future__ import annotations

import pytest

from amplifier_core import event_aliases, events
from amplifier_core.hooks import HookRegistry

#: amplifier-core 2.0.2's ALL_EVENTS, written out (docs/events.md).
UPSTREAM_43: frozenset[str] = frozenset(
    {
        "session:start",
        "session:end",
        "session:fork",
        "session:resume",
        "prompt:submit",
        "prompt:complete",
        "plan:start",
        "plan:end",
        "provider:request",
        "provider:response",
        "provider:error",
        "provider:retry",
        "provider:throttle",
        "provider:resolve",
        "provider:tool_sequence_repaired",
        "llm:request",
        "llm:response",
        "content_block:start",
        "content_block:delta",
        "content_block:end",
        "thinking:delta",
        "thinking:final",
        "tool:pre",
        "tool:post",
        "tool:error",
        "context:pre_compact",
        "context:post_compact",
        "context:compaction",
        "context:include",
        "orchestrator:complete",
        "execution:start",
        "execution:end",
        "user:notification",
        "artifact:read",
        "artifact:write",
        "policy:violation",
        "approval:required",
        "approval:granted",
        "approval:denied",
        "cancel:requested",
        "cancel:completed",
        "module:load_failed",
        "module:on_session_ready_failed",
    }
)

NEW_EVENTS: frozenset[str] = frozenset(
    {"session:config", "session:checkpoint", "provider:switch", "memory:update", "hook:observed"}
)

#: amplifier-core 2.0.2's alias table (docs/events.md).
ALIAS_TABLE: dict[str, str] = {
    "PreToolUse": "tool:pre",
    "PostToolUse": "tool:post",
    "SessionStart": "session:start",
    "SessionStop": "session:end",
    "PromptSubmit": "prompt:submit",
    "ResponseComplete": "prompt:complete",
    "Error": "*:error",
    "Checkpoint": "session:checkpoint",
    "ModelSwitch": "provider:switch",
    "MemoryUpdate": "memory:update",
}


def test_the_written_out_upstream_list_has_43_names() -> None:
    assert len(UPSTREAM_43) == 43


def test_all_events_is_the_upstream_43_plus_the_four_new_ones() -> None:
    assert set(events.ALL_EVENTS) == UPSTREAM_43 | NEW_EVENTS
    assert len(events.ALL_EVENTS) == 48


def test_upstream_events_is_exactly_the_upstream_43() -> None:
    assert set(event_aliases.UPSTREAM_EVENTS) == UPSTREAM_43
    assert len(event_aliases.UPSTREAM_EVENTS) == 43
    assert tuple(events.ALL_EVENTS[:43]) == event_aliases.UPSTREAM_EVENTS


def test_all_events_has_no_duplicates() -> None:
    assert len(set(events.ALL_EVENTS)) == len(events.ALL_EVENTS)


def test_every_event_name_uses_the_colon_form() -> None:
    for name in events.ALL_EVENTS:
        namespace, _, action = name.partition(":")
        assert namespace, name
        assert action, name
        assert name == name.lower(), name
        assert not events.is_pattern(name), name


def test_every_string_constant_in_all_is_a_known_event() -> None:
    string_constants = {
        name: getattr(events, name)
        for name in events.__all__
        if isinstance(getattr(events, name), str)
    }
    assert len(string_constants) == 48
    for name, value in string_constants.items():
        assert value in events.ALL_EVENTS, f"events.{name} = {value!r} is not in ALL_EVENTS"
    assert set(string_constants.values()) == set(events.ALL_EVENTS)


def test_every_name_in_all_exists() -> None:
    for name in events.__all__:
        assert hasattr(events, name), name


def test_error_events_are_every_colon_error_event() -> None:
    assert set(event_aliases.ERROR_EVENTS) == {"provider:error", "tool:error"}


def test_the_ten_aliases_match_the_design_table() -> None:
    assert event_aliases.ALIASES == ALIAS_TABLE


@pytest.mark.parametrize(("alias", "target"), sorted(ALIAS_TABLE.items()))
def test_each_alias_resolves_through_canonical(alias: str, target: str) -> None:
    assert events.canonical(alias) == target


@pytest.mark.parametrize("name", ["tool:pre", "my-plugin:thing", "tool:*", "pretooluse", ""])
def test_canonical_leaves_other_names_alone(name: str) -> None:
    assert events.canonical(name) == name


def test_every_alias_target_is_a_known_event_except_the_error_pattern() -> None:
    for alias, target in ALIAS_TABLE.items():
        if alias == "Error":
            assert events.is_pattern(target)
        else:
            assert target in events.ALL_EVENTS, alias


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("*", True),
        ("tool:*", True),
        ("*:error", True),
        ("tool:?re", True),
        ("[tp]ool:pre", True),
        ("tool:pre", False),
        ("session:start", False),
        ("Error", False),
    ],
)
def test_is_pattern(name: str, expected: bool) -> None:
    assert events.is_pattern(name) is expected


def test_registry_exposes_the_upstream_class_constants() -> None:
    assert HookRegistry.SESSION_START == "session:start"
    assert HookRegistry.SESSION_END == "session:end"
    assert HookRegistry.PROMPT_SUBMIT == "prompt:submit"
    assert HookRegistry.TOOL_PRE == "tool:pre"
    assert HookRegistry.TOOL_POST == "tool:post"
    assert HookRegistry.CONTEXT_PRE_COMPACT == "context:pre_compact"
    assert HookRegistry.ORCHESTRATOR_COMPLETE == "orchestrator:complete"
    assert HookRegistry.USER_NOTIFICATION == "user:notification"
