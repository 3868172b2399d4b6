"""Loopback HTTP servers that speak the model APIs' wire formats, for provider tests."""

from .anthropic_api import AnthropicApi, anthropic_error, anthropic_message
from .openai_api import OpenAIApi, openai_completion, openai_error
from .server import LoopbackServer, Reply, Request, closed_port

__all__ = [
    "AnthropicApi",
    "LoopbackServer",
    "OpenAIApi",
    "Reply",
    "Request",
    "anthropic_error",
    "anthropic_message",
    "closed_port",
    "openai_completion",
    "openai_error",
]
