"""Loopback HTTP servers that speak the model APIs' wire formats, for testing provider modules
and what uses them (pure asyncio, on 127.0.0.1, in the test's own event loop)."""

from .anthropic_api import AnthropicApi, anthropic_error, anthropic_message
from .openai_api import OpenAIApi, openai_completion, openai_error
from .provider_check import PROVIDER_APIS, check_provider_module, check_provider_package
from .server import LoopbackServer, Reply, Request, closed_port

__all__ = [
    "PROVIDER_APIS",
    "AnthropicApi",
    "LoopbackServer",
    "OpenAIApi",
    "Reply",
    "Request",
    "anthropic_error",
    "anthropic_message",
    "check_provider_module",
    "check_provider_package",
    "closed_port",
    "openai_completion",
    "openai_error",
]
