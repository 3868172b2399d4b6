"""The context manager's config (the README's table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["MODULE_ID", "ContextConfig", "parse_config"]

MODULE_ID: Final = "context-simple"


class ContextConfig(BaseModel):
    """Config of the ``context-simple`` context manager."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int = Field(default=100_000, gt=0)
    """The token budget when neither the request nor the provider gives one."""

    compact_threshold: float = Field(default=1.0, gt=0, le=1)
    """Compaction starts when the estimate exceeds this fraction of the budget."""

    target_usage: float = Field(default=0.5, gt=0, lt=1)
    """Compaction drops exchanges until the estimate is at most this fraction of the budget."""

    use_provider_window: bool = True
    """Take the budget from the provider's context window when it reports one."""

    compaction_note: bool = True
    """Leave one system note saying how many messages compaction removed in all."""

    @model_validator(mode="after")
    def _target_below_threshold(self) -> ContextConfig:
        if self.target_usage >= self.compact_threshold:
            raise ValueError(
                f"target_usage ({self.target_usage:g}) must be smaller than "
                f"compact_threshold ({self.compact_threshold:g})"
            )
        return self


def parse_config(raw: Mapping[str, Any] | None) -> ContextConfig:
    """Validate ``raw`` (``None``: every default); a mistake raises a ``ValueError`` starting
    with ``context-simple: config:`` that names the key and what was expected."""
    return validate_config(ContextConfig, raw, owner=MODULE_ID)
