"""The built-in tools of the session runtime: ``bash``, ``read_file``, ``write_file``,
``edit_file`` and ``todo``.

Each tool has ``name``, ``description`` and ``input_schema`` (derived from its pydantic input
model) and ``async execute(input) -> ToolResult``. A failure the model should see (a bad input,
a missing file, a non-zero exit, a timeout) is a result with ``success=False`` and
``error={"type", "message"}``, never an exception::

    from amplifier_core.tools import builtin_tools

    tools = builtin_tools(workspace, coordinator, {"bash": {"timeout": 60}})
    result = await tools["bash"].execute({"command": "pytest -q"})
"""

from ._builtin import BUILTIN_TOOL_NAMES, ToolsConfig, builtin_tools
from ._common import ToolConfigError
from .bash import BashConfig, BashInput, BashTool
from .files import (
    EditFileInput,
    EditFileTool,
    FilesConfig,
    ReadFileInput,
    ReadFileTool,
    WriteFileInput,
    WriteFileTool,
)
from .todo import TodoInput, TodoItem, TodoStatus, TodoTool

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "BashConfig",
    "BashInput",
    "BashTool",
    "EditFileInput",
    "EditFileTool",
    "FilesConfig",
    "ReadFileInput",
    "ReadFileTool",
    "TodoInput",
    "TodoItem",
    "TodoStatus",
    "TodoTool",
    "ToolConfigError",
    "ToolsConfig",
    "WriteFileInput",
    "WriteFileTool",
    "builtin_tools",
]
