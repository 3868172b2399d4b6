"""``read_file``, ``write_file`` and ``edit_file`` on real files."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import ToolResult
from amplifier_module_tool_filesystem import EditFileTool, FilesConfig, ReadFileTool, WriteFileTool


def _output(result: ToolResult) -> dict[str, Any]:
    assert isinstance(result.output, dict), result
    return result.output


def _real(path: Path) -> Path:
    return path.resolve()


def _names(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir())


def _config(**values: object) -> FilesConfig:
    return FilesConfig.model_validate(values)


def _error(result: ToolResult) -> dict[str, str]:
    assert not result.success, result.output
    assert result.error is not None
    return result.error


# ------------------------------------------------------------------------------ read_file


async def test_read_numbers_lines_like_cat_n(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n\nfour")
    result = await ReadFileTool(tmp_path).execute({"file_path": "a.txt"})
    assert result.success, result.error
    assert result.output == {
        "file_path": str(_real(tmp_path) / "a.txt"),
        "path": str(_real(tmp_path) / "a.txt"),
        "content": "     1\tone\n     2\ttwo\n     3\t\n     4\tfour\n",
        "start_line": 1,
        "lines_read": 4,
        "next_offset": None,
        "bytes_read": 13,
    }


async def test_read_window_with_offset_and_limit(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    tool = ReadFileTool(tmp_path)
    middle = await tool.execute({"file_path": "n.txt", "offset": 3, "limit": 2})
    assert _output(middle)["content"] == "     3\tline 3\n     4\tline 4\n"
    assert (_output(middle)["start_line"], _output(middle)["next_offset"]) == (3, 5)
    last = await tool.execute({"file_path": "n.txt", "offset": 9, "limit": 5})
    assert _output(last)["content"] == "     9\tline 9\n    10\tline 10\n"
    assert _output(last)["next_offset"] is None


async def test_read_default_line_limit_comes_from_config(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("a\nb\nc\n")
    result = await ReadFileTool(tmp_path, _config(max_read_lines=2)).execute({"file_path": "n.txt"})
    assert _output(result)["lines_read"] == 2
    assert _output(result)["next_offset"] == 3


async def test_read_stops_at_the_byte_cap_and_says_where_to_go_on(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"{i:04d}\n" for i in range(1000)))
    result = await ReadFileTool(tmp_path, _config(max_read_bytes=100)).execute(
        {"file_path": "big.txt"}
    )
    entry = len("     1\t0000\n")
    assert _output(result)["lines_read"] == 100 // entry
    assert len(_output(result)["content"]) <= 100
    assert _output(result)["next_offset"] == 100 // entry + 1


async def test_read_cuts_overlong_lines(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("é" * 50 + "\nshort\n")
    result = await ReadFileTool(tmp_path, _config(max_line_length=10)).execute(
        {"file_path": "long.txt"}
    )
    assert result.success, result.error
    assert _output(result)["content"] == (
        "     1\t" + "é" * 10 + " [... line truncated ...]\n     2\tshort\n"
    )


async def test_read_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    result = await ReadFileTool(tmp_path).execute({"file_path": "empty.txt"})
    assert result.success
    assert (_output(result)["content"], _output(result)["lines_read"]) == ("", 0)


async def test_read_offset_past_the_end_is_a_failure(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("a\nb\n")
    error = _error(await ReadFileTool(tmp_path).execute({"file_path": "n.txt", "offset": 5}))
    assert error["type"] == "OffsetOutOfRange"
    assert "offset 5" in error["message"]
    assert "2 lines" in error["message"]


async def test_read_missing_file_and_directory(tmp_path: Path) -> None:
    tool = ReadFileTool(tmp_path)
    missing = _error(await tool.execute({"file_path": "nope.txt"}))
    assert missing["type"] == "FileNotFound"
    assert str(_real(tmp_path) / "nope.txt") in missing["message"]
    directory = _error(await tool.execute({"file_path": "."}))
    assert directory["type"] == "IsADirectory"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"PK\x03\x04\x00\x00binary", "NUL bytes"),
        (b"fine\nbad \xff\xfe here\n", "line 2 is not valid UTF-8"),
    ],
)
async def test_read_refuses_what_is_not_utf8_text(tmp_path: Path, data: bytes, why: str) -> None:
    (tmp_path / "blob").write_bytes(data)
    error = _error(await ReadFileTool(tmp_path).execute({"file_path": "blob"}))
    assert error["type"] == "NotText"
    assert why in error["message"]


async def test_read_absolute_path_outside_the_workspace_by_default(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("hello\n")
    result = await ReadFileTool(workspace).execute({"file_path": str(outside)})
    assert result.success
    assert _output(result)["content"] == "     1\thello\n"


@pytest.mark.parametrize(
    ("tool_input", "field"),
    [
        ({}, "file_path: missing required key"),
        ({"file_path": ""}, "file_path: expected a non-empty string"),
        ({"file_path": "a\0b"}, "file_path: contains a NUL character"),
        ({"file_path": "a", "offset": 0}, "offset: expected a number at least 1"),
        ({"file_path": "a", "limit": "many"}, "limit: expected an integer"),
        ({"file_path": "a", "path": "b"}, "path: unknown key 'path' (did you mean 'file_path'?)"),
    ],
)
async def test_read_bad_input_names_the_field(
    tmp_path: Path, tool_input: dict[str, object], field: str
) -> None:
    error = _error(await ReadFileTool(tmp_path).execute(tool_input))
    assert error["type"] == "InvalidInput"
    assert error["message"].startswith("read_file: invalid input: ")
    assert field in error["message"]


# ----------------------------------------------------------------------------- write_file


async def test_write_creates_parents_and_reports_created(tmp_path: Path) -> None:
    tool = WriteFileTool(tmp_path)
    first = await tool.execute({"file_path": "deep/er/new.txt", "content": "héllo\n"})
    target = _real(tmp_path) / "deep/er/new.txt"
    assert first.success, first.error
    assert first.output == {
        "file_path": str(target),
        "path": str(target),
        "bytes_written": 7,
        "created": True,
    }
    assert target.read_text(encoding="utf-8") == "héllo\n"
    again = await tool.execute({"file_path": str(target), "content": ""})
    assert _output(again)["created"] is False
    assert _output(again)["bytes_written"] == 0
    assert target.read_bytes() == b""


async def test_write_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old content\n")
    target.chmod(0o640)
    before = target.stat().st_ino
    with target.open() as reader:  # a reader of the old file keeps seeing it whole
        result = await WriteFileTool(tmp_path).execute(
            {"file_path": "f.txt", "content": "new content\n"}
        )
        assert result.success, result.error
        assert reader.read() == "old content\n"
    assert target.read_text() == "new content\n"
    assert target.stat().st_ino != before  # replaced, not rewritten in place
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _names(tmp_path) == ["f.txt"]


async def test_write_new_file_honours_the_umask(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    os.umask(mask)
    await WriteFileTool(tmp_path).execute({"file_path": "m.txt", "content": "x"})
    assert stat.S_IMODE((tmp_path / "m.txt").stat().st_mode) == 0o666 & ~mask


async def test_write_through_a_symlink_replaces_the_target(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    result = await WriteFileTool(tmp_path).execute({"file_path": "link.txt", "content": "new"})
    assert _output(result)["file_path"] == str(_real(tmp_path) / "real.txt")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"


async def test_write_failures(tmp_path: Path) -> None:
    tool = WriteFileTool(tmp_path)
    (tmp_path / "dir").mkdir()
    (tmp_path / "plain").write_text("x")
    assert _error(await tool.execute({"file_path": "dir", "content": "x"}))["type"] == (
        "IsADirectory"
    )
    under_file = _error(await tool.execute({"file_path": "plain/child.txt", "content": "x"}))
    assert under_file["type"] == "NotADirectory"
    surrogate = _error(await tool.execute({"file_path": "s.txt", "content": "a\ud800b"}))
    assert surrogate["type"] == "InvalidInput"
    assert "content" in surrogate["message"]
    assert not (tmp_path / "s.txt").exists()
    missing = _error(await tool.execute({"file_path": "x.txt"}))
    assert "content: missing required key" in missing["message"]


# ------------------------------------------------------------------------------ edit_file


async def test_edit_replaces_one_exact_occurrence(tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("def f():\n    return 1\n")
    target.chmod(0o600)
    result = await EditFileTool(tmp_path).execute(
        {"file_path": "code.py", "old_string": "return 1", "new_string": "return 2"}
    )
    assert result.success, result.error
    assert result.output == {
        "file_path": str(target.resolve()),
        "path": str(target.resolve()),
        "replacements": 1,
        "bytes_written": len("def f():\n    return 2\n"),
    }
    assert target.read_text() == "def f():\n    return 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _names(tmp_path) == ["code.py"]


async def test_edit_not_found_and_ambiguous_leave_the_file_alone(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("a x a x a\n")
    tool = EditFileTool(tmp_path)
    missing = _error(
        await tool.execute({"file_path": "t.txt", "old_string": "zzz", "new_string": "y"})
    )
    assert missing["type"] == "NoMatch"
    assert "not found" in missing["message"]
    ambiguous = _error(
        await tool.execute({"file_path": "t.txt", "old_string": "a", "new_string": "b"})
    )
    assert ambiguous["type"] == "AmbiguousMatch"
    assert "occurs 3 times" in ambiguous["message"]
    assert "replace_all" in ambiguous["message"]
    assert target.read_text() == "a x a x a\n"


async def test_edit_replace_all(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("a x a x a\n")
    result = await EditFileTool(tmp_path).execute(
        {"file_path": "t.txt", "old_string": "a", "new_string": "bb", "replace_all": True}
    )
    assert _output(result)["replacements"] == 3
    assert target.read_text() == "bb x bb x bb\n"


async def test_edit_failures(tmp_path: Path) -> None:
    tool = EditFileTool(tmp_path)
    edit = {"old_string": "a", "new_string": "b"}
    assert _error(await tool.execute({"file_path": "gone.txt", **edit}))["type"] == "FileNotFound"
    (tmp_path / "bin").write_bytes(b"a\xff\xfe")
    not_text = _error(await tool.execute({"file_path": "bin", **edit}))
    assert not_text["type"] == "NotText"
    assert "byte 1" in not_text["message"]
    (tmp_path / "big.txt").write_text("a" * 100)
    too_large = _error(
        await EditFileTool(tmp_path, _config(max_edit_bytes=10)).execute(
            {"file_path": "big.txt", **edit}
        )
    )
    assert too_large["type"] == "FileTooLarge"
    assert "max_edit_bytes (" in too_large["message"]
    (tmp_path / "d").mkdir()
    assert _error(await tool.execute({"file_path": "d", **edit}))["type"] == "IsADirectory"


@pytest.mark.parametrize(
    ("tool_input", "field"),
    [
        (
            {"file_path": "t.txt", "old_string": "", "new_string": "b"},
            "old_string: expected a non-empty string",
        ),
        ({"file_path": "t.txt", "old_string": "a", "new_string": "a"}, "new_string: is the same"),
        ({"file_path": "t.txt", "old_string": "a"}, "new_string: missing required key"),
        (
            {"file_path": "t.txt", "old_string": "a", "new_string": "b", "replace_all": "maybe"},
            "replace_all: expected true or false",
        ),
    ],
)
async def test_edit_bad_input_names_the_field(
    tmp_path: Path, tool_input: dict[str, object], field: str
) -> None:
    (tmp_path / "t.txt").write_text("a\n")
    error = _error(await EditFileTool(tmp_path).execute(tool_input))
    assert error["type"] == "InvalidInput"
    assert error["message"].startswith("edit_file: invalid input: ")
    assert field in error["message"]
    assert (tmp_path / "t.txt").read_text() == "a\n"


# ------------------------------------------------------------------- the workspace boundary


@pytest.fixture
def confined(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace, and a secret file beside it that a symlink inside points to."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    (workspace / "escape").symlink_to(secret)
    (workspace / "inside.txt").write_text("ok\n")
    (workspace / "alias").symlink_to(workspace / "inside.txt")
    return workspace, secret


@pytest.mark.parametrize("file_path", ["../secret.txt", "escape", "SECRET_ABSOLUTE"])
async def test_paths_escaping_the_workspace_are_refused_when_confined(
    confined: tuple[Path, Path], file_path: str
) -> None:
    workspace, secret = confined
    if file_path == "SECRET_ABSOLUTE":
        file_path = str(secret)
    config = _config(allow_outside_workspace=False)
    attempts = [
        (ReadFileTool(workspace, config), {"file_path": file_path}),
        (WriteFileTool(workspace, config), {"file_path": file_path, "content": "pwned"}),
        (
            EditFileTool(workspace, config),
            {"file_path": file_path, "old_string": "secret", "new_string": "pwned"},
        ),
    ]
    for tool, tool_input in attempts:
        assert isinstance(tool, ReadFileTool | WriteFileTool | EditFileTool)
        error = _error(await tool.execute(tool_input))
        assert error["type"] == "PathNotAllowed"
        assert error["message"].startswith(f"{tool.name}: ")
        assert "(allow_outside_workspace is false)" in error["message"]
    assert secret.read_text() == "secret\n"
    assert "paths outside it are refused" in ReadFileTool(workspace, config).description


async def test_paths_inside_the_workspace_still_work_when_confined(
    confined: tuple[Path, Path],
) -> None:
    workspace, _ = confined
    config = _config(allow_outside_workspace=False)
    via_link = await ReadFileTool(workspace, config).execute({"file_path": "alias"})
    assert _output(via_link)["content"] == "     1\tok\n"
    absolute = await WriteFileTool(workspace, config).execute(
        {"file_path": str(workspace / "sub" / "new.txt"), "content": "fine"}
    )
    assert absolute.success, absolute.error
    assert (workspace / "sub" / "new.txt").read_text() == "fine"


def test_file_tools_schemas_use_file_path(tmp_path: Path) -> None:
    for tool in (ReadFileTool(tmp_path), WriteFileTool(tmp_path), EditFileTool(tmp_path)):
        schema = tool.input_schema
        assert schema["required"][0] == "file_path"
        assert schema["properties"]["file_path"]["type"] == "string"
        assert schema["additionalProperties"] is False
        assert str(_real(tmp_path)) in tool.description
