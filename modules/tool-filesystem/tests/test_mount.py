"""``mount``: the three tools under ``tools``, the working directory, the path rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.config_errors import ConfigError

from amplifier_core.testing import create_test_coordinator
from amplifier_module_tool_filesystem import mount


async def _tools(workspace: Path, **config: object) -> dict[str, Any]:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, config)
    tools: dict[str, Any] = coordinator.get("tools")
    return tools


async def test_the_three_tools_mount_and_work_in_the_session_directory(tmp_path: Path) -> None:
    tools = await _tools(tmp_path)
    assert {"edit_file", "read_file", "write_file"} <= set(tools)
    written = await tools["write_file"].execute({"file_path": "a.txt", "content": "one\n"})
    assert written.success, written.error
    assert (tmp_path / "a.txt").read_text() == "one\n"


async def test_working_dir_in_the_config_is_taken_inside_the_session_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "sub").mkdir()
    tools = await _tools(tmp_path, working_dir="sub")
    await tools["write_file"].execute({"file_path": "b.txt", "content": "x"})
    assert (tmp_path / "sub" / "b.txt").read_text() == "x"


async def test_writes_outside_allowed_write_paths_are_refused_naming_the_rule(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "notes.txt").write_text("keep\n")
    tools = await _tools(tmp_path, allowed_write_paths=["src"])
    src = tools["write_file"].workspace.root / "src"  # the workspace, symlinks resolved
    inside = await tools["write_file"].execute({"file_path": "src/m.py", "content": "x"})
    assert inside.success, inside.error
    edit = await tools["edit_file"].execute(
        {"file_path": "notes.txt", "old_string": "keep", "new_string": "gone"}
    )
    assert edit.error["type"] == "PathNotAllowed"
    assert f"outside allowed_write_paths ({src})" in edit.error["message"]
    assert (tmp_path / "notes.txt").read_text() == "keep\n"
    read = await tools["read_file"].execute({"file_path": "notes.txt"})
    assert read.success  # reading is not limited by the write rule


async def test_denied_write_paths_win_and_a_symlink_cannot_get_around_them(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / ".git")
    tools = await _tools(tmp_path, denied_write_paths=[".git"])
    for path in (".git/config", "alias/config"):
        result = await tools["write_file"].execute({"file_path": path, "content": "x"})
        assert result.error["type"] == "PathNotAllowed", path
        assert "inside denied_write_paths" in result.error["message"]
    assert list((tmp_path / ".git").iterdir()) == []


async def test_allowed_read_paths_limit_reads(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("a\n")
    (tmp_path / "secret.txt").write_text("s\n")
    tools = await _tools(tmp_path, allowed_read_paths=["docs"])
    assert (await tools["read_file"].execute({"file_path": "docs/a.md"})).success
    refused = await tools["read_file"].execute({"file_path": "secret.txt"})
    assert "outside allowed_read_paths" in refused.error["message"]


async def test_config_mistakes_name_the_module_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"tool-filesystem: config: max_read_lines: "):
        await _tools(tmp_path, max_read_lines=0)
    with pytest.raises(ConfigError, match=r"did you mean 'allowed_write_paths'"):
        await _tools(tmp_path, allowed_write_path=["src"])
