"""Helpers shared by the tests: tool:pre data of a bash call, an audit file's records, and
the rule sets the scanner tests judge commands with (the built-in rules, the README's example
rules and broad globs)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from amplifier_module_hooks_approval.config import parse_config
from amplifier_module_hooks_approval.rules import RuleSet

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def readme_rules() -> list[dict[str, Any]]:
    """The ``rules`` of the README's example bundle."""
    block = re.search(r"```yaml\n(.*?)```", README, flags=re.DOTALL)
    assert block is not None
    (entry,) = yaml.safe_load(block.group(1))["hooks"]
    return list(entry["config"]["rules"])


RULESETS = {
    "builtin": RuleSet(parse_config({})),
    "readme": RuleSet(parse_config({"rules": readme_rules()})),
    "globs": RuleSet(
        parse_config({"rules": [{"action": "allow", "command": ["ls*", "pytest*", "git *"]}]})
    ),
}


def bash(command: str, call_id: str = "call_1") -> dict[str, Any]:
    """``tool:pre`` data of a bash call."""
    return {"tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": call_id}


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON records of an audit file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
