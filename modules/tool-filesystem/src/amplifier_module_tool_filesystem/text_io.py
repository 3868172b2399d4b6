"""The work of the file tools on a resolved path: bounded reads, atomic writes, exact edits.

Text is UTF-8. A read streams the file and keeps a window of numbered lines, so a huge file
costs no more than the window; a file with NUL bytes or invalid UTF-8 is refused as not text.
Writes and edits go through a temporary file in the same directory and ``os.replace``, keeping
an existing file's permission bits, so a reader never sees half a file. Each function returns
the tool's result; the tools run them in a worker thread.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Any, Final

from amplifier_core import ToolResult

from .config import FilesConfig
from .inputs import EditFileInput, failure

__all__ = ["edit_text", "read_window", "write_text"]

_SNIFF_BYTES: Final = 8192
_SKIP_CHUNK: Final = 64 * 1024


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


def read_window(tool: str, path: Path, start: int, limit: int, config: FilesConfig) -> ToolResult:
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


def write_text(tool: str, path: Path, content: str) -> ToolResult:
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


def edit_text(tool: str, path: Path, edit: EditFileInput, config: FilesConfig) -> ToolResult:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            return _is_a_directory(tool, path)
        size = info.st_size
        if size > config.max_edit_bytes:
            return failure(
                "FileTooLarge",
                f"{tool}: {path} has {size} bytes, more than max_edit_bytes "
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
