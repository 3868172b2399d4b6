"""The token budget of one request: the caller's, else the provider's window, else the config.

A provider reports its window through ``get_model_info()`` (an object or mapping with
``context_window`` and ``max_output_tokens``, amplifier-core's ``ModelInfo``) or through
``get_info().defaults`` (the same two keys). Its budget is the window minus half the output
limit (most answers are far shorter than the limit) minus a margin of 1,000 tokens for the
estimate's error, and never less than half the window.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping
from typing import Any, Final, Literal

from .config import MODULE_ID, ContextConfig

__all__ = [
    "OUTPUT_RESERVE",
    "SAFETY_MARGIN",
    "BudgetSource",
    "provider_budget",
    "provider_limits",
    "request_budget",
]

logger = logging.getLogger(__name__)

OUTPUT_RESERVE: Final = 0.5
"""The fraction of the provider's ``max_output_tokens`` kept free for the answer."""

SAFETY_MARGIN: Final = 1_000
"""Tokens kept free for the error of the characters / 4 estimate."""

BudgetSource = Literal["request", "provider", "config"]


def _field(source: object, name: str) -> object:
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def _positive(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def _limits(source: object) -> tuple[int, int] | None:
    """``(context_window, max_output_tokens)`` of ``source``; None without a window."""
    if source is None:
        return None
    window = _positive(_field(source, "context_window"))
    if window is None:
        return None
    return window, _positive(_field(source, "max_output_tokens")) or 0


def _call(provider: Any, method: str) -> object:
    """``provider.<method>()`` when it exists and answers synchronously; None otherwise."""
    function = getattr(provider, method, None)
    if not callable(function):
        return None
    answer = function()
    if inspect.isawaitable(answer):  # a synchronous answer is expected here
        close = getattr(answer, "close", None)
        if callable(close):
            close()
        return None
    return answer


def provider_limits(provider: Any) -> tuple[int, int] | None:
    """``(context_window, max_output_tokens)`` the provider reports; None when it says nothing.

    A provider whose ``get_model_info`` or ``get_info`` raises is treated as saying nothing
    (logged): the budget then comes from the config.
    """
    try:
        limits = _limits(_call(provider, "get_model_info"))
        if limits is None:
            info = _call(provider, "get_info")
            limits = _limits(_field(info, "defaults")) if info is not None else None
    except Exception as err:  # a provider's own failure must not stop the request
        logger.warning(
            "%s: the context window of provider %s is unknown (%s: %s); using max_tokens",
            MODULE_ID,
            type(provider).__name__,
            type(err).__name__,
            err,
        )
        return None
    return limits


def provider_budget(provider: Any) -> int | None:
    """The budget the provider's window allows (see the module docstring); None: unknown."""
    limits = provider_limits(provider)
    if limits is None:
        return None
    window, max_output = limits
    return max(window - int(max_output * OUTPUT_RESERVE) - SAFETY_MARGIN, window // 2)


def request_budget(
    token_budget: int | None, provider: Any, config: ContextConfig
) -> tuple[int, BudgetSource]:
    """The budget of a request and where it came from: ``token_budget`` when given, else the
    provider's (when ``use_provider_window`` and it reports a window), else ``max_tokens``."""
    if token_budget is not None:
        if _positive(token_budget) is None:
            raise ValueError(
                f"{MODULE_ID}: get_messages_for_request(token_budget=...): expected an int "
                f"greater than 0 or None, got {type(token_budget).__name__} {token_budget!r}"
            )
        return token_budget, "request"
    if provider is not None and config.use_provider_window:
        budget = provider_budget(provider)
        if budget is not None:
            return budget, "provider"
    return config.max_tokens, "config"
