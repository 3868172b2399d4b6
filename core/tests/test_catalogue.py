"""The event catalogue: complete and consistent with events.py (docs/events.md, rendered from
it, is checked in tests/docs/test_events_page.py)."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core import event_aliases, events
from amplifier_core.catalogue import (
    CATALOGUE,
    CATEGORIES,
    COMMON_FIELDS,
    EMITTERS,
    EventSpec,
    FieldSpec,
    UnknownEventError,
    spec_for,
    specs_matching,
    validate_event_data,
)
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult


def _payload(spec: EventSpec) -> dict[str, Any]:
    """A payload with every required event-specific key (common fields left to the registry)."""
    return {f.name: f"<{f.name}>" for f in spec.fields if f.required}


# ------------------------------------------------------------------ completeness


def test_every_event_has_exactly_one_spec() -> None:
    assert list(CATALOGUE) == [s.name for s in CATALOGUE.values()]
    assert set(CATALOGUE) == set(events.ALL_EVENTS), (
        f"undocumented: {sorted(set(events.ALL_EVENTS) - set(CATALOGUE))}; "
        f"unknown: {sorted(set(CATALOGUE) - set(events.ALL_EVENTS))}"
    )
    assert len(CATALOGUE) == len(events.ALL_EVENTS) == 48


def test_no_spec_for_an_unknown_event() -> None:
    for name in CATALOGUE:
        assert name in events.ALL_EVENTS, f"{name} is documented but not in events.ALL_EVENTS"
    assert specs_matching("myplugin:*") == ()
    lookalike = "tool:pr\u0435"  # Cyrillic e: looks right, is not
    with pytest.raises(UnknownEventError, match=f"unknown event '{lookalike}'"):
        spec_for(lookalike)


def test_every_spec_is_filled_in() -> None:
    for spec in CATALOGUE.values():
        where = spec.name
        assert spec.summary.endswith("."), where
        assert spec.when.endswith("."), where
        assert spec.emitter in EMITTERS, where
        assert spec.category in CATEGORIES, where
        assert spec.fields, f"{where} documents no data fields"
        for f in spec.fields:
            assert f.name, where
            assert f.type, (where, f.name)
            assert f.description.endswith("."), (where, f.name)
        for effect in spec.effects:
            assert effect.action != "continue", where
            assert effect.effect, (where, effect.action)
            assert not effect.effect.endswith("."), "the renderer adds the full stop"
    assert {s.category for s in CATALOGUE.values()} == set(CATEGORIES)


def test_common_fields_are_session_id_and_timestamp() -> None:
    assert [(f.name, f.required) for f in COMMON_FIELDS] == [
        ("session_id", True),
        ("timestamp", True),
    ]
    for spec in CATALOGUE.values():
        assert spec.all_fields[:2] == COMMON_FIELDS
        assert {"session_id", "timestamp"} <= spec.required_keys


def test_upstream_flag_matches_events_module() -> None:
    new = {s.name for s in CATALOGUE.values() if not s.upstream}
    assert new == {
        "session:config",
        "session:checkpoint",
        "provider:switch",
        "memory:update",
        "hook:observed",
    }


# ------------------------------------------------------------------ aliases and lookup


def test_spec_for_resolves_aliases() -> None:
    assert spec_for("PreToolUse") is CATALOGUE["tool:pre"]
    assert spec_for("tool:pre") is CATALOGUE["tool:pre"]
    for alias, target in event_aliases.ALIASES.items():
        if events.is_pattern(target):
            continue
        spec = spec_for(alias)
        assert spec.name == target
        assert spec.alias == alias


def test_aliases_on_specs_match_events_aliases() -> None:
    for spec in CATALOGUE.values():
        expected = [a for a, t in event_aliases.ALIASES.items() if t == spec.name]
        if spec.name in event_aliases.ERROR_EVENTS:
            expected.append("Error")
        assert sorted(spec.aliases) == sorted(expected), spec.name
    with_error = {s.name for s in CATALOGUE.values() if "Error" in s.aliases}
    assert with_error == set(event_aliases.ERROR_EVENTS)


def test_error_alias_is_a_pattern_not_an_event() -> None:
    with pytest.raises(UnknownEventError, match=r"pattern \(\*:error\).*provider:error"):
        spec_for("Error")
    assert [s.name for s in specs_matching("Error")] == ["provider:error", "tool:error"]
    assert [s.name for s in specs_matching("tool:*")] == ["tool:pre", "tool:post", "tool:error"]
    assert len(specs_matching("*")) == len(events.ALL_EVENTS)
    assert specs_matching("ModelSwitch") == (CATALOGUE["provider:switch"],)


def test_unknown_event_error_suggests_close_names() -> None:
    with pytest.raises(UnknownEventError) as info:
        spec_for("tool:psot")
    assert str(info.value).startswith(
        "unknown event 'tool:psot': not in the event catalogue; did you mean tool:post"
    )
    assert isinstance(info.value, KeyError)


# ------------------------------------------------------------------ validation


def test_validate_reports_missing_keys_with_event_and_type() -> None:
    problems = validate_event_data("tool:pre", {"tool_name": "bash", "session_id": "s"})
    assert "tool:pre: missing required key 'tool_input' (dict[str, Any])" in problems
    assert "tool:pre: missing required key 'timestamp' (str)" in problems
    assert not any("'tool_name'" in p or "'session_id'" in p for p in problems)
    assert not any("parallel_group_id" in p for p in problems), "optional keys are not required"


def test_validate_accepts_extras_and_aliases() -> None:
    data = {
        "session_id": "s1",
        "timestamp": "2025-01-01T00:00:00.000000+00:00",
        **_payload(CATALOGUE["provider:switch"]),
        "x-vendor": {"anything": 1},
    }
    assert validate_event_data("provider:switch", data) == []
    assert validate_event_data("ModelSwitch", data) == []


def test_validate_can_skip_common_fields() -> None:
    payload = _payload(CATALOGUE["memory:update"])
    assert validate_event_data("memory:update", payload, include_common=False) == []
    assert len(validate_event_data("memory:update", payload)) == 2


def test_validate_rejects_unknown_events() -> None:
    with pytest.raises(UnknownEventError, match="myplugin:thing"):
        validate_event_data("myplugin:thing", {})


async def test_payloads_through_a_real_registry_satisfy_the_catalogue() -> None:
    """session_id comes from the registry's default fields and timestamp from emit."""
    registry = HookRegistry()
    registry.set_default_fields(session_id="sess-1")
    seen: list[tuple[str, dict[str, Any]]] = []

    def record(event: str, data: dict[str, Any]) -> HookResult:
        seen.append((event, data))
        return HookResult()

    registry.register("*", record, name="recorder")
    for spec in CATALOGUE.values():
        await registry.emit(spec.name, _payload(spec))
    assert [event for event, _ in seen] == list(CATALOGUE)
    for event, data in seen:
        assert validate_event_data(event, data) == [], event


