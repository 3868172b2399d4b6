"""The README documents every config key, operator and built-in rule; its example is valid."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_approval import (
    BUILTIN_RULES,
    OPERATORS,
    ApprovalConfig,
    RuleConfig,
    mount,
    parse_config,
)

from .support import bash

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def table_keys() -> set[str]:
    return set(re.findall(r"^\| `([a-z_.\[\]:-]+)` \|", README, flags=re.MULTILINE))


def test_every_config_key_is_documented() -> None:
    keys = set(ApprovalConfig.model_fields) | {f"rules[].{k}" for k in RuleConfig.model_fields}
    assert keys <= table_keys()


def test_every_builtin_rule_is_documented() -> None:
    assert {rule.name for rule in BUILTIN_RULES} <= table_keys()


def test_every_operator_is_documented() -> None:
    rows = re.findall(r"^\| (`.*?`(?:, `.*?`)*) \|", README, flags=re.MULTILINE)
    documented = {cell.replace("\\|", "|") for row in rows for cell in re.findall(r"`(.+?)`", row)}
    assert set(OPERATORS) - {"`"} <= documented
    assert "`` ` ``" in README


async def test_bundle_example_is_a_valid_config(workspace: Path) -> None:
    block = re.search(r"```yaml\n(.*?)```", README, flags=re.DOTALL)
    assert block is not None
    (entry,) = yaml.safe_load(block.group(1))["hooks"]
    assert entry["module"] == "hooks-approval"
    config = parse_config(entry["config"])
    assert [rule.name for rule in config.rules] == [
        "tests",
        "npm-test",
        "pipe-to-head",
        "no-force-push",
        "secrets",
        "docs",
        "confirm-ci",
    ]
    coordinator = MockCoordinator()
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, {**entry["config"], "audit_log": None})
    checks = {
        "pytest -q": "continue",
        "git log --oneline | head -n 3": "continue",
        "git push --force origin": "deny",
        "npm publish": "ask_user",
    }
    for command, action in checks.items():
        assert (await coordinator.hooks.emit("tool:pre", bash(command))).action == action
    secret = {"tool_name": "read_file", "tool_input": {"file_path": "config/.env"}}
    assert (await coordinator.hooks.emit("tool:pre", secret)).action == "deny"
