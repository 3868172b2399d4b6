"""``mount``: where a relative script is read from, the mount name, config mistakes."""

from __future__ import annotations

from pathlib import Path

import pytest
from amplifier_hooks_util.config_errors import ConfigError

from amplifier_core.testing import create_test_coordinator
from amplifier_module_provider_scripted import ScriptError, mount

from .support import text_of, user, write


async def test_a_relative_script_is_read_from_base_dir(tmp_path: Path) -> None:
    write(tmp_path, "turns.yml", "- from the file\n")
    coordinator = create_test_coordinator()
    await mount(coordinator, {"script": "turns.yml", "base_dir": str(tmp_path)})
    provider = coordinator.get("providers")["scripted"]
    assert text_of(await provider.complete(user("x"))) == "from the file"


async def test_without_base_dir_the_session_working_dir_is_used(tmp_path: Path) -> None:
    write(tmp_path, "turns.yml", "- from the workspace\n")
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(tmp_path))
    await mount(coordinator, {"script": "turns.yml", "name": "offline", "model": "m-1"})
    provider = coordinator.get("providers")["offline"]
    assert (provider.name, provider.model) == ("offline", "m-1")
    assert text_of(await provider.complete(user("x"))) == "from the workspace"


async def test_an_inline_script_needs_no_file() -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {"script": {"turns": ["inline"], "prompts": ["hi"]}})
    provider = coordinator.get("providers")["scripted"]
    assert text_of(await provider.complete(user("x"))) == "inline"


async def test_config_mistakes_name_the_module_and_key() -> None:
    with pytest.raises(ConfigError, match="provider-scripted: config: script: "):
        await mount(create_test_coordinator(), {"script": 7})
    with pytest.raises(ConfigError, match=r"scirpt.*did you mean 'script'"):
        await mount(create_test_coordinator(), {"scirpt": "x.yaml", "script": []})


async def test_without_a_script_it_mounts_and_its_first_request_says_so() -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {})
    provider = coordinator.get("providers")["scripted"]
    with pytest.raises(Exception, match="exhausted"):
        await provider.complete(user("hi"))


async def test_a_bad_script_fails_the_mount_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", "- text: a\n  tool_call: []\n")
    coordinator = create_test_coordinator()
    with pytest.raises(ScriptError) as caught:
        await mount(coordinator, {"script": str(path)})
    assert str(caught.value).startswith(f"provider-scripted: config.script: {path}:2: entry 0:")
    assert coordinator.get("providers") in (None, {})
