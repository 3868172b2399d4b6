"""tool-filesystem: ``read_file``, ``write_file`` and ``edit_file`` on UTF-8 text files.

``mount(coordinator, config)`` mounts the three tools under ``tools``. Relative paths are taken
inside the session's working directory; writes are atomic; reads are bounded windows of
numbered lines; the README's table documents the config (path rules and limits). It runs on
amplifier-hooks and on amplifier-core 2.0.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from amplifier_hooks_util.tool_inputs import working_dir

from .config import MODULE_ID, FilesConfig, parse_config
from .inputs import EditFileInput, ReadFileInput, WriteFileInput
from .paths import Workspace
from .tools import EditFileTool, ReadFileTool, WriteFileTool

__all__ = [
    "MODULE_ID",
    "EditFileInput",
    "EditFileTool",
    "FilesConfig",
    "ReadFileInput",
    "ReadFileTool",
    "Workspace",
    "WriteFileInput",
    "WriteFileTool",
    "file_tools",
    "mount",
    "working_dir_for",
]

__amplifier_module_type__ = "tool"


def working_dir_for(coordinator: Any, config: FilesConfig) -> Path:
    """Where the tool works: ``working_dir`` from the config (relative to the session's), else
    the capability ``session.working_dir``, else the current directory."""
    return working_dir(coordinator, config.working_dir)


def file_tools(
    working_dir: Path, config: FilesConfig | None = None
) -> list[ReadFileTool | WriteFileTool | EditFileTool]:
    """The three tools for ``working_dir``."""
    settings = config or FilesConfig()
    return [
        ReadFileTool(working_dir, settings),
        WriteFileTool(working_dir, settings),
        EditFileTool(working_dir, settings),
    ]


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> None:
    """Mount the three tools under ``tools``; a config mistake raises, naming the key."""
    settings = parse_config(config)
    for tool in file_tools(working_dir_for(coordinator, settings), settings):
        await coordinator.mount("tools", tool, name=tool.name)
