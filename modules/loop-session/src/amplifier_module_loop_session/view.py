"""What a turn sees of the loop that runs it: :class:`LoopView`.

The turn runner and its parts (the provider call, the tool calls, the hook effects) reach the
orchestrator only through this protocol, so they never import it: ``SessionLoop`` satisfies
the protocol, a test may hand in anything else that does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from amplifier_hooks_util.kernel import Kernel

from amplifier_core.message_models import ToolSpec

from .config import LoopConfig

__all__ = ["LoopView"]


class LoopView(Protocol):
    """The loop as a turn uses it: read everywhere, written in one place
    (:attr:`current_request_id`, set as each model request goes out)."""

    config: LoopConfig
    coordinator: Any
    kernel: Kernel
    """The kernel the session runs on, asked once (:class:`~amplifier_hooks_util.kernel.Kernel`)."""
    working_dir: Path
    tools: dict[str, Any]
    current_request_id: str | None

    @property
    def provider_name(self) -> str: ...

    @property
    def provider(self) -> Any: ...

    @property
    def model(self) -> str: ...

    @property
    def cancelled(self) -> bool: ...

    def tool_specs(self) -> list[ToolSpec]: ...

    async def check_memory(self, tool_name: str | None) -> None: ...
