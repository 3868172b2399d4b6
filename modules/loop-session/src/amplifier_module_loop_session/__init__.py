"""loop-session: the turn loop in which every event fires and every hook result takes effect.

Mount it as a session's orchestrator (``session.orchestrator: loop-session``); it runs on
amplifier-hooks and on amplifier-core 2.0.2. See the README for its config and
``docs/orchestrator.md`` for what each hook result does at each event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checkpoint import Checkpoint, CheckpointError, read_checkpoint
from .config import LoopConfig, LoopConfigError, parse_config
from .orchestrator import SessionLoop
from .results import TurnOutcome, TurnStatus, render_tool_result
from .turn import ORCHESTRATOR_NAME

__all__ = [
    "ORCHESTRATOR_NAME",
    "Checkpoint",
    "CheckpointError",
    "LoopConfig",
    "LoopConfigError",
    "SessionLoop",
    "TurnOutcome",
    "TurnStatus",
    "config_schema",
    "mount",
    "read_checkpoint",
    "render_tool_result",
]

config_schema = LoopConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""

__amplifier_module_type__ = "orchestrator"


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> None:
    """Mount the orchestrator at ``"orchestrator"``; a config mistake raises, naming the key."""
    loop = SessionLoop(parse_config(config), coordinator)
    await coordinator.mount("orchestrator", loop)
