"""The README documents every config key and check, and its bundle example is a valid config."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from pydantic import BaseModel

from amplifier_module_hooks_python_check import (
    CHECKS,
    CheckArgs,
    Commands,
    PythonCheckConfig,
    parse_config,
)

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def table_keys() -> set[str]:
    return set(re.findall(r"^\| `([a-z_.]+)` \|", README, flags=re.MULTILINE))


def test_every_config_key_is_documented() -> None:
    nested: dict[str, type[BaseModel]] = {"commands": Commands, "args": CheckArgs}
    keys = {name for name in PythonCheckConfig.model_fields if name not in nested}
    for parent, model in nested.items():
        keys |= {f"{parent}.{name}" for name in model.model_fields}
    assert keys <= table_keys()


def test_every_check_is_documented() -> None:
    assert set(CHECKS) <= table_keys()


def test_bundle_example_is_a_valid_config() -> None:
    block = re.search(r"```yaml\n(.*?)```", README, flags=re.DOTALL)
    assert block is not None
    (entry,) = yaml.safe_load(block.group(1))["hooks"]
    assert entry["module"] == "hooks-python-check"
    config = parse_config(entry["config"])
    assert config.args.mypy == ("--follow-imports=silent", "--strict")
    assert config.format_diff is True
