"""The README's "Hooks in YAML" example runs as written: its command hooks are the scripts in
``examples/hooks/``, run by hooks-declarative in a project that holds them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import yaml

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount

ROOT = Path(__file__).resolve().parents[2]


def _example() -> dict[str, object]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Hooks in YAML", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    data = yaml.safe_load(block.group(1))
    assert isinstance(data, dict)
    return data


async def test_the_readme_hooks_block_and_allow_decide_as_it_says(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "hooks", tmp_path / "examples" / "hooks")
    coordinator = create_test_coordinator()
    config = {
        **_example(),
        "project_dir": str(tmp_path),
        "include_user": False,
        "include_project": False,
        "async_grace_s": 120,  # cleanup waits for the async hook to finish (it returns then)
    }
    cleanup = await mount(coordinator, config)
    try:
        secret = {"tool_name": "bash", "tool_input": {"command": "cat .env"}}
        blocked = await coordinator.hooks.emit("tool:pre", secret)
        assert blocked.action == "deny"
        assert blocked.reason == "commands that touch .env files need a human"
        wipe = {"tool_name": "bash", "tool_input": {"command": "rm -rf build"}}
        assert (await coordinator.hooks.emit("tool:pre", wipe)).action == "deny"
        listing = {"tool_name": "bash", "tool_input": {"command": "ls"}}
        assert (await coordinator.hooks.emit("tool:pre", listing)).action == "continue"
        done = {**listing, "tool_result": {"success": True, "output": "README.md"}}
        await coordinator.hooks.emit("tool:post", done)
    finally:
        await cleanup()  # waits for the async PostToolUse hook
    logged = (tmp_path / ".amplifier" / "tool-calls.jsonl").read_text().splitlines()
    assert [json.loads(line)["args"] for line in logged] == [{"command": "ls"}]
