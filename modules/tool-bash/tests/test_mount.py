"""mount(): the tool under ``tools`` as ``bash``, where it works, its input and its config."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import ModuleCoordinator
from amplifier_module_tool_bash import BashConfig, BashTool, mount

from .conftest import Mount

README = Path(__file__).resolve().parents[1] / "README.md"


async def _mounted(config: dict[str, Any] | None, working_dir: Path | None) -> BashTool:
    coordinator = ModuleCoordinator()
    if working_dir is not None:
        coordinator.register_capability("session.working_dir", str(working_dir))
    assert await mount(coordinator, config) is None
    tools = coordinator.get("tools")
    assert list(tools) == ["bash"]
    tool = tools["bash"]
    assert isinstance(tool, BashTool)
    return tool


async def test_mounts_one_tool_named_bash(tmp_path: Path) -> None:
    tool = await _mounted(None, tmp_path)
    assert tool.name == "bash"
    assert tool.config == BashConfig()
    assert tool.working_dir == tmp_path


async def test_working_dir_from_config_then_session_then_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert (await _mounted({"working_dir": str(elsewhere)}, tmp_path)).working_dir == elsewhere
    assert (await _mounted({"working_dir": "sub"}, tmp_path)).working_dir == tmp_path / "sub"
    monkeypatch.chdir(elsewhere)
    assert (await _mounted({}, None)).working_dir == Path(os.getcwd())
    assert (await _mounted({"working_dir": "x"}, None)).working_dir == Path(os.getcwd()) / "x"


async def test_a_relative_working_dir_runs_commands_there(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    tool = await _mounted({"working_dir": "sub"}, tmp_path)
    result = await tool.execute({"command": "pwd"})
    assert result.output is not None
    assert result.output["stdout"] == f"{(tmp_path / 'sub').resolve()}\n"


async def test_schema_and_description_tell_the_model_the_limits(
    bash: Mount, tmp_path: Path
) -> None:
    tool = await bash(timeout=60, max_timeout=300, max_output_bytes=1234)
    assert tool.input_schema["required"] == ["command"]
    assert set(tool.input_schema["properties"]) == {"command", "timeout", "description"}
    assert tool.input_schema["additionalProperties"] is False
    assert "title" not in tool.input_schema
    assert "$defs" not in str(tool.input_schema)
    for fact in ("60 s", "300 s", "1234 bytes", str(tmp_path)):
        assert fact in tool.description


@pytest.mark.parametrize(
    ("tool_input", "field"),
    [
        ({}, "command: missing required key 'command'"),
        ({"command": 5}, "command: expected a string, got int 5"),
        ({"command": "   "}, "command: is blank"),
        ({"command": "true", "timeout": 0}, "timeout: expected a number greater than 0, got int 0"),
        ({"command": "true", "timeout": "soon"}, "timeout: expected a number, got str 'soon'"),
        (
            {"command": "true", "cwd": "/"},
            "cwd: unknown key 'cwd'; expected one of: command, timeout, description",
        ),
    ],
)
async def test_bad_input_is_a_failed_result_naming_the_field(
    bash: Mount, tool_input: dict[str, object], field: str
) -> None:
    result = await (await bash()).execute(tool_input)
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "InvalidInput"
    assert result.error["message"].startswith("bash: invalid input: ")
    assert field in result.error["message"]


async def test_input_that_is_not_an_object_is_a_failed_result(bash: Mount) -> None:
    result = await (await bash()).execute(["echo"])  # type: ignore[arg-type]
    assert result.error == {
        "type": "InvalidInput",
        "message": "bash: input must be an object, got list",
    }


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ({"timeout": -1}, "timeout: expected a number greater than 0, got int -1"),
        ({"timeout": 700}, "timeout (700 s) is larger than max_timeout (600 s)"),
        ({"env": {"A": [1]}}, "env.A: expected a string, got a list"),
        ({"max_output_bytes": -1}, "max_output_bytes: expected a number at least 0, got int -1"),
        ({"working_dir": ""}, "working_dir: expected a non-empty string, got str ''"),
        ({"timout": 3}, "timout: unknown key 'timout' (did you mean 'timeout'?); expected one of"),
    ],
)
async def test_bad_config_stops_the_mount_naming_the_key(
    config: dict[str, object], text: str
) -> None:
    coordinator = ModuleCoordinator()
    with pytest.raises(ValueError) as caught:
        await mount(coordinator, config)
    assert str(caught.value).startswith("tool-bash: config: ")
    assert text in str(caught.value)
    assert coordinator.get("tools") == {}


async def test_config_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^tool-bash: config: expected a mapping of keys, got"):
        await mount(ModuleCoordinator(), ["timeout"])  # type: ignore[arg-type]


def test_the_readme_documents_every_config_key_and_input_field() -> None:
    text = README.read_text()
    config_rows = {
        line.split("|")[1].strip().strip("`")
        for line in text.split("## Config", 1)[1].splitlines()
        if line.startswith("| `")
    }
    assert config_rows == set(BashConfig.model_fields)
    input_rows = {
        line.split("|")[1].strip().strip("`")
        for line in text.split("## Input", 1)[1].split("## Config", 1)[0].splitlines()
        if line.startswith("| `")
    }
    assert input_rows == {"command", "timeout", "description"}
