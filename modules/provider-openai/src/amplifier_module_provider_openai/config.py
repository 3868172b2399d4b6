"""The module's config (the README's table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from amplifier_hooks_provider_base.provider import HttpProviderConfig
from amplifier_hooks_util.config_errors import validate_config
from pydantic import Field

__all__ = ["DEFAULT_URL", "MODULE_ID", "OpenAIConfig", "parse_config"]

MODULE_ID: Final = "provider-openai"
DEFAULT_URL: Final = "https://api.openai.com"


class OpenAIConfig(HttpProviderConfig):
    """Config of ``provider-openai``: the HTTP provider keys with OpenAI's defaults."""

    model: str = Field(default="gpt-4o", min_length=1)
    name: str = Field(default="openai", min_length=1)
    api_key_env: str | None = "OPENAI_API_KEY"
    base_url: str = Field(default=DEFAULT_URL, pattern=r"^https?://")
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"


def parse_config(raw: Mapping[str, Any] | None) -> OpenAIConfig:
    """The validated config; a mistake raises ``ConfigError`` naming the key path."""
    return validate_config(OpenAIConfig, raw, owner=MODULE_ID)
