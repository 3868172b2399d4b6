"""The tools: ``read_file``, ``write_file`` and ``edit_file``, each mounted under ``tools``.

Paths are given as ``file_path`` (the key hooks read in ``tool_input``); results name the
resolved absolute path. The disk work runs in a worker thread, so the event loop never waits
on it.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Generic

from amplifier_hooks_util.tool_inputs import ToolInputError, check_input, schema_for

from amplifier_core import ToolResult

from .config import FilesConfig
from .inputs import EditFileInput, InputT, ReadFileInput, WriteFileInput, failure
from .paths import Access, Workspace
from .text_io import edit_text, read_window, write_text

__all__ = ["EditFileTool", "ReadFileTool", "WriteFileTool"]


class _FileTool(ABC, Generic[InputT]):
    """What the file tools share: config, workspace, schema, and the steps of ``execute``."""

    name: str
    access: Access
    _input: type[InputT]

    def __init__(self, working_dir: Path, config: FilesConfig | None = None) -> None:
        self.config = config or FilesConfig()
        self.workspace = Workspace(working_dir, self.config)
        self.description = f"{self._describe()} {self.workspace.where()}"
        self.input_schema: dict[str, Any] = schema_for(self._input)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        """Validate ``input``, resolve its ``file_path``, then do the tool's work off the loop."""
        try:
            parsed = check_input(self.name, self._input, input)
        except ToolInputError as err:
            return failure("InvalidInput", str(err))
        path = self.workspace.resolve(self.name, parsed.file_path, self.access)
        if isinstance(path, ToolResult):
            return path
        return await asyncio.to_thread(self._run, path, parsed)

    @abstractmethod
    def _describe(self) -> str:
        """The tool's description, before the sentence about the workspace."""

    @abstractmethod
    def _run(self, path: Path, parsed: InputT) -> ToolResult:
        """Do the work on ``path`` (resolved and allowed) with the validated input."""


class ReadFileTool(_FileTool[ReadFileInput]):
    """Shows a window of a UTF-8 text file as numbered lines (like ``cat -n``)."""

    name = "read_file"
    access: Access = "read"
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
        start = parsed.offset or 1
        limit = parsed.limit or self.config.max_read_lines
        return read_window(self.name, path, start, limit, self.config)


class WriteFileTool(_FileTool[WriteFileInput]):
    """Writes a whole UTF-8 text file atomically, creating parent directories."""

    name = "write_file"
    access: Access = "write"
    _input = WriteFileInput

    def _describe(self) -> str:
        return (
            "Write a UTF-8 text file with the given content, replacing the file if it exists "
            "and creating missing parent directories; the write is atomic. Prefer edit_file "
            "to change part of an existing file. Returns {file_path, bytes_written, created}."
        )

    def _run(self, path: Path, parsed: WriteFileInput) -> ToolResult:
        return write_text(self.name, path, parsed.content)


class EditFileTool(_FileTool[EditFileInput]):
    """Replaces an exact string in a UTF-8 text file (once, or every occurrence)."""

    name = "edit_file"
    access: Access = "write"
    _input = EditFileInput

    def _describe(self) -> str:
        return (
            "Replace exact text in a UTF-8 text file. `old_string` must occur exactly once "
            "(include surrounding lines to make it unique) unless `replace_all` is true, which "
            "replaces every occurrence. Whitespace and indentation must match exactly; leave "
            "out the line-number prefix read_file shows. Returns {file_path, replacements}."
        )

    def _run(self, path: Path, parsed: EditFileInput) -> ToolResult:
        return edit_text(self.name, path, parsed, self.config)
