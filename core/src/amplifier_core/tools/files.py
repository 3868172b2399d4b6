"""The file tools: ``read_file``, ``write_file`` and ``edit_file``.

Paths are given as ``file_path`` (the key hooks read in ``tool_input``). A relative path is
taken inside the workspace; an absolute one (or ``~/...``) is used as it is unless
``files.allow_outside_workspace`` is false, in which case any path that resolves outside the
workspace, symlinks followed, is refused. Results name the resolved absolute path.

Text is UTF-8. ``read_file`` streams the file and shows a window of numbered lines, so a huge
file costs no more than the window; a file with NUL bytes or invalid UTF-8 is refused as not
text. ``write_file`` and ``edit_file`` write atomically (a temporary file in the same directory,
then ``os.replace``), keeping an existing file's permission bits; a reader never sees half a
file. The work runs in a thread so that the event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import stat
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import IO, Any, Final, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ..models import ToolResult
from ._common import failure, parse_input, schema_for

__all__ = [
    "EditFileInput",
    "EditFileTool",
    "FilesConfig",
    "ReadFileInput",
    "ReadFileTool",
    "WriteFileInput",
    "WriteFileTool",
]

_SNIFF_BYTES: Final = 8192
_SKIP_CHUNK: Final = 64 * 1024


class FilesConfig(BaseModel):
    """Config of the file tools (the ``files`` section of the tools config)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow_outside_workspace: bool = Field(
        default=True, description="Allow paths that resolve outside the workspace."
    )
    max_read_lines: int = Field(
        default=2000, gt=0, description="Lines read_file shows when no limit is given."
    )
    max_read_bytes: int = Field(
        default=100_000,
        gt=0,
        description="Cap on the text one read_file call returns, in characters.",
    )
    max_line_length: int = Field(
        default=2000, gt=0, description="Characters of one line read_file shows; longer is cut."
    )
    max_edit_bytes: int = Field(
        default=10 * 1024 * 1024, gt=0, description="Largest file edit_file loads, in bytes."
    )


class _FileInput(BaseModel):
    """What every file tool's input starts with: ``file_path``."""

    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(
        min_length=1, description="Path of the file: relative to the workspace, or absolute."
    )

    @field_validator("file_path")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        if "\0" in value:
            raise ValueError("contains a NUL character")
        return value


InputT = TypeVar("InputT", bound=_FileInput)


class ReadFileInput(_FileInput):
    """Input of ``read_file``."""

    offset: int | None = Field(
        default=None, ge=1, description="Line number to start from (1-based; default 1)."
    )
    limit: int | None = Field(default=None, ge=1, description="Number of lines to read.")


class WriteFileInput(_FileInput):
    """Input of ``write_file``."""

    content: str = Field(description="The complete new content of the file.")


class EditFileInput(_FileInput):
    """Input of ``edit_file``."""

    old_string: str = Field(min_length=1, description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )

    @field_validator("new_string")
    @classmethod
    def _changes_something(cls, value: str, info: ValidationInfo) -> str:
        if value == info.data.get("old_string"):
            raise ValueError("is the same as old_string: the edit would change nothing")
        return value


# ----------------------------------------------------------------------------- shared


class _Workspace:
    """Resolves ``file_path`` inputs against the workspace and enforces the outside rule."""

    def __init__(self, workspace: Path, config: FilesConfig) -> None:
        self.root = Path(workspace).resolve()
        self.config = config

    def resolve(self, tool: str, file_path: str) -> Path | ToolResult:
        path = Path(file_path)
        with contextlib.suppress(RuntimeError):  # no home directory to expand "~" into
            path = path.expanduser()
        if not path.is_absolute():
            path = self.root / path
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError) as err:  # a symlink loop
            return failure("InvalidPath", f"{tool}: cannot resolve {file_path!r}: {err}")
        if not self.config.allow_outside_workspace and not resolved.is_relative_to(self.root):
            return failure(
                "OutsideWorkspace",
                f"{tool}: {file_path!r} resolves to {resolved}, outside the workspace "
                f"{self.root} (files.allow_outside_workspace is false)",
            )
        return resolved

    def where(self) -> str:
        rule = "" if self.config.allow_outside_workspace else "; paths outside it are refused"
        return f"Relative paths are taken inside the workspace ({self.root}){rule}."


