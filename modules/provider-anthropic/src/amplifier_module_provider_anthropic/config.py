"""The module's config (the README's table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_provider_base.provider import HttpProviderConfig
from amplifier_hooks_util.config_errors import validate_config
from pydantic import Field

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_URL", "MODULE_ID", "AnthropicConfig", "parse_config"]

MODULE_ID: Final = "provider-anthropic"
ANTHROPIC_VERSION: Final = "2023-06-01"
DEFAULT_URL: Final = "https://api.anthropic.com"


class AnthropicConfig(HttpProviderConfig):
    """Config of ``provider-anthropic``: the HTTP provider keys with Anthropic's defaults."""

    model: str = Field(default="claude-sonnet-4-5", min_length=1)
    name: str = Field(default="anthropic", min_length=1)
    api_key_env: str | None = "ANTHROPIC_API_KEY"
    base_url: str = Field(default=DEFAULT_URL, pattern=r"^https?://")
    context_window: int = Field(default=200_000, gt=0)
    anthropic_version: str = ANTHROPIC_VERSION


def parse_config(raw: Mapping[str, Any] | None) -> AnthropicConfig:
    """The validated config; a mistake raises ``ConfigError`` naming the key path."""
    return validate_config(AnthropicConfig, raw, owner=MODULE_ID)
