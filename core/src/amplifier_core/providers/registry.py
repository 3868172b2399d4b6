"""Build a provider from its config mapping (as written in a bundle or passed by a caller).

::

    make_provider({"type": "scripted", "script": "session.yaml"})
    make_provider({"type": "anthropic", "model": "claude-sonnet-4-5", "max_retries": 4})
    make_provider({"type": "openai", "model": "llama3", "base_url": "http://localhost:11434",
                   "api_key_env": None})

Keys by ``type`` (unknown keys are an error, so a typo never goes unnoticed):

============== ============================================================================
``scripted``   ``model`` (default ``scripted``), ``script`` (a file path, relative to
               ``base_dir`` when given, or the list of entries)
``anthropic``  ``model`` (required), ``base_url``, ``api_key``, ``api_key_env`` (default
               ``ANTHROPIC_API_KEY``), ``timeout`` (60), ``max_retries`` (2),
               ``backoff_base`` (0.5), ``backoff_max`` (8), ``headers``,
               ``anthropic_version`` (``2023-06-01``)
``openai``     the same, with ``api_key_env`` defaulting to ``OPENAI_API_KEY`` (``null``: send
               no key), ``base_url`` to ``https://api.openai.com``, and ``max_tokens_param``
               (``max_tokens`` or ``max_completion_tokens``) instead of ``anthropic_version``
============== ============================================================================

A bad config raises :class:`~amplifier_core.chat.ProviderError` naming the key path.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..chat import Provider, ProviderError
from ._base import HttpProvider
from ._http import OnRetry
from .anthropic import ANTHROPIC_VERSION, DEFAULT_ANTHROPIC_URL, AnthropicProvider
from .openai import DEFAULT_OPENAI_URL, OpenAIProvider
from .scripted import ScriptedProvider

__all__ = ["PROVIDER_TYPES", "make_provider"]

PROVIDER_TYPES: Final = ("scripted", "anthropic", "openai")
"""The ``type`` values :func:`make_provider` understands."""


class _ScriptedConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["scripted"]
    model: str = "scripted"
    script: str | list[Any]


class _HttpConfig(BaseModel):
    """Each field is the keyword of the same name of ``provider_class``'s constructor."""

    model_config = ConfigDict(extra="forbid")
    provider_class: ClassVar[type[HttpProvider]]

    model: str
    base_url: str
    api_key: str | None = None
    api_key_env: str | None
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    backoff_base: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=8.0, ge=0)
    headers: dict[str, str] = Field(default_factory=dict)


class _AnthropicConfig(_HttpConfig):
    provider_class = AnthropicProvider
    type: Literal["anthropic"]
    base_url: str = DEFAULT_ANTHROPIC_URL
    api_key_env: str | None = "ANTHROPIC_API_KEY"
    anthropic_version: str = ANTHROPIC_VERSION


class _OpenAIConfig(_HttpConfig):
    provider_class = OpenAIProvider
    type: Literal["openai"]
    base_url: str = DEFAULT_OPENAI_URL
    api_key_env: str | None = "OPENAI_API_KEY"
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"


_CONFIGS: Final[Mapping[str, type[BaseModel]]] = {
    "scripted": _ScriptedConfig,
    "anthropic": _AnthropicConfig,
    "openai": _OpenAIConfig,
}


def _validate(config: Mapping[str, Any], where: str) -> BaseModel:
    kind = config.get("type")
    schema = _CONFIGS.get(kind) if isinstance(kind, str) else None
    if schema is None:
        raise ProviderError(
            f"{where}.type: unknown provider type {kind!r} "
            f"(expected one of: {', '.join(PROVIDER_TYPES)})",
            provider=str(kind),
        )
    try:
        return schema.model_validate(dict(config))
    except ValidationError as err:
        problems = "; ".join(
            f"{where}.{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
            for problem in err.errors()
        )
        raise ProviderError(
            f"invalid {kind} provider config: {problems}",
            provider=str(kind),
            model=config.get("model") if isinstance(config.get("model"), str) else None,
        ) from err


def make_provider(
    config: Mapping[str, Any],
    *,
    base_dir: str | Path | None = None,
    on_retry: OnRetry | None = None,
    where: str = "provider",
) -> Provider:
    """The provider ``config`` describes.

    :param config: ``{"type": "scripted" | "anthropic" | "openai", ...}`` (keys in the module
        docstring).
    :param base_dir: the directory a relative ``script`` path is resolved against (the
        bundle's directory); the working directory when ``None``.
    :param on_retry: passed to the HTTP providers (``on_retry(retry, error, delay)``).
    :param where: the key path of ``config`` in its file, used in error messages.
    :raises ProviderError: unknown type, bad or unknown keys, a missing API key, or a script
        that cannot be read or validated.
    """
    if not isinstance(config, Mapping):
        raise ProviderError(
            f"{where}: expected a mapping with `type`, got {type(config).__name__}",
            provider="unknown",
        )
    settings = _validate(config, where)
    if isinstance(settings, _ScriptedConfig):
        script: str | Path | list[Any] = settings.script
        if isinstance(script, str):
            path = Path(script).expanduser()
            if base_dir is not None and not path.is_absolute():
                path = Path(base_dir) / path
            script = path
        return ScriptedProvider(script, model=settings.model)
    assert isinstance(settings, _HttpConfig)
    return settings.provider_class(
        settings.model, **settings.model_dump(exclude={"type", "model"}), on_retry=on_retry
    )