async def test_error_alias_handler_sees_canonical_names() -> None:
    registry = HookRegistry()
    names: list[str] = []
    registry.register("Error", lambda event, data: names.append(event), name="errors")
    for event in events.ALL_EVENTS:
        await registry.emit(event, {})
    assert names == list(event_aliases.ERROR_EVENTS)


# ------------------------------------------------------------------ documented contracts


def _required(spec: EventSpec) -> set[str]:
    return {f.name for f in spec.fields if f.required}


def test_tool_events_carry_the_ecosystem_keys() -> None:
    for name in ("tool:pre", "tool:post", "tool:error"):
        assert {"tool_name", "tool_input", "tool", "tool_call_id"} <= _required(CATALOGUE[name])
    assert "tool_result" in _required(CATALOGUE["tool:post"])
    assert "tool_result" not in {f.name for f in CATALOGUE["tool:pre"].fields}
    assert "error" in _required(CATALOGUE["tool:error"])


@pytest.mark.parametrize(
    ("event", "keys"),
    [
        ("session:checkpoint", {"checkpoint_id", "path", "turn", "messages"}),
        (
            "provider:switch",
            {"old_model", "new_model", "old_provider", "new_provider", "reason"},
        ),
        ("memory:update", {"path", "change", "diff", "added_lines", "removed_lines"}),
        (
            "module:load_failed",
            {"module_id", "entry_point", "error", "error_type", "stage"},
        ),
        ("approval:required", {"tool_name", "prompt", "options", "hook"}),
        ("approval:granted", {"tool_name", "prompt", "options", "decision", "hook"}),
        ("approval:denied", {"tool_name", "prompt", "options", "decision", "hook"}),
        ("prompt:submit", {"prompt"}),
        ("provider:request", {"messages", "model"}),
    ],
)
def test_event_schemas(event: str, keys: set[str]) -> None:
    missing = keys - _required(CATALOGUE[event])
    assert not missing, f"{event} lacks required keys {sorted(missing)}"


