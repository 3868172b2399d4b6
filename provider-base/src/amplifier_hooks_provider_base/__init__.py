"""amplifier_hooks_provider_base: the frame the HTTP provider modules share.

- :mod:`~amplifier_hooks_provider_base.http`: JSON over HTTP with timeouts, retries with
  backoff and ``retry-after``, the API's own error text (:class:`JsonPoster`,
  :class:`HttpError`), and :func:`llm_error`: a failure as the host kernel's ``llm_errors``;
- :mod:`~amplifier_hooks_provider_base.provider`: :class:`HttpProvider`, amplifier-core's
  Provider protocol for a JSON-over-HTTP model API; a module subclasses it and hands in the
  kernel it runs on as a :class:`HostKernel`;
- :mod:`~amplifier_hooks_provider_base.tool_choice`: a request's ``tool_choice`` in any of the
  forms Amplifier's ``ChatRequest`` carries, as one :class:`ToolChoice` to write in an API's
  own form.

It imports no kernel, so provider modules built on it run on amplifier-hooks and on
amplifier-core 2.0.2 alike.
"""

from .http import HttpError, HttpSettings, JsonPoster, llm_error, resolve_api_key
from .provider import Answer, HostKernel, HttpProvider, HttpProviderConfig, mount_provider
from .tool_choice import ToolChoice, read_tool_choice

__all__ = [
    "Answer",
    "HostKernel",
    "HttpError",
    "HttpProvider",
    "HttpProviderConfig",
    "HttpSettings",
    "JsonPoster",
    "ToolChoice",
    "llm_error",
    "mount_provider",
    "read_tool_choice",
    "resolve_api_key",
]
