"""Well-known model capabilities: the strings a provider lists in ``ModelInfo.capabilities``
and a module asks for (``"tools" in model.capabilities``), under amplifier-core 2.0.2's
names. Providers may list others; these are the ones everyone spells the same way."""

from __future__ import annotations

from typing import Final

__all__ = [
    "ALL_WELL_KNOWN_CAPABILITIES",
    "AUDIO",
    "BATCH",
    "CODE_EXECUTION",
    "COMPUTER_USE",
    "DEEP_RESEARCH",
    "EMBEDDINGS",
    "FAST",
    "IMAGE_GENERATION",
    "JSON_MODE",
    "LOCAL",
    "LONG_CONTEXT",
    "STREAMING",
    "THINKING",
    "TOOLS",
    "VISION",
    "WEB_SEARCH",
]

TOOLS: Final = "tools"
STREAMING: Final = "streaming"
THINKING: Final = "thinking"
VISION: Final = "vision"
JSON_MODE: Final = "json_mode"
FAST: Final = "fast"
CODE_EXECUTION: Final = "code_execution"
WEB_SEARCH: Final = "web_search"
DEEP_RESEARCH: Final = "deep_research"
LOCAL: Final = "local"
AUDIO: Final = "audio"
IMAGE_GENERATION: Final = "image_generation"
COMPUTER_USE: Final = "computer_use"
EMBEDDINGS: Final = "embeddings"
LONG_CONTEXT: Final = "long_context"
BATCH: Final = "batch"

ALL_WELL_KNOWN_CAPABILITIES: Final[list[str]] = [
    TOOLS,
    STREAMING,
    THINKING,
    VISION,
    JSON_MODE,
    FAST,
    CODE_EXECUTION,
    WEB_SEARCH,
    DEEP_RESEARCH,
    LOCAL,
    AUDIO,
    IMAGE_GENERATION,
    COMPUTER_USE,
    EMBEDDINGS,
    LONG_CONTEXT,
    BATCH,
]
"""Every constant above, in this order."""
