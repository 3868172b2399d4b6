"""The README documents every config key, and its bundle example mounts and works."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from amplifier_module_hooks_status_context import StatusContextConfig, mount

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def table_keys() -> set[str]:
    return set(re.findall(r"^\| `([a-z_0-9]+)` \|", README, flags=re.MULTILINE))


def test_every_config_key_is_documented_and_nothing_else() -> None:
    assert table_keys() == set(StatusContextConfig.model_fields)


async def test_bundle_example_mounts_and_injects(repo: Any, make_coordinator: Any) -> None:
    block = re.search(r"```yaml\n(.*?)```", README, flags=re.DOTALL)
    assert block is not None
    (entry,) = yaml.safe_load(block.group(1))["hooks"]
    assert entry["module"] == "hooks-status-context"
    coordinator = make_coordinator(working_dir=repo.path)
    cleanup = await mount(coordinator, entry["config"])
    repo.write("generated/api.pb.go")
    repo.write("api.pb.go")
    result = await coordinator.hooks.emit("provider:request", {})
    cleanup()
    text = result.context_injection or ""
    assert "Recent commits:\n" in text
    assert text.count("commit\n") == 2
    assert "generated" in text
    assert "?? generated/" not in text
    assert "?? api.pb.go" not in text
