"""The README documents every rule and config key, and its bundle example is a valid config."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from amplifier_core.hooks import HookRegistry
from amplifier_module_hooks_redaction import (
    BUILTIN_RULES,
    AllowlistConfig,
    RedactionConfig,
    mount,
    parse_config,
)

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def table_keys() -> set[str]:
    return set(re.findall(r"^\| `([a-z_.]+)` \|", README, flags=re.MULTILINE))


def test_every_rule_is_documented() -> None:
    assert {rule.name for rule in BUILTIN_RULES} <= table_keys()


def test_every_config_key_is_documented() -> None:
    keys = {name for name in RedactionConfig.model_fields if name != "allowlist"}
    keys |= {f"allowlist.{name}" for name in AllowlistConfig.model_fields}
    assert keys <= table_keys()


async def test_bundle_example_is_a_valid_config() -> None:
    block = re.search(r"```yaml\n(.*?)```", README, flags=re.DOTALL)
    assert block is not None
    (entry,) = yaml.safe_load(block.group(1))["hooks"]
    assert entry["module"] == "hooks-redaction"
    config = parse_config(entry["config"])
    assert "internal_token" in config.enabled_rules()
    assert "phone" not in config.enabled_rules()

    class Coordinator:
        def __init__(self) -> None:
            self.hooks = HookRegistry()

    coordinator = Coordinator()
    await mount(coordinator, entry["config"])
    result = await coordinator.hooks.emit(
        "llm:request", {"text": "employee E12345 and ci-bot@example.com"}
    )
    assert result.data is not None
    assert result.data["text"] == "employee [REDACTED:employee_id] and ci-bot@example.com"