class _FileTool(ABC, Generic[InputT]):
    """What the file tools share: config, workspace, schema, and the steps of ``execute``.

    A tool names its input model and says what it does (:meth:`_describe`) and how it does
    it to a resolved path (:meth:`_run`, called in a worker thread).
    """

    name: str
    _input: type[InputT]

    def __init__(self, workspace: Path, config: FilesConfig | None = None) -> None:
        self.config = config or FilesConfig()
        self._workspace = _Workspace(workspace, self.config)
        self.description = f"{self._describe()} {self._workspace.where()}"
        self.input_schema: dict[str, Any] = schema_for(self._input)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        """Validate ``input``, resolve its ``file_path``, then do the tool's work off the loop."""
        parsed = parse_input(self.name, self._input, input)
        if isinstance(parsed, ToolResult):
            return parsed
        path = self._workspace.resolve(self.name, parsed.file_path)
        if isinstance(path, ToolResult):
            return path
        return await asyncio.to_thread(self._run, path, parsed)

    @abstractmethod
    def _describe(self) -> str:
        """The tool's description, before the sentence about the workspace."""

    @abstractmethod
    def _run(self, path: Path, parsed: InputT) -> ToolResult:
        """Do the work on ``path`` (resolved and allowed) with the validated input."""


def _success(path: Path, **output: Any) -> ToolResult:
    """A successful result that names the resolved file under both ``file_path`` and ``path``."""
    return ToolResult(success=True, output={"file_path": str(path), "path": str(path), **output})


def _is_a_directory(tool: str, path: Path) -> ToolResult:
    return failure("IsADirectory", f"{tool}: {path} is a directory, not a file")


def _os_failure(tool: str, path: Path, err: OSError, doing: str) -> ToolResult:
    """A failed result for an ``OSError`` met while ``doing`` something to ``path``."""
    reason = err.strerror or str(err)
    if isinstance(err, FileNotFoundError):
        return failure("FileNotFound", f"{tool}: {path} does not exist")
    if isinstance(err, IsADirectoryError):
        return _is_a_directory(tool, path)
    if isinstance(err, NotADirectoryError):
        return failure(
            "NotADirectory", f"{tool}: cannot {doing} {path}: a parent is not a directory"
        )
    if isinstance(err, PermissionError):
        return failure("PermissionDenied", f"{tool}: cannot {doing} {path}: {reason}")
    return failure("OSError", f"{tool}: cannot {doing} {path}: {reason}")


@functools.cache
def _umask() -> int:
    """The process umask (read once: ``os.umask`` can only be read by setting it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _not_text(tool: str, path: Path, why: str) -> ToolResult:
    return failure(
        "NotText",
        f"{tool}: {path} is not UTF-8 text ({why}); binary files are not shown or edited here",
    )


def _encode(tool: str, field: str, text: str) -> bytes | ToolResult:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        return failure(
            "InvalidInput",
            f"{tool}: invalid input: {field}: cannot be written as UTF-8 "
            f"(a lone surrogate {err.object[err.start : err.end]!r})",
        )


# ------------------------------------------------------------------------------ read_file


class _Window:
    """The numbered lines one ``read_file`` call returns, bounded in lines and bytes."""

    def __init__(self, start: int, limit: int, config: FilesConfig) -> None:
        self.start = start
        self.limit = limit
        self.config = config
        self.lines: list[str] = []
        self.size = 0
        self.bytes_read = 0
        self.next_offset: int | None = None

    def take(self, number: int, text: str, raw_size: int) -> bool:
        """Add line ``number``; ``False`` when the window is full (it becomes ``next_offset``)."""
        if len(self.lines) >= self.limit:
            self.next_offset = number
            return False
        if len(text) > self.config.max_line_length:
            text = text[: self.config.max_line_length] + " [... line truncated ...]"
        entry = f"{number:6d}\t{text}\n"
        if self.lines and self.size + len(entry) > self.config.max_read_bytes:
            self.next_offset = number
            return False
        self.lines.append(entry)
        self.size += len(entry)
        self.bytes_read += raw_size
        return True


def _read_line(handle: IO[bytes], bound: int) -> tuple[bytes, int, bool]:
    """One line of at most ``bound`` bytes (the rest skipped): ``(bytes, raw size, cut)``."""
    raw = handle.readline(bound)
    size = len(raw)
    if len(raw) < bound or raw.endswith(b"\n"):
        return raw, size, False
    while rest := handle.readline(_SKIP_CHUNK):
        size += len(rest)
        if rest.endswith(b"\n"):
            break
    return raw, size, True


def _decode_line(raw: bytes, cut: bool) -> str | None:
    """The text of one line, or ``None`` if it is not UTF-8 (a cut may split a character)."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        if cut and err.start >= len(raw) - 3:
            return raw[: err.start].decode("utf-8", "replace")
        return None


def _read(tool: str, path: Path, start: int, limit: int, config: FilesConfig) -> ToolResult:
    try:
        handle = path.open("rb")
    except OSError as err:
        return _os_failure(tool, path, err, "read")
    window = _Window(start, limit, config)
    bound = config.max_line_length * 4 + 1
    number = 0
    with handle:
        try:
            if b"\0" in handle.read(_SNIFF_BYTES):
                return _not_text(tool, path, "it contains NUL bytes")
            handle.seek(0)
            while True:
                raw, size, cut = _read_line(handle, bound)
                if not raw:
                    break
                number += 1
                if number < start:
                    continue
                text = _decode_line(raw, cut)
                if text is None or "\0" in text:
                    return _not_text(tool, path, f"line {number} is not valid UTF-8")
                if not window.take(number, text, size):
                    break
        except OSError as err:
            return _os_failure(tool, path, err, "read")
    if start > 1 and number < start:
        return failure(
            "OffsetOutOfRange",
            f"{tool}: offset {start} is past the end of {path}, which has {number} lines",
        )
    return _success(
        path,
        content="".join(window.lines),
        start_line=start,
        lines_read=len(window.lines),
        next_offset=window.next_offset,
        bytes_read=window.bytes_read,
    )


