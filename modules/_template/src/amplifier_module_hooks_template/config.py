"""The module's configuration, validated so that a typo is an error, not a silent default."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["TemplateConfig", "parse_config"]

MODULE_ID = "hooks-template"


class TemplateConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    deny_tools: list[str] = Field(default_factory=list)
    note_results: bool = False
    priority: int = 50


def parse_config(raw: dict[str, Any] | None) -> TemplateConfig:
    """Validate ``raw``; errors name the module, the key path and what was expected."""
    try:
        return TemplateConfig.model_validate(raw or {})
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or '<root>'}: {e['msg']}"
            for e in err.errors()
        )
        raise ValueError(f"{MODULE_ID}: config: {problems}") from err