def test_hook_outcomes() -> None:
    assert CATALOGUE["tool:pre"].honours == ("deny", "modify", "ask_user", "inject_context")
    assert CATALOGUE["tool:pre"].modifiable == ("tool_input",)
    assert CATALOGUE["tool:post"].honours == ("modify", "inject_context")
    assert CATALOGUE["tool:post"].modifiable == ("tool_result",)
    assert CATALOGUE["provider:request"].modifiable == ("messages",)
    assert CATALOGUE["prompt:submit"].honours == ("deny", "modify", "inject_context")
    assert CATALOGUE["prompt:submit"].modifiable == ("prompt",)
    ask_user = [s.name for s in CATALOGUE.values() if "ask_user" in s.honours]
    assert ask_user == ["tool:pre"]
    observers = [s for s in CATALOGUE.values() if s.observe_only]
    assert len(observers) > len(CATALOGUE) * 3 // 4, "most events are observe only"
    assert CATALOGUE["memory:update"].observe_only


def test_specs_refuse_inconsistent_definitions() -> None:
    base: dict[str, Any] = {
        "name": "x:y",
        "category": CATEGORIES[0],
        "aliases": (),
        "summary": "S.",
        "when": "F.",
        "emitter": "orchestrator",
        "fields": (FieldSpec("a", "str", True, "A."),),
    }
    EventSpec(**base)
    with pytest.raises(ValueError, match="x:y: 'modify' must be honoured"):
        EventSpec(**base, modifiable=("a",))
    with pytest.raises(ValueError, match="x:y: unknown emitter 'someone'"):
        EventSpec(**{**base, "emitter": "someone"})
    with pytest.raises(ValueError, match=r"x:y: duplicate field\(s\) \['session_id'\]"):
        EventSpec(**{**base, "fields": (FieldSpec("session_id", "str", True, "S."),)})


# ------------------------------------------------------------------ the data file


def test_importing_the_catalogue_reads_no_file_and_the_first_use_reads_it_once() -> None:
    import subprocess
    import sys

    script = (
        "import amplifier_core.catalogue as c\n"
        "assert c._document.cache_info().currsize == 0, 'read at import'\n"
        "from amplifier_core.catalogue import CATALOGUE, EMITTERS\n"
        "c.spec_for('PreToolUse'); len(CATALOGUE); len(EMITTERS)\n"
        "info = c._document.cache_info()\n"
        "assert (info.misses, info.currsize) == (1, 1), info\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_broken_entry_is_named_by_file_event_and_key_path() -> None:
    import copy

    from amplifier_core import catalogue

    document = copy.deepcopy(catalogue._document().value)
    assert isinstance(document, dict)
    pre = next(i for i, e in enumerate(document["events"]) if e["name"] == "tool:pre")
    sets = {k: catalogue._Reader(v, k).fields({}) for k, v in document["field_sets"].items()}

    def error(change: dict[str, Any]) -> str:
        entry = {**document["events"][pre], **change}
        reader = catalogue._Reader(entry, f"['events'][{pre}]")
        with pytest.raises(ValueError) as raised:
            catalogue._spec(reader, sets)
        return str(raised.value)

    where = f"amplifier_core/catalogue.json: ['events'][{pre}] (tool:pre)"
    assert error({"fields": ["@nope"]}).startswith(f"{where}['fields'][0]: '@nope' names no")
    assert error({"effects": [{"action": "halt", "effect": "x"}]}) == (
        f"{where}['effects'][0]['action']: unknown action 'halt' "
        "(known: ['continue', 'deny', 'modify', 'inject_context', 'ask_user'])"
    )
    assert error({"emitter": "someone"}) == (
        f"{where}: catalogue: tool:pre: unknown emitter 'someone'"
    )
    assert error({"summary": 3}) == f"{where}['summary']: expected a string, found int"
    missing = {k: v for k, v in document["events"][pre].items() if k != "when"}
    with pytest.raises(ValueError, match=r"\(tool:pre\): missing key 'when'"):
        catalogue._spec(catalogue._Reader(missing, f"['events'][{pre}]"), sets)
