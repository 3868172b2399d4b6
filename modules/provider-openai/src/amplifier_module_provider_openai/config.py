"""The module's config (the README's table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_URL", "MODULE_ID", "OpenAIConfig", "parse_config"]

MODULE_ID: Final = "provider-openai"
DEFAULT_URL: Final = "https://api.openai.com"


class OpenAIConfig(BaseModel):
    """Config of ``provider-openai``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(default="gpt-4o", min_length=1)
    name: str = Field(default="openai", min_length=1)
    api_key: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    base_url: str = Field(default=DEFAULT_URL, pattern=r"^https?://")
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    backoff_base: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=8.0, ge=0)
    max_tokens: int = Field(default=4096, gt=0)
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    temperature: float | None = Field(default=None, ge=0)
    headers: dict[str, str] = Field(default_factory=dict)
    context_window: int = Field(default=128_000, gt=0)


def parse_config(raw: Mapping[str, Any] | None) -> OpenAIConfig:
    """The validated config; a mistake raises ``ConfigError`` naming the key path."""
    return validate_config(OpenAIConfig, raw, owner=MODULE_ID)
