"""The built-in tool set of the session runtime, built from one config mapping."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..chat import Tool
from ._common import ToolConfigError, describe_validation_error
from .bash import BashConfig, BashTool
from .files import EditFileTool, FilesConfig, ReadFileTool, WriteFileTool
from .todo import TodoTool

__all__ = ["BUILTIN_TOOL_NAMES", "ToolsConfig", "builtin_tools"]

BUILTIN_TOOL_NAMES: Final = ("bash", "read_file", "write_file", "edit_file", "todo")
"""Names of the built-in tools, in the order :func:`builtin_tools` returns them."""


class ToolsConfig(BaseModel):
    """Config of the built-in tools: ``{"bash": {...}, "files": {...}}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bash: BashConfig = Field(default_factory=BashConfig)
    files: FilesConfig = Field(default_factory=FilesConfig)

    @classmethod
    def parse(cls, config: Mapping[str, Any] | None) -> ToolsConfig:
        """Validate ``config``; a bad key raises :class:`ToolConfigError` naming its path."""
        if config is None:
            return cls()
        if not isinstance(config, Mapping):
            raise ToolConfigError(f"tools config: expected a mapping, got {type(config).__name__}")
        try:
            return cls.model_validate(dict(config))
        except ValidationError as err:
            first = err.errors(include_url=False)[0]
            key_path = ".".join(str(part) for part in first["loc"]) or None
            raise ToolConfigError(
                f"tools config: {describe_validation_error(err)}", key_path=key_path
            ) from err


def builtin_tools(
    workspace: Path,
    coordinator: Any | None = None,
    config: Mapping[str, Any] | None = None,
) -> dict[str, Tool]:
    """The built-in tools by name: ``bash``, ``read_file``, ``write_file``, ``edit_file``, ``todo``.

    :param workspace: directory commands run in and relative paths resolve against; it must
        exist.
    :param coordinator: where ``todo`` keeps ``todo_state`` and emits plan events through
        ``coordinator.hooks``; without one, ``todo`` keeps its list on itself.
    :param config: ``{"bash": {timeout, max_timeout, max_output_bytes, kill_grace, env},
        "files": {allow_outside_workspace, max_read_lines, max_read_bytes, max_line_length,
        max_edit_bytes}}``, every key optional.
    :raises ToolConfigError: the config is invalid or the workspace is not a directory.
    """
    settings = ToolsConfig.parse(config)
    root = Path(workspace)
    if not root.is_dir():
        raise ToolConfigError(
            f"tools workspace {str(root)!r} is not an existing directory", key_path="workspace"
        )
    root = root.resolve()
    tools: list[Tool] = [
        BashTool(root, settings.bash),
        ReadFileTool(root, settings.files),
        WriteFileTool(root, settings.files),
        EditFileTool(root, settings.files),
        TodoTool(coordinator),
    ]
    return {tool.name: tool for tool in tools}
