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
from .tools import EditFileTool, ReadFileTool, WriteFileTool

__all__ = [
    "MODULE_ID",
    "EditFileTool",
    "FilesConfig",
    "ReadFileTool",
    "WriteFileTool",
    "config_schema",
    "file_tools",
    "mount",
]

config_schema = FilesConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""

__amplifier_module_type__ = "tool"


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
    for tool in file_tools(working_dir(coordinator, settings.working_dir), settings):
        await coordinator.mount("tools", tool, name=tool.name)
