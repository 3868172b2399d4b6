"""provider-openai: models behind an OpenAI-compatible chat completions API.

``mount(coordinator, config)`` mounts an :class:`OpenAIProvider` under ``providers`` (as
``openai`` unless ``name`` says otherwise). Timeouts, retries with backoff (honouring
``retry-after``) and the kernel's provider errors come with it; retries fire
``provider:retry`` / ``provider:throttle``. It runs on amplifier-hooks and on amplifier-core
2.0.2; the README's table documents the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .config import DEFAULT_URL, MODULE_ID, OpenAIConfig, parse_config
from .convert import read_answer, request_body
from .provider import OpenAIProvider

__all__ = [
    "DEFAULT_URL",
    "MODULE_ID",
    "OpenAIConfig",
    "OpenAIProvider",
    "mount",
    "read_answer",
    "request_body",
]

__amplifier_module_type__ = "provider"


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> Any:
    """Mount the provider under ``providers``; returns the cleanup that closes its connections."""
    settings = parse_config(config)
    provider = OpenAIProvider(settings, hooks=getattr(coordinator, "hooks", None))
    await coordinator.mount("providers", provider, name=settings.name)
    return provider.aclose
