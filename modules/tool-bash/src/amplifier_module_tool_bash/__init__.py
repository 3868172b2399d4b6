"""tool-bash: the ``bash`` tool, one shell command per call, bounded in time and output.

``mount(coordinator, config)`` mounts a :class:`BashTool` under ``tools`` as ``bash``. It runs
on amplifier-hooks and on amplifier-core 2.0.2; the README's table documents the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from amplifier_hooks_util.tool_inputs import working_dir

from .config import MODULE_ID, BashConfig, parse_config
from .inputs import BashInput
from .tool import ENVIRONMENT_CAPABILITY, SHELL, TOOL_NAME, BashTool

__all__ = [
    "ENVIRONMENT_CAPABILITY",
    "MODULE_ID",
    "SHELL",
    "TOOL_NAME",
    "BashConfig",
    "BashInput",
    "BashTool",
    "config_schema",
    "mount",
    "working_dir_for",
]

config_schema = BashConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""

__amplifier_module_type__ = "tool"


def working_dir_for(coordinator: Any, config: BashConfig) -> Path:
    """Where the tool works: ``working_dir`` from the config (relative to the session's), else
    the capability ``session.working_dir``, else the current directory."""
    return working_dir(coordinator, config.working_dir)


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> None:
    """Mount the ``bash`` tool under ``tools``; a config mistake raises, naming the key."""
    settings = parse_config(config)
    get = getattr(coordinator, "get_capability", None)
    session_environment = (lambda: get(ENVIRONMENT_CAPABILITY)) if callable(get) else None
    tool = BashTool(
        working_dir_for(coordinator, settings), settings, session_environment=session_environment
    )
    await coordinator.mount("tools", tool, name=TOOL_NAME)
