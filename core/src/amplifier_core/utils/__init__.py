"""Helpers for providers and modules: retrying LLM calls with backoff, trimming data for logs.

``RetryConfig`` / ``retry_with_backoff`` / ``classify_error_message`` (:mod:`.retry`) and
``truncate_values`` / ``redact_secrets`` / ``SENSITIVE_KEYS`` (:mod:`.truncate`), under the
names amplifier-core 2.0.2 gives them.
"""

from __future__ import annotations

from .retry import RetryConfig, classify_error_message, compute_delay, retry_with_backoff
from .truncate import SENSITIVE_KEYS, redact_secrets, truncate_values

__all__ = [
    "SENSITIVE_KEYS",
    "RetryConfig",
    "classify_error_message",
    "compute_delay",
    "redact_secrets",
    "retry_with_backoff",
    "truncate_values",
]
