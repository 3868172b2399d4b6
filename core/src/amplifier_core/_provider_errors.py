"""amplifier-core 2.0.2's engine view of a provider failure: the ``ProviderError`` record and
the ``classify_error_message`` category classifier, offered as ``amplifier_core._engine``'s.

``ProviderError`` is a read-only record of what went wrong at a provider (message, provider,
model, ``retry_after``, ``delay_multiplier``, ``retryable`` and the engine's ``error_type``:
``"RateLimit"``, ``"Authentication"``, ``"ContextLength"``, ``"ContentFilter"``,
``"InvalidRequest"``, ``"Unavailable"``, ``"Timeout"`` or ``"Other"``). As in 2.0.2 it is not an
exception: providers raise :class:`~amplifier_core.llm_errors.LLMError` and its subclasses,
which carry the same fields. Its ``repr`` is 2.0.2's (strings quoted and escaped as
Rust shows them, numbers in their shortest form without an exponent).

``classify_error_message(message)`` names the category of an error text, the engine's rules
in the engine's order (first match wins, case-insensitive).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Final, SupportsFloat, SupportsIndex

__all__ = ["ProviderError", "classify_error_message"]


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"ProviderError: {where} must be a str, got {type(value).__name__}")
    return value


def _optional_text(value: object, where: str) -> str | None:
    return None if value is None else _text(value, where)


def _optional_real(value: object, where: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (SupportsFloat, SupportsIndex)):
        raise TypeError(
            f"ProviderError: {where} must be a real number or None, got {type(value).__name__}"
        )
    return float(value)


def _shown_text(text: str) -> str:
    """``text`` quoted as 2.0.2's engine shows a string (Rust's ``{:?}``): double quotes,
    backslash escapes, ``\\u{...}`` for what is not printable."""
    shown = ['"']
    for char in text:
        if char in _ESCAPES:
            shown.append(_ESCAPES[char])
        elif char.isprintable():
            shown.append(char)
        else:
            shown.append(f"\\u{{{ord(char):x}}}")
    shown.append('"')
    return "".join(shown)


_ESCAPES: Final = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def _shown_number(value: float) -> str:
    """``value`` as 2.0.2's engine shows a float (Rust's ``{}``): the shortest digits that
    read back, never an exponent, no ``.0`` on a whole number (``2``, ``2.5``, ``0.00001``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    digits = format(Decimal(repr(value)), "f")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    return digits


class ProviderError:
    """A provider's failure as amplifier-core 2.0.2's engine records it; read-only.

    ``ProviderError(message, *, provider=None, model=None, retry_after=None,
    delay_multiplier=None, retryable=False, error_type="Other")``; ``str()`` is the message.
    """

    __slots__ = (
        "_delay_multiplier",
        "_error_type",
        "_message",
        "_model",
        "_provider",
        "_retry_after",
        "_retryable",
    )

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        retry_after: float | None = None,
        delay_multiplier: float | None = None,
        retryable: bool = False,
        error_type: str = "Other",
    ) -> None:
        self._message = _text(message, "message")
        self._provider = _optional_text(provider, "provider")
        self._model = _optional_text(model, "model")
        self._retry_after = _optional_real(retry_after, "retry_after")
        self._delay_multiplier = _optional_real(delay_multiplier, "delay_multiplier")
        if not isinstance(retryable, bool):
            raise TypeError(
                f"ProviderError: retryable must be a bool, got {type(retryable).__name__}"
            )
        self._retryable = retryable
        self._error_type = _text(error_type, "error_type")

    @property
    def message(self) -> str:
        """The error message."""
        return self._message

    @property
    def provider(self) -> str | None:
        """The provider's name (``"anthropic"``, ``"openai"``), or None."""
        return self._provider

    @property
    def model(self) -> str | None:
        """The model the request named, or None."""
        return self._model

    @property
    def retry_after(self) -> float | None:
        """Seconds the provider asked to wait before a retry, or None."""
        return self._retry_after

    @property
    def delay_multiplier(self) -> float | None:
        """How much to stretch the backoff for this error (10.0 for an overloaded server), or
        None."""
        return self._delay_multiplier

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later."""
        return self._retryable

    @property
    def error_type(self) -> str:
        """The engine's name for the kind of failure (``"RateLimit"`` ... ``"Other"``)."""
        return self._error_type

    def __repr__(self) -> str:
        parts = [_shown_text(self._message)]
        if self._provider is not None:
            parts.append(f"provider={_shown_text(self._provider)}")
        if self._model is not None:
            parts.append(f"model={_shown_text(self._model)}")
        if self._retry_after is not None:
            parts.append(f"retry_after={_shown_number(self._retry_after)}")
        if self._delay_multiplier is not None:
            parts.append(f"delay_multiplier={_shown_number(self._delay_multiplier)}")
        if self._retryable:
            parts.append("retryable=True")
        return f"ProviderError({', '.join(parts)})"

    def __str__(self) -> str:
        return self._message


# The engine's phrases per category, in the order they are tried.
_CATEGORIES: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "context_length",
        ("context length", "too many tokens", "maximum context", "token limit", "too long"),
    ),
    ("rate_limit", ("rate limit", "rate_limit", "too many requests", "429")),
    ("timeout", ("timeout", "timed out")),
    ("authentication", ("authentication", "api key", "unauthorized", "401")),
    ("content_filter", ("content filter", "safety", "blocked")),
    ("not_found", ("not found", "404")),
    ("provider_unavailable", ("overloaded", "503", "502", "unavailable")),
)


def classify_error_message(message: str) -> str:
    """The category of a provider's error text: ``"context_length"``, ``"rate_limit"``,
    ``"timeout"``, ``"authentication"``, ``"content_filter"``, ``"not_found"``,
    ``"provider_unavailable"`` or ``"unknown"``; the first category one of whose phrases the
    lower-cased text contains."""
    if not isinstance(message, str):
        raise TypeError(
            f"classify_error_message: message must be a str, got {type(message).__name__}"
        )
    text = message.lower()
    for category, phrases in _CATEGORIES:
        if any(phrase in text for phrase in phrases):
            return category
    return "unknown"
