"""SessionSettings: the ``session:`` block, typed once, with errors that name the key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.session import AmplifierSession
from amplifier_core.session_settings import (
    DEFAULT_HOOK_TIMEOUT,
    SessionSettings,
    SessionSettingsError,
)

# The session block of a mount plan as Amplifier's own application writes it.
AMPLIFIER_PLAN_SESSION = {
    "orchestrator": "loop-basic",
    "context": "context-simple",
    "orchestrator_source": "git+https://github.com/microsoft/amplifier-module-loop-basic@main",
    "context_source": "git+https://github.com/microsoft/amplifier-module-context-simple@main",
    "injection_budget_per_turn": 500,
    "injection_size_limit": 8192,
    "raw": True,
    "metadata": {"app": "amplifier"},
}


def test_amplifiers_mount_plan_keys_are_read_as_typed_fields() -> None:
    settings = SessionSettings.parse(AMPLIFIER_PLAN_SESSION)
    assert settings.orchestrator == "loop-basic"
    assert settings.context_source is not None
    assert (settings.injection_budget_per_turn, settings.injection_size_limit) == (500, 8192)
    assert settings.raw is True
    assert settings.metadata == {"app": "amplifier"}
    assert settings.model_extra == {}
    assert settings.given() == AMPLIFIER_PLAN_SESSION


def test_an_empty_or_missing_block_has_the_kernels_defaults() -> None:
    for block in (None, {}):
        settings = SessionSettings.parse(block)
        assert settings.injection_size_limit is None  # unlimited, as amplifier-core 2.0.2
        assert settings.injection_budget_per_turn is None
        assert settings.hook_timeout == DEFAULT_HOOK_TIMEOUT
        assert settings.json_event_data is True
        assert settings.given() == {}
    assert SessionSettings.parse({"hook_timeout": None}).hook_timeout is None  # no timeout


def test_unknown_keys_are_kept_as_written() -> None:
    settings = SessionSettings.parse({"orchestrator": "o", "team_colour": "teal"})
    assert settings.model_extra == {"team_colour": "teal"}
    assert settings.given() == {"orchestrator": "o", "team_colour": "teal"}
    assert settings.unexpected_bundle_keys() == ["team_colour"]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            {"injection_size_limit": -1},
            "config key session.injection_size_limit: expected a whole number >= 0 or null "
            "(unlimited), got -1",
        ),
        (
            {"injection_budget_per_turn": True},
            "config key session.injection_budget_per_turn: expected a whole number >= 0",
        ),
        ({"hook_timeout": "soon"}, "config key session.hook_timeout: expected seconds > 0"),
        ({"audit_log": 5}, "config key session.audit_log: expected a file path, got 5"),
        ({"orchestrator": 3}, "config key session.orchestrator: expected a module id or a"),
        ({"json_event_data": "maybe"}, "config key session.json_event_data: expected true or"),
        ([1, 2], "config key session: expected a mapping, got 'list'"),
    ],
)
def test_a_wrong_value_names_its_key_path_and_what_was_expected(
    block: object, message: str
) -> None:
    with pytest.raises(SessionSettingsError) as raised:
        SessionSettings.parse(block)
    assert str(raised.value).startswith(message)
    assert isinstance(raised.value, ValueError)


def test_a_path_object_is_taken_as_its_text(tmp_path: Path) -> None:
    settings = SessionSettings.parse({"audit_log": tmp_path / "audit.jsonl"})
    assert settings.audit_log == str(tmp_path / "audit.jsonl")


def test_the_bundle_keys_leave_out_what_the_application_sets_in_the_plan() -> None:
    keys = SessionSettings.bundle_keys()
    assert {"orchestrator", "context", "injection_size_limit", "hook_timeout", "tools"} <= set(keys)
    assert not {"working_dir", "base_dir", "orchestrator_source", "context_source"} & set(keys)
    written = SessionSettings.parse({"working_dir": "/w", "hook_timout": 3})
    assert written.unexpected_bundle_keys() == ["working_dir", "hook_timout"]
    assert SessionSettings.unexpected_key_message("hook_timout") == (
        "unknown session key 'hook_timout' (did you mean 'hook_timeout'?)"
    )
    assert SessionSettings.unexpected_key_message("zzz") == (
        "unknown session key 'zzz'; the session ignores it"
    )


def test_the_coordinator_and_the_session_read_the_same_parsed_settings() -> None:
    plan = {"session": {**AMPLIFIER_PLAN_SESSION, "hook_timeout": 5, "working_dir": "/w"}}
    session = AmplifierSession(plan)
    settings = session.coordinator.settings
    assert settings.hook_timeout == 5.0
    assert session.coordinator.hooks.default_timeout == 5.0
    assert session.coordinator.injection_size_limit == 8192
    assert session.coordinator.get_capability("session.working_dir") == "/w"
    assert SessionSettings.of_plan(plan, session.coordinator) is settings
    assert SessionSettings.of_plan(dict(plan), session.coordinator) is not settings
    with pytest.raises(SessionSettingsError, match=r"session\.injection_size_limit"):
        ModuleCoordinator(config={"session": {"injection_size_limit": "big"}})


def test_the_bundle_guide_lists_every_session_key() -> None:
    guide = Path(__file__).resolve().parents[2] / "docs" / "bundles.md"
    section = guide.read_text().split("## The `session:` block", 1)[1].split("\n## ", 1)[0]
    missing = [key for key in SessionSettings.model_fields if f"`{key}`" not in section]
    assert missing == []
