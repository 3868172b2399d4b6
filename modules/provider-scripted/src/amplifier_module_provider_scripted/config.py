"""The module's config (the README's table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MODULE_ID", "ScriptedConfig", "parse_config"]

MODULE_ID: Final = "provider-scripted"


class ScriptedConfig(BaseModel):
    """Config of ``provider-scripted``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    script: str | list[Any] | dict[str, Any] = Field(default_factory=list)
    """A script file (YAML or JSON), or the list of entries (or ``{turns: [...]}``) inline.
    Without one the provider mounts, and its first request fails as an exhausted script."""

    model: str = Field(default="scripted", min_length=1)
    """The model name the provider reports."""

    name: str = Field(default="scripted", min_length=1)
    """The name it is mounted under in ``providers``."""

    base_dir: str | None = Field(default=None, min_length=1)
    """What a relative ``script`` path is relative to (default: the session's working
    directory, else the current directory)."""


def parse_config(raw: Mapping[str, Any] | None) -> ScriptedConfig:
    """The validated config; a mistake raises ``ConfigError`` naming the key path."""
    return validate_config(ScriptedConfig, raw, owner=MODULE_ID)
