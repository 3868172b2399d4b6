"""The orchestrator's config, checked once at mount (see the README's config table)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from amplifier_hooks_util.config_errors import ConfigError, validate_config
from amplifier_hooks_util.state import check_template
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .memory import DEFAULT_MEMORY_FILES

__all__ = ["LoopConfig", "LoopConfigError", "parse_config"]


class LoopConfigError(ConfigError):
    """The orchestrator's config has a mistake; the message names the key."""


class LoopConfig(BaseModel):
    """What the turn loop reads from its config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_iterations: int = Field(default=20, ge=1)
    max_stop_continuations: int = Field(default=3, ge=0)
    default_provider: str | None = None
    model: str | None = None
    working_dir: str | None = None
    checkpoint_dir: str = "{session_dir}"
    checkpoint_every_turn: bool = True
    memory_files: tuple[str, ...] = DEFAULT_MEMORY_FILES
    include_instructions: bool = True

    @field_validator("checkpoint_dir")
    @classmethod
    def _template(cls, value: str) -> str:
        return check_template(value)

    @field_validator("memory_files", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value


def parse_config(config: Mapping[str, Any] | None) -> LoopConfig:
    """``config`` as a :class:`LoopConfig`, or a :class:`LoopConfigError` naming each key."""
    try:
        return validate_config(LoopConfig, config, owner="loop-session")
    except ConfigError as err:
        raise LoopConfigError(err.owner, err.problems) from err
