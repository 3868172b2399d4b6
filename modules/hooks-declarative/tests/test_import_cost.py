"""Importing and mounting hooks-declarative with no hooks file to read loads no YAML parser
(PyYAML, about 10 ms of imports, comes with the first YAML or JSON file read), nor the config
check ``validate`` uses nor the survey of hook sources (each comes with its first use)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import asyncio, json, sys
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount

async def main():
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", sys.argv[1])
    config = json.loads(sys.argv[2])
    cleanup = await mount(coordinator, config)
    result = await coordinator.hooks.emit(
        "tool:pre", {"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}
    )
    await cleanup()
    return result.action

action = asyncio.run(main())
print(json.dumps({"action": action, "loaded": sorted(sys.modules)}))
"""

_RULE = {"type": "matcher", "match": {"tool": "bash"}, "action": "block", "message": "no"}


def _mounted(tmp_path: Path, config: dict[str, object]) -> tuple[str, list[str]]:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path), json.dumps(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["action"], found["loaded"]


def test_a_mount_with_inline_hooks_only_imports_no_yaml(tmp_path: Path) -> None:
    config = {
        "include_user": False,
        "include_project": False,
        "hooks": {"PreToolUse": [_RULE]},
    }
    action, loaded = _mounted(tmp_path, config)
    assert action == "deny"  # the inline hook is mounted and answers
    assert "amplifier_module_hooks_declarative.mount" in loaded
    early = [name for name in loaded if name == "yaml" or name.startswith("yaml.")]
    assert early == [], f"imported at mount: {early}"
    assert "amplifier_hooks_util.yaml_locations" not in loaded
    later = [
        name
        for name in ("check", "survey")
        if f"amplifier_module_hooks_declarative.{name}" in loaded
    ]
    assert later == [], f"imported at mount: {later}"


def test_the_names_kept_for_later_are_still_there() -> None:
    code = """
import amplifier_module_hooks_declarative as hooks
from amplifier_module_hooks_declarative import CheckedConfig, Survey, survey_sources
from amplifier_module_hooks_declarative.check import CheckedConfig as Direct
from amplifier_module_hooks_declarative.survey import survey_sources as direct_survey
assert hooks.config_schema is Direct is CheckedConfig
assert survey_sources is direct_survey and Survey.__name__ == "Survey"
try:
    hooks.nothing_here
except AttributeError as err:
    assert "nothing_here" in str(err)
else:
    raise SystemExit("an unknown name was answered")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_a_hooks_file_is_still_read_with_its_yaml(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.yaml"
    hooks.write_text(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: bash}\n"
        "      action: block\n      message: not here\n",
        encoding="utf-8",
    )
    config = {"include_user": False, "include_project": False, "files": [str(hooks)]}
    action, loaded = _mounted(tmp_path, config)
    assert action == "deny"
    assert "yaml" in loaded
