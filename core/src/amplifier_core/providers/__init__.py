"""Model providers: one uniform call, messages and tool specs in, text and tool calls out.

- :class:`ScriptedProvider` replays a YAML or JSON script of assistant turns (offline, and
  the default); its format is in :mod:`amplifier_core.providers.scripted`.
- :class:`AnthropicProvider` speaks the Anthropic Messages API.
- :class:`OpenAIProvider` speaks OpenAI-compatible chat completions.
- :func:`make_provider` builds any of them from a config mapping (``{"type": ..., ...}``).

The HTTP providers share one policy for timeouts, retries (429, 5xx, 529, connection
errors, with exponential backoff, jitter and ``retry-after``) and errors: every failure is a
:class:`~amplifier_core.chat.ProviderError` naming provider, model, HTTP status and the API's
own message. ``on_retry(retry, error, delay)`` reports each retry before its wait.
"""

from ._http import RETRY_AFTER_LIMIT, RETRYABLE_STATUSES, THROTTLE_STATUSES, OnRetry
from .anthropic import ANTHROPIC_VERSION, AnthropicProvider
from .openai import OpenAIProvider
from .registry import PROVIDER_TYPES, make_provider
from .scripted import ScriptedProvider, ScriptEntry

__all__ = [
    "ANTHROPIC_VERSION",
    "PROVIDER_TYPES",
    "RETRYABLE_STATUSES",
    "RETRY_AFTER_LIMIT",
    "THROTTLE_STATUSES",
    "AnthropicProvider",
    "OnRetry",
    "OpenAIProvider",
    "ScriptEntry",
    "ScriptedProvider",
    "make_provider",
]
