"""A ``read`` tool for the application scenario: the text of a file under the working directory.

provider-mock asks for ``read`` with ``{"path": "test.txt"}`` whenever the last message says
"read"; this tool answers it on both kernels. It is mounted from this directory (no
pyproject, so amplifier-foundation installs nothing for it) and so is validated at load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_core import ToolResult

__all__ = ["Read", "mount"]


class Read:
    name = "read"
    description = "Read a text file under the working directory"

    def __init__(self) -> None:
        self.input_schema: dict[str, Any] = {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "file to read"}},
            "required": ["path"],
        }

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        path = Path(str(input.get("path", "")))
        try:
            text = path.read_text(encoding="utf-8")  # noqa: ASYNC240 - a small local file
            return ToolResult(success=True, output=text)
        except OSError as err:
            return ToolResult(success=False, error={"message": f"read {path}: {err}"})


async def mount(coordinator: Any, config: dict[str, Any]) -> None:
    await coordinator.mount("tools", Read(), name="read")
