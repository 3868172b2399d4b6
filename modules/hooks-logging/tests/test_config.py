"""Config validation: defaults, aliases, and bad values rejected with the key path named."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_module_hooks_logging import DEFAULT_PATH, LoggingConfig, mount, parse_config


def test_defaults() -> None:
    config = parse_config(None)
    assert config == parse_config({})
    assert config.path == DEFAULT_PATH
    assert config.level == "info"
    assert config.include == ["*"]
    assert config.exclude == []
    assert config.debug_events == []
    assert config.extra_events == []
    assert config.auto_discover is True
    assert config.redact_keys == []
    assert config.bytes_format == "utf8"
    assert config.max_bytes == 0
    assert config.backups == 5
    assert config.queue_size == 10_000
    assert config.block_timeout == 10.0
    assert config.priority == -1000


def test_every_key_accepted() -> None:
    raw: dict[str, Any] = {
        "path": "/tmp/x/{project}/{session_id}.jsonl",
        "level": "debug",
        "include": ["tool:*"],
        "exclude": ["tool:error"],
        "debug_events": ["tool:post"],
        "extra_events": ["my:event"],
        "redact_values": False,
        "redact_on_writer": False,
        "auto_discover": False,
        "redact_keys": ["ssn"],
        "bytes_format": "base64",
        "max_bytes": 1000,
        "backups": 2,
        "queue_size": 5,
        "block_timeout": 1,
        "priority": 3,
    }
    config = parse_config(raw)
    assert config.model_dump() == {**raw, "block_timeout": 1.0}


def test_level_is_case_insensitive() -> None:
    assert parse_config({"level": "DEBUG"}).level == "debug"
    assert parse_config({"level": "Warning"}).level == "warning"


def test_ecosystem_aliases() -> None:
    config = parse_config(
        {
            "session_log_template": "~/{session_id}.jsonl",
            "exclude_events": ["llm:stream_*delta"],
            "additional_events": ["skills:loaded"],
        }
    )
    assert config.path == "~/{session_id}.jsonl"
    assert config.exclude == ["llm:stream_*delta"]
    assert config.extra_events == ["skills:loaded"]


def test_additional_events_is_merged_with_extra_events() -> None:
    """Amplifier's foundation appends its names to ``additional_events`` in every logging
    hook's config, also one that lists ``extra_events``: both are kept, each name once."""
    config = parse_config(
        {
            "extra_events": ["my:event", "skills:loaded"],
            "additional_events": ["skills:loaded", "session:config"],
        }
    )
    assert config.extra_events == ["my:event", "skills:loaded", "session:config"]
    with pytest.raises(ValueError, match="extra_events: expected a list"):
        parse_config({"extra_events": ["a"], "additional_events": "session:config"})


def test_config_is_frozen() -> None:
    config = parse_config({})
    with pytest.raises(ValueError):
        config.level = "debug"


@pytest.mark.parametrize(
    ("raw", "fragments"),
    [
        ({"colour": "red"}, ["colour: unknown key 'colour'", "expected one of:", "max_bytes"]),
        ({"level": "verbose"}, ["level: ", "'debug', 'info', 'warning' or 'error'", "'verbose'"]),
        ({"max_bytes": -1}, ["max_bytes: ", "at least 0", "got int -1"]),
        ({"max_bytes": "10"}, ["max_bytes: ", "expected an integer"]),
        ({"backups": -2}, ["backups: ", "at least 0"]),
        ({"queue_size": 0}, ["queue_size: ", "at least 1"]),
        ({"block_timeout": 0}, ["block_timeout: ", "greater than 0"]),
        ({"auto_discover": "yes"}, ["auto_discover: ", "expected true or false"]),
        ({"priority": 1.5}, ["priority: ", "expected an integer"]),
        ({"bytes_format": "hex"}, ["bytes_format: ", "'utf8' or 'base64'"]),
        ({"include": "tool:*"}, ["include: ", "expected a list"]),
        ({"include": ["tool:*", 3]}, ["include[1]: ", "expected a string"]),
        ({"exclude": ["ok", " "]}, ["exclude: ", "item 1 must be a non-empty string"]),
        ({"redact_keys": [""]}, ["redact_keys: ", "non-empty"]),
        ({"path": "/logs/{user}/x.jsonl"}, ["path: ", "unknown placeholder {user}"]),
        ({"path": "/logs/{}.jsonl"}, ["path: ", "unknown placeholder {}"]),
        ({"path": "/logs/{session_id:>9}.jsonl"}, ["path: ", "format spec"]),
        ({"path": "/logs/{session_id"}, ["path: ", "not a valid path template"]),
        ({"path": "  "}, ["path: ", "non-empty path template"]),
    ],
)
def test_bad_config_is_rejected(raw: dict[str, Any], fragments: list[str]) -> None:
    with pytest.raises(ValueError) as caught:
        parse_config(raw)
    message = str(caught.value)
    assert message.startswith("hooks-logging: config")
    for fragment in fragments:
        assert fragment in message, message


def test_several_problems_are_all_named() -> None:
    with pytest.raises(ValueError) as caught:
        parse_config({"max_bytes": -1, "backups": -1})
    assert "max_bytes: " in str(caught.value)
    assert "backups: " in str(caught.value)


def test_not_a_mapping() -> None:
    with pytest.raises(ValueError, match=r"^hooks-logging: config: expected a mapping"):
        parse_config(["level", "debug"])  # type: ignore[arg-type]


def test_model_rejects_unknown_keys_directly() -> None:
    with pytest.raises(ValueError):
        LoggingConfig.model_validate({"nope": 1})


async def test_mount_rejects_bad_config_before_subscribing(make_coordinator: Any) -> None:
    coordinator = make_coordinator()
    with pytest.raises(ValueError, match=r"^hooks-logging: config: level: "):
        await mount(coordinator, {"level": "loud"})
    assert coordinator.hooks.list_handlers() == {}


async def test_mount_rejects_a_coordinator_without_hooks() -> None:
    class Bare:
        session_id = "s"

    with pytest.raises(TypeError, match=r"hooks-logging: mount: .* no hook registry"):
        await mount(Bare(), {})
