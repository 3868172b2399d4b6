"""Claude Code's ``type: mcp_tool`` hooks: call a tool of an MCP server the session has
connected, and read its text output as a command hook's stdout.

The session's MCP tools are mounted as ``mcp__<server>__<tool>`` (the name Claude Code gives
them, and the one its matchers use). The hook's ``input`` is sent with each ``${path}``
replaced by the field at ``path`` of the event's Claude Code object (what a command hook reads
on stdin: ``${tool_input.file_path}``, ``${tool_name}``, ``${session_id}``, ``${cwd}``); a
string that is one reference alone takes the field's value as it is, and a missing field is
empty. The tool's output is read by the ``claude-code`` protocol as exit code 0's stdout
(``decision``, ``hookSpecificOutput``, ...); a tool that reports an error is a failure of the
hook. No such tool mounted (no server of that name connected, or none at all) is a
non-blocking error: a warning naming the server and tool, and the event's other hooks decide;
``onFailure: block`` makes it block. A hook that runs contained (``sandbox``, which
:mod:`..containment` sets as the module's config requires) never calls the tool, which would
act for it outside the sandbox: it fails by its ``on_failure``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..protocols import command_protocol
from ..specs import McpToolHookSpec
from ..types import Decision, HookContext, failure_decision

__all__ = ["McpToolRunner", "substitute"]

_REFERENCE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def _field(payload: Mapping[str, Any], path: str) -> Any:
    value: Any = payload
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def substitute(value: Any, payload: Mapping[str, Any]) -> Any:
    """``value`` with every ``${path}`` replaced from ``payload`` (see the module docstring)."""
    if isinstance(value, str):
        alone = _REFERENCE.fullmatch(value)
        if alone:
            found = _field(payload, alone.group(1))
            return "" if found is None else found

        def one(match: re.Match[str]) -> str:
            found = _field(payload, match.group(1))
            if found is None:
                return ""
            return found if isinstance(found, str) else json.dumps(found)

        return _REFERENCE.sub(one, value)
    if isinstance(value, Mapping):
        return {key: substitute(item, payload) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, payload) for item in value]
    return value


class McpToolRunner:
    """Runs one ``type: mcp_tool`` hook (see the module docstring)."""

    def __init__(
        self,
        spec: McpToolHookSpec,
        *,
        label: str,
        project_dir: str,
        tools: Callable[[], Any] | None,
    ) -> None:
        self.spec = spec
        self.label = label
        self.project_dir = project_dir
        self._tools = tools

    @property
    def tool_name(self) -> str:
        return f"mcp__{self.spec.server}__{self.spec.tool}"

    async def run(self, ctx: HookContext) -> Decision:
        spec = self.spec
        if spec.sandbox:
            problem = (
                f"{self.tool_name} was not called: the hook runs contained (sandbox), and the "
                "session's tool would act for it outside the sandbox"
            )
            return failure_decision(spec.on_failure, self.label, problem)
        mounted = (self._tools() if self._tools is not None else None) or {}
        tool = mounted.get(self.tool_name) if isinstance(mounted, Mapping) else None
        if tool is None:
            servers = sorted(
                {str(n).split("__")[1] for n in mounted if str(n).startswith("mcp__")}
                if isinstance(mounted, Mapping)
                else set()
            )
            connected = ", ".join(servers) if servers else "none"
            problem = (
                f"MCP tool {spec.tool!r} of server {spec.server!r} is not connected "
                f"(no tool {self.tool_name} mounted; MCP servers connected: {connected})"
            )
            return failure_decision(spec.on_failure, self.label, problem)
        claude = command_protocol("claude-code")
        payload = dict(claude.stdin(ctx, self.project_dir))
        arguments = substitute(spec.input, payload)
        try:
            raw = await asyncio.wait_for(tool.execute(arguments), spec.timeout_ms / 1000)
        except TimeoutError:
            problem = f"{self.tool_name} did not answer within {spec.timeout_ms} ms"
            return failure_decision(spec.on_failure, self.label, problem)
        except Exception as err:
            problem = f"{self.tool_name} raised {type(err).__name__}: {err}"
            return failure_decision(spec.on_failure, self.label, problem)
        output = getattr(raw, "output", raw)
        if getattr(raw, "success", True) is False:
            error = getattr(raw, "error", None) or output
            return failure_decision(
                spec.on_failure, self.label, f"{self.tool_name} failed: {error}"
            )
        text = output if isinstance(output, str) else json.dumps(output, default=str)
        decision = claude.decision(ctx, text or "", self.label, self.project_dir, False)
        if isinstance(decision, str):
            return failure_decision(spec.on_failure, self.label, f"{self.tool_name}: {decision}")
        return decision