class ReadFileTool(_FileTool[ReadFileInput]):
    """Shows a window of a UTF-8 text file as numbered lines (like ``cat -n``)."""

    name = "read_file"
    _input = ReadFileInput

    def _describe(self) -> str:
        cfg = self.config
        return (
            "Read a UTF-8 text file. Returns `content`: its lines numbered like `cat -n` "
            "(line number, tab, text), starting at line `offset` (1-based, default 1), at most "
            f"`limit` lines (default {cfg.max_read_lines}) and about {cfg.max_read_bytes} "
            f"characters; lines over {cfg.max_line_length} characters are cut. `next_offset` "
            "is the line to continue from, or null at the end of the file."
        )

    def _run(self, path: Path, parsed: ReadFileInput) -> ToolResult:
        """Read the window of ``path`` that ``offset`` and ``limit`` select."""
        start = parsed.offset or 1
        limit = parsed.limit or self.config.max_read_lines
        return _read(self.name, path, start, limit, self.config)


# ----------------------------------------------------------------------------- write_file


def _write(tool: str, path: Path, content: str) -> ToolResult:
    data = _encode(tool, "content", content)
    if isinstance(data, ToolResult):
        return data
    try:
        if path.is_dir():
            return _is_a_directory(tool, path)
        created = not path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
    except FileExistsError:
        return failure("NotADirectory", f"{tool}: cannot write {path}: a parent path is a file")
    except OSError as err:
        return _os_failure(tool, path, err, "write")
    return _success(path, bytes_written=len(data), created=created)


class WriteFileTool(_FileTool[WriteFileInput]):
    """Writes a whole UTF-8 text file atomically, creating parent directories."""

    name = "write_file"
    _input = WriteFileInput

    def _describe(self) -> str:
        return (
            "Write a UTF-8 text file with the given content, replacing the file if it exists "
            "and creating missing parent directories; the write is atomic. Prefer edit_file "
            "to change part of an existing file. Returns {file_path, bytes_written, created}."
        )

    def _run(self, path: Path, parsed: WriteFileInput) -> ToolResult:
        """Write ``content`` to ``path``."""
        return _write(self.name, path, parsed.content)


# ------------------------------------------------------------------------------ edit_file


def _edit(tool: str, path: Path, edit: EditFileInput, config: FilesConfig) -> ToolResult:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            return _is_a_directory(tool, path)
        size = info.st_size
        if size > config.max_edit_bytes:
            return failure(
                "FileTooLarge",
                f"{tool}: {path} has {size} bytes, more than files.max_edit_bytes "
                f"({config.max_edit_bytes}); change it with bash instead",
            )
        data = path.read_bytes()
    except OSError as err:
        return _os_failure(tool, path, err, "edit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        return _not_text(tool, path, f"invalid UTF-8 at byte {err.start}")
    count = text.count(edit.old_string)
    if count == 0:
        return failure(
            "NoMatch",
            f"{tool}: old_string was not found in {path} (the match is exact, whitespace and "
            "indentation included; read the file again to see its current text)",
        )
    if count > 1 and not edit.replace_all:
        return failure(
            "AmbiguousMatch",
            f"{tool}: old_string occurs {count} times in {path}; include more surrounding text "
            "to make it unique, or set replace_all to replace every occurrence",
        )
    new_data = _encode(tool, "new_string", text.replace(edit.old_string, edit.new_string))
    if isinstance(new_data, ToolResult):
        return new_data
    try:
        _atomic_write(path, new_data)
    except OSError as err:
        return _os_failure(tool, path, err, "write")
    return _success(path, replacements=count, bytes_written=len(new_data))


class EditFileTool(_FileTool[EditFileInput]):
    """Replaces an exact string in a UTF-8 text file (once, or every occurrence)."""

    name = "edit_file"
    _input = EditFileInput

    def _describe(self) -> str:
        return (
            "Replace exact text in a UTF-8 text file. `old_string` must occur exactly once "
            "(include surrounding lines to make it unique) unless `replace_all` is true, which "
            "replaces every occurrence. Whitespace and indentation must match exactly; leave "
            "out the line-number prefix read_file shows. Returns {file_path, replacements}."
        )

    def _run(self, path: Path, parsed: EditFileInput) -> ToolResult:
        """Replace ``old_string`` with ``new_string`` in ``path``."""
        return _edit(self.name, path, parsed, self.config)
