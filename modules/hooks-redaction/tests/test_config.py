"""Every config key, mounted on a real HookRegistry, and every kind of bad config."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_module_hooks_redaction import (
    DEFAULT_EVENTS,
    RedactionConfig,
    build_redactor,
    mount,
    parse_config,
)

GH = "ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa12"
EMAIL = "jane.roe@example.com"


class Coordinator:
    """The part of a coordinator a hook module touches: ``hooks``."""

    def __init__(self) -> None:
        self.hooks = HookRegistry()


async def mounted(config: dict[str, Any] | None) -> tuple[Coordinator, Callable[[], None]]:
    coordinator = Coordinator()
    cleanup = await mount(coordinator, config)
    return coordinator, cleanup


async def emit(
    config: dict[str, Any] | None, data: dict[str, Any], event: str = "tool:post"
) -> HookResult:
    coordinator, _ = await mounted(config)
    return await coordinator.hooks.emit(event, data)


# ------------------------------------------------------------------------------------ events


async def test_events_default_to_prompt_provider_request_and_tool_results() -> None:
    coordinator, cleanup = await mounted(None)
    assert DEFAULT_EVENTS == ("prompt:submit", "provider:request", "tool:post", "tool:error")
    listing = coordinator.hooks.list_handlers()
    assert listing == {event: ["hooks-redaction"] for event in DEFAULT_EVENTS}
    cleanup()
    for event in DEFAULT_EVENTS:
        assert coordinator.hooks.list_handlers(event) == {event: []}


async def test_events_replace_the_defaults_and_accept_aliases_and_duplicates() -> None:
    coordinator, _ = await mounted({"events": ["llm:request", "PreToolUse", "llm:request"]})
    listing = coordinator.hooks.list_handlers()
    assert listing == {"llm:request": ["hooks-redaction"], "tool:pre": ["hooks-redaction"]}
    result = await coordinator.hooks.emit("tool:pre", {"tool_input": {"command": f"echo {GH}"}})
    assert result.action == "continue"
    untouched = await coordinator.hooks.emit("tool:post", {"tool_result": GH})
    assert untouched.action == "continue"


# ------------------------------------------------------------------------------------- rules


async def test_rules_choose_rule_sets_and_single_rules() -> None:
    text = f"{GH} {EMAIL}"
    secrets_only = await emit({"rules": ["secrets"]}, {"output": text})
    assert secrets_only.data is not None
    assert secrets_only.data["output"] == f"[REDACTED:github_token] {EMAIL}"
    pii_basic = await emit({"rules": ["pii-basic"]}, {"output": text})
    assert pii_basic.data is not None
    assert pii_basic.data["output"] == f"{GH} [REDACTED:email]"
    single = await emit({"rules": ["email", "phone"]}, {"output": text})
    assert single.data is not None
    assert single.data["redaction"] == {"email": 1}
    default = await emit(None, {"output": text})
    assert default.data is not None
    assert default.data["redaction"] == {"github_token": 1, "email": 1}


async def test_disabled_rules_switch_off_built_in_and_custom_rules() -> None:
    config = {
        "rules": ["all"],
        "disabled_rules": ["email", "ticket"],
        "custom_rules": {"ticket": r"TICKET-\d{6}"},
    }
    result = await emit(config, {"output": f"{EMAIL} TICKET-123456 {GH}"})
    assert result.data is not None
    assert result.data["output"] == f"{EMAIL} TICKET-123456 [REDACTED:github_token]"


async def test_custom_rules_redact_whole_matches_or_their_secret_group() -> None:
    config = {
        "custom_rules": {
            "internal_token": r"itk_[a-z0-9]{16}",
            "employee_id": r"employee (?P<secret>E\d{5})",
        }
    }
    data = {"output": "itk_0123456789abcdef for employee E12345"}
    result = await emit(config, data)
    assert result.data is not None
    assert result.data["output"] == (
        "[REDACTED:internal_token] for employee [REDACTED:employee_id]"
    )
    assert result.data["redaction"] == {"internal_token": 1, "employee_id": 1}


# --------------------------------------------------------------------------------- allowlist


async def test_allowlist_values_keep_exact_matches() -> None:
    result = await emit(
        {"allowlist": {"values": [EMAIL]}}, {"output": f"{EMAIL} and other@example.com"}
    )
    assert result.data is not None
    assert result.data["output"] == f"{EMAIL} and [REDACTED:email]"


async def test_allowlist_patterns_keep_full_matches() -> None:
    config = {"allowlist": {"patterns": [r"[a-z.]+@example\.com", r"\(555\) 01\d\d-\d{4}"]}}
    text = f"{EMAIL}, ops@corp.io, (555) 0123-4567? no: (555) 234-5678"
    result = await emit(config, {"output": text})
    assert result.data is not None
    assert (
        result.data["output"] == f"{EMAIL}, [REDACTED:email], (555) 0123-4567? no: [REDACTED:phone]"
    )


async def test_allowlist_paths_exempt_whole_subtrees() -> None:
    config = {"allowlist": {"paths": ["tool_result.fixtures", "messages[*].meta", "**.checksum"]}}
    data = {
        "tool_result": {"fixtures": {"key": GH}, "output": GH},
        "messages": [{"meta": [GH], "content": GH}],
        "deep": {"x": [{"checksum": GH}]},
    }
    result = await emit(config, data)
    assert result.data is not None
    assert result.data["tool_result"] == {
        "fixtures": {"key": GH},
        "output": "[REDACTED:github_token]",
    }
    assert result.data["messages"] == [{"meta": [GH], "content": "[REDACTED:github_token]"}]
    assert result.data["deep"] == {"x": [{"checksum": GH}]}
    assert result.data["redaction"] == {"github_token": 2}


async def test_allowlist_as_a_plain_list_means_key_paths() -> None:
    assert parse_config({"allowlist": ["tool_input"]}).allowlist.paths == ("tool_input",)
    result = await emit({"allowlist": ["tool_input"]}, {"tool_input": GH, "tool_result": GH})
    assert result.data is not None
    assert result.data["tool_input"] == GH
    assert result.data["tool_result"] == "[REDACTED:github_token]"


async def test_envelope_fields_are_always_exempt() -> None:
    data = {"session_id": GH, "parent_id": EMAIL, "output": GH}
    result = await emit(None, data)
    assert result.data is not None
    assert (result.data["session_id"], result.data["parent_id"]) == (GH, EMAIL)
    assert result.data["output"] == "[REDACTED:github_token]"


# ------------------------------------------------------------------------- output and report


async def test_replacement_template() -> None:
    angle = await emit({"replacement": "<{rule} removed>"}, {"output": GH})
    assert angle.data is not None
    assert angle.data["output"] == "<github_token removed>"
    fixed = await emit({"replacement": "***"}, {"output": f"{GH} {EMAIL}"})
    assert fixed.data is not None
    assert fixed.data["output"] == "*** ***"
    braces = await emit({"replacement": "{{{rule}}}"}, {"output": GH})
    assert braces.data is not None
    assert braces.data["output"] == "{github_token}"


async def test_counts_key_names_the_report_or_turns_it_off() -> None:
    named = await emit({"counts_key": "_redacted"}, {"output": GH})
    assert named.data is not None
    assert named.data["_redacted"] == {"github_token": 1}
    assert "redaction" not in named.data
    off = await emit({"counts_key": None}, {"output": GH})
    assert off.data is not None
    assert set(off.data) == {"output", "timestamp"}
    merged = await emit(None, {"output": GH, "redaction": {"github_token": 2, "applied": True}})
    assert merged.data is not None
    assert merged.data["redaction"] == {"github_token": 3, "applied": True}


async def test_notify_and_notify_level() -> None:
    loud = await emit({"notify_level": "warning"}, {"output": f"{GH} {GH} {EMAIL}"})
    assert loud.user_message == "Redacted 3 secrets (github_token: 2, email: 1)"
    assert loud.user_message_level == "warning"
    assert loud.user_message_source == "hooks-redaction"
    one = await emit(None, {"output": EMAIL})
    assert one.user_message == "Redacted 1 secret (email: 1)"
    assert one.user_message_level == "info"
    quiet = await emit({"notify": False}, {"output": GH})
    assert quiet.action == "continue"
    assert quiet.user_message is None


async def test_priority_orders_the_handler_among_others() -> None:
    for priority, expected in ((-100, "[REDACTED:github_token]"), (100, GH)):
        coordinator, _ = await mounted({"priority": priority})
        seen: list[str] = []

        async def observer(event: str, data: dict[str, Any], seen: list[str] = seen) -> HookResult:
            seen.append(data["output"])
            return HookResult()

        coordinator.hooks.register("tool:post", observer, priority=0, name="observer")
        result = await coordinator.hooks.emit("tool:post", {"output": GH})
        assert seen == [expected]
        assert result.data is not None
        assert result.data["output"] == "[REDACTED:github_token]"


def nested(depth: int) -> Any:
    value: Any = GH
    for _ in range(depth):
        value = [value]
    return value


class _Exploding(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[no-untyped-def,override]
        raise RuntimeError("boom")


async def test_fail_closed_denies_when_redaction_itself_fails() -> None:
    # A host that hands handlers its own objects (json_event_data: false; the kernel's JSON
    # view would turn the exploding mapping into text first).
    data = {"output": _Exploding(a="b")}
    coordinator, _ = await mounted({"fail_closed": True})
    coordinator.hooks.json_data = False
    closed = await coordinator.hooks.emit("tool:post", data)
    assert closed.action == "deny"
    assert closed.reason is not None
    assert closed.reason.startswith(
        "hooks-redaction: could not redact tool:post data (RuntimeError"
    )
    coordinator, _ = await mounted(None)
    coordinator.hooks.json_data = False
    opened = await coordinator.hooks.emit("tool:post", data)
    assert opened.action == "continue"


async def test_data_nested_deeper_than_the_recursion_limit_is_cut_not_passed() -> None:
    data = {"output": nested(100_000)}  # deeper than Python's recursion limit
    result = await emit(None, data)  # the kernel's JSON view or the redactor cuts it
    assert result.data is not None
    assert GH not in json.dumps(result.data)
    assert "nested deeper than" in json.dumps(result.data)


# -------------------------------------------------------------------------------- bad config


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"rulez": ["secrets"]}, "rulez: unknown key 'rulez' (did you mean 'rules'?)"),
        ({"events": []}, "events: expected at least 1 item, got 0 items"),
        ({"events": "tool:post"}, "events: expected a list, got str 'tool:post'"),
        ({"events": ["tool:post", " "]}, "events[1]: expected an event name such as 'tool:post'"),
        (
            {"rules": ["secrets", "githb_token"]},
            "rules[1]: unknown rule or rule set 'githb_token'; expected one of: secrets, pii,",
        ),
        (
            {"disabled_rules": ["nope"]},
            "disabled_rules[0]: unknown rule 'nope'; expected one of: private_key,",
        ),
        ({"rules": [], "custom_rules": {}}, "rules: no rule is left to apply"),
        ({"rules": ["email"], "disabled_rules": ["email"]}, "rules: no rule is left to apply"),
        (
            {"custom_rules": {"ticket": "TICKET-(\\d+"}},
            "custom_rules.ticket: not a valid regular expression (missing ), unterminated",
        ),
        (
            {"custom_rules": {"ticket": "x*"}},
            "custom_rules.ticket: pattern 'x*' matches the empty string",
        ),
        (
            {"custom_rules": {"Bad Name": "x+"}},
            "custom_rules.Bad Name (the key): rule name 'Bad Name' must be lower case letters",
        ),
        (
            {"custom_rules": {"email": "x+"}},
            "custom_rules.email (the key): rule name 'email' is already a built-in rule",
        ),
        ({"allowlist": {"values": "a"}}, "allowlist.values: expected a list, got str 'a'"),
        (
            {"allowlist": {"patterns": ["ok", "("]}},
            "allowlist.patterns[1]: not a valid regular expression",
        ),
        (
            {"allowlist": {"paths": ["a..b"]}},
            "allowlist.paths[0]: key path 'a..b': part '' is not a key",
        ),
        (
            {"allowlist": {"paths": ["**"]}},
            "allowlist.paths[0]: key path '**' would match the whole event data",
        ),
        (
            {"allowlist": {"pathz": []}},
            "allowlist.pathz: unknown key 'pathz' (did you mean 'paths'?)",
        ),
        (
            {"replacement": "[{name}]"},
            "replacement: unknown placeholder {name} in '[{name}]'; only {rule} is available",
        ),
        ({"replacement": "[{rule]"}, "replacement: '[{rule]' is not a valid template"),
        ({"replacement": ""}, "replacement: expected a non-empty string, got str ''"),
        ({"counts_key": ""}, "counts_key: expected a non-empty string, got str ''"),
        ({"notify": "loudly"}, "notify: expected true or false, got str 'loudly'"),
        (
            {"notify_level": "debug"},
            "notify_level: expected one of 'info', 'warning' or 'error', got str 'debug'",
        ),
        ({"priority": "first"}, "priority: expected an integer, got str 'first'"),
        ({"fail_closed": [True]}, "fail_closed: expected true or false, got a list"),
        (["secrets"], "expected a mapping of keys, got a list"),
    ],
)
async def test_bad_config_is_rejected_with_the_key_path(config: Any, message: str) -> None:
    with pytest.raises(ValueError, match=r"^hooks-redaction: config: ") as caught:
        await mount(Coordinator(), config)
    assert message in str(caught.value)


def test_parse_config_defaults() -> None:
    config = parse_config(None)
    assert config == RedactionConfig()
    assert config.enabled_rules()[:3] == ("private_key", "split_token", "jwt")
    assert build_redactor(config).redact_text("nothing") == ("nothing", {})
