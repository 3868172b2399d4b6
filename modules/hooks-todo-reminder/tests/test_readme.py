"""The README documents every config key with its real default, and the real output."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_todo_reminder import TodoReminderConfig, parse_config, render_reminder

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def config_section() -> str:
    return README.split("## Config\n", 1)[1].split("\n## ", 1)[0]


def test_every_config_key_is_in_the_table_in_order() -> None:
    keys = re.findall(r"^\| `([a-z_]+)` +\|", config_section(), flags=re.MULTILINE)
    assert keys == list(TodoReminderConfig.model_fields)


def test_every_documented_default_is_the_real_default() -> None:
    rows = {
        match[0]: match[1]
        for match in re.findall(r"^\| `([a-z_]+)` \|[^|]*\| (.*?) \|", config_section(), re.M)
    }
    for key, value in parse_config({}).model_dump().items():
        shown = rows[key].strip("`")
        assert (shown if isinstance(value, str) else json.loads(shown)) == value, key


def test_the_example_block_is_what_the_module_writes() -> None:
    plan = [
        {"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"},
        {"content": "Write the tests", "status": "in_progress", "activeForm": "Writing the tests"},
        {"content": "Update the README", "status": "pending", "activeForm": "Updating the README"},
    ]
    example = README.split("```text\n", 1)[1].split("```", 1)[0]
    assert example == f"{render_reminder(plan, parse_config({}))}\n"


BAD: dict[str, dict[str, Any]] = {
    "event": {"event": "provider:requets"},
    "nudge_after": {"nudge_after": -1},
    "max_item": {"max_item": 5},
}


@pytest.mark.parametrize("key", list(BAD))
def test_the_documented_errors_are_the_real_ones(key: str) -> None:
    documented = README.split("```text\n", 2)[2].split("```", 1)[0].splitlines()
    line = next(line for line in documented if line.split(": ")[2] == key)
    with pytest.raises(ValueError) as caught:
        parse_config(BAD[key])
    assert str(caught.value) == line


def test_every_documented_error_is_checked() -> None:
    documented = README.split("```text\n", 2)[2].split("```", 1)[0].splitlines()
    assert [line.split(": ")[2] for line in documented] == list(BAD)
