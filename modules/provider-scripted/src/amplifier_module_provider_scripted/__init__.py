"""provider-scripted: an offline model that replays a script of assistant turns.

``mount(coordinator, config)`` mounts a :class:`ScriptedProvider` under ``providers`` (as
``scripted`` unless ``name`` says otherwise). It needs no network and no key, so demos and
tests run offline, and an ``error:`` entry rehearses a provider failure. It runs on
amplifier-hooks and on amplifier-core 2.0.2; the README's table documents the config and
docs/scripted-provider.md the script format.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .config import MODULE_ID, ScriptedConfig, parse_config
from .provider import PROVIDER_NAME, ScriptedProvider, latest_input
from .script import Script, ScriptedToolCall, ScriptEntry, ScriptError, load_script

__all__ = [
    "MODULE_ID",
    "PROVIDER_NAME",
    "Script",
    "ScriptEntry",
    "ScriptError",
    "ScriptedConfig",
    "ScriptedProvider",
    "ScriptedToolCall",
    "config_schema",
    "latest_input",
    "load_script",
    "mount",
]

config_schema = ScriptedConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""

__amplifier_module_type__ = "provider"


def _script_source(coordinator: Any, config: ScriptedConfig) -> Any:
    """The script, with a relative path made absolute against ``base_dir`` or the session's
    working directory (the ``session.working_dir`` capability), else the current directory."""
    if not isinstance(config.script, str):
        return config.script
    path = Path(config.script).expanduser()
    if path.is_absolute():
        return path
    base = config.base_dir
    if base is None:
        get_capability = getattr(coordinator, "get_capability", None)
        working_dir = get_capability("session.working_dir") if callable(get_capability) else None
        base = str(working_dir) if working_dir else os.getcwd()
    return Path(base).expanduser() / path


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> None:
    """Mount the provider under ``providers``; a bad config or script raises, naming where."""
    settings = parse_config(config)
    try:
        provider = ScriptedProvider(
            _script_source(coordinator, settings), model=settings.model, name=settings.name
        )
    except ScriptError as err:
        raise ScriptError(f"{MODULE_ID}: config.script: {err}") from err
    await coordinator.mount("providers", provider, name=settings.name)
