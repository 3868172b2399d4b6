"""Loopback HTTP servers that speak the model APIs' wire formats, for testing provider modules
and what uses them (pure asyncio, on 127.0.0.1, in the test's own event loop)."""

from .anthropic_api import AnthropicApi, anthropic_error, anthropic_message
from .openai_api import OpenAIApi, openai_completion, openai_error
from .provider_check import check_provider_module
from .server import LoopbackServer, Reply, Request, closed_port

__all__ = [
    "AnthropicApi",
    "LoopbackServer",
    "OpenAIApi",
    "Reply",
    "Request",
    "anthropic_error",
    "anthropic_message",
    "check_provider_module",
    "closed_port",
    "openai_completion",
    "openai_error",
]
