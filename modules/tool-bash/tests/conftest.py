"""Mount the tool on a coordinator of its own, the way a session does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import ModuleCoordinator
from amplifier_module_tool_bash import BashTool, mount

Mount = Callable[..., Awaitable[BashTool]]


@pytest.fixture
def bash(tmp_path: Path) -> Mount:
    """``await bash(**config)``: the tool ``mount()`` put under ``tools``, working in
    ``tmp_path`` unless the config says otherwise."""

    async def make(**config: Any) -> BashTool:
        coordinator = ModuleCoordinator()
        coordinator.register_capability("session.working_dir", str(tmp_path))
        await mount(coordinator, config)
        tool = coordinator.get("tools", "bash")
        assert isinstance(tool, BashTool)
        return tool

    return make
