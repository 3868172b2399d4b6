"""The tool's config (the README's config table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["MODULE_ID", "BashConfig", "parse_config"]

MODULE_ID: Final = "tool-bash"


def _env_text(value: object) -> object:
    """YAML scalars as environment text: ``true`` -> ``"true"``, ``8080`` -> ``"8080"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


class BashConfig(BaseModel):
    """Config of the ``bash`` tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    working_dir: str | None = Field(default=None, min_length=1)
    """Where commands run; relative paths are taken from the session's working directory."""

    timeout: float = Field(default=120.0, gt=0)
    """Seconds a call may run when it asks for no timeout of its own."""

    max_timeout: float = Field(default=600.0, gt=0)
    """The largest timeout a call may ask for, in seconds."""

    max_output_bytes: int = Field(default=30_000, ge=0)
    """Bytes kept of each of stdout and stderr (the head and the tail)."""

    kill_grace: float = Field(default=2.0, ge=0)
    """Seconds between ``SIGTERM`` and ``SIGKILL`` when a command runs past its timeout."""

    env: dict[str, str] = Field(default_factory=dict)
    """Variables added to the inherited environment."""

    @field_validator("env", mode="before")
    @classmethod
    def _scalars_to_text(cls, value: object) -> object:
        if isinstance(value, Mapping):
            return {key: _env_text(item) for key, item in value.items()}
        return value

    @model_validator(mode="after")
    def _timeout_within_max(self) -> BashConfig:
        if self.timeout > self.max_timeout:
            raise ValueError(
                f"timeout ({self.timeout:g} s) is larger than max_timeout ({self.max_timeout:g} s)"
            )
        return self


def parse_config(raw: Mapping[str, Any] | None) -> BashConfig:
    """Validate ``raw`` (``None``: every default); a mistake raises a ``ValueError`` starting
    with ``tool-bash: config:`` that names the key and what was expected."""
    return validate_config(BashConfig, raw, owner=MODULE_ID)
