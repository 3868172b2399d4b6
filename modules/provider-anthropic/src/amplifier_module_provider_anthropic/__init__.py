"""provider-anthropic: Claude over the Anthropic Messages API, as a provider module.

``mount(coordinator, config)`` mounts an :class:`AnthropicProvider` under ``providers``
(``anthropic`` unless ``name`` says otherwise); its README documents the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from amplifier_hooks_provider_base.provider import mount_provider

from .config import MODULE_ID, AnthropicConfig, parse_config
from .provider import AnthropicProvider

__all__ = ["MODULE_ID", "AnthropicConfig", "AnthropicProvider", "config_schema", "mount"]

config_schema = AnthropicConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""

__amplifier_module_type__ = "provider"


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> Any:
    """Mount the provider; a config mistake raises, naming the key."""
    provider = AnthropicProvider(parse_config(config), hooks=getattr(coordinator, "hooks", None))
    return await mount_provider(coordinator, provider)
