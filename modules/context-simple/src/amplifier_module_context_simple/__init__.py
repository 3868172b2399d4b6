"""context-simple: the session's conversation store, compacted to fit the token budget.

``mount(coordinator, config)`` mounts a :class:`SimpleContextManager` at ``context``; it
implements amplifier-core's ``ContextManager`` protocol and fires the ``context:*compact*``
events through ``coordinator.hooks``. It runs on amplifier-hooks and on amplifier-core 2.0.2;
the README's table documents the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .budget import OUTPUT_RESERVE, SAFETY_MARGIN, provider_budget, request_budget
from .compaction import NOTE_SOURCE, STRATEGY, CompactionPlan, plan_compaction
from .config import MODULE_ID, ContextConfig, parse_config
from .estimate import message_chars, tokens_for_chars
from .manager import SimpleContextManager

__all__ = [
    "MODULE_ID",
    "NOTE_SOURCE",
    "OUTPUT_RESERVE",
    "SAFETY_MARGIN",
    "STRATEGY",
    "CompactionPlan",
    "ContextConfig",
    "SimpleContextManager",
    "config_schema",
    "message_chars",
    "mount",
    "parse_config",
    "plan_compaction",
    "provider_budget",
    "request_budget",
    "tokens_for_chars",
]

config_schema = ContextConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""

__amplifier_module_type__ = "context"


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> None:
    """Mount a :class:`SimpleContextManager` at ``context``; a config mistake raises, naming
    the key."""
    settings = parse_config(config)
    context = SimpleContextManager(settings, hooks=getattr(coordinator, "hooks", None))
    await coordinator.mount("context", context)
