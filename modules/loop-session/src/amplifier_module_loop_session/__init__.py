"""loop-session: the turn loop in which every event fires and every hook result takes effect.

Mount it as a session's orchestrator (``session.orchestrator: loop-session``); it runs on
amplifier-hooks and on amplifier-core 2.0.2. See the README for its config and
``docs/orchestrator.md`` for what each hook result does at each event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .config import LoopConfig, LoopConfigError, parse_config
from .names import ORCHESTRATOR_NAME
from .orchestrator import SessionLoop
from .results import TurnOutcome, TurnStatus, render_tool_result

if TYPE_CHECKING:
    from .checkpoint import Checkpoint, CheckpointError, read_checkpoint

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


_LATER: dict[str, str] = {
    "Checkpoint": "checkpoint",
    "CheckpointError": "checkpoint",
    "read_checkpoint": "checkpoint",
}


def __getattr__(name: str) -> Any:
    """The checkpoint model and its reader, imported when first asked for (a mount does not
    need them: a turn's checkpoint imports them)."""
    where = _LATER.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value
