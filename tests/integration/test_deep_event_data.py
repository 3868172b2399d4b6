"""Depth never kills a session: a tool output nested 10,000 levels deep goes through every
hook of a full bundle (logging, redaction, approval, declarative hooks), the kernel's copies,
the orchestrator and the context without a RecursionError; the model sees a result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.models import ToolResult

from .support import call, make_bundle, module, session_for

DEPTH = 10_000


def nested(depth: int) -> Any:
    value: Any = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    for level in range(depth):
        value = {"level": level, "inner": [value]} if level % 2 else {"d": value}
    return value


class DeepTool:
    """A tool whose output is nested ``DEPTH`` levels deep (a parser's AST, a deep JSON)."""

    name = "deep"
    description = "Returns deeply nested data."
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(success=True, output=nested(DEPTH))


async def test_a_tool_output_nested_10000_deep_does_not_kill_the_session(
    workspace: Path, tmp_path: Path
) -> None:
    user_dir = tmp_path / "user"
    user_dir.mkdir()
    (user_dir / "hooks.yaml").write_text(
        "hooks:\n"
        "  PostToolUse:\n"
        "    - type: matcher\n"
        "      match: {tool: '*'}\n"
        "      action: allow\n"
        "    - type: command\n"
        "      command: cat > /dev/null\n"
    )
    bundle = make_bundle(
        hooks=[
            module("hooks-logging", {"path": str(tmp_path / "events.jsonl")}),
            module("hooks-redaction", {}),
            module("hooks-approval", {"audit_log": None, "other_tools_action": "ask"}),
            module("hooks-declarative", {"user_dir": str(user_dir), "claude_code": False}),
        ]
    )
    script = [call("deep", probe="x"), {"text": "seen it"}]
    session, recorder, provider = session_for(
        workspace,
        script,
        bundle,
        tools={"deep": DeepTool()},
        approval_system=StaticApprovalSystem("allow"),
    )
    async with session:
        outcome = await session.run("look deep")
    assert outcome.response == "seen it"
    assert "tool:post" in recorder.names or "tool:error" in recorder.names
    # The model read something for the call, and no secret in it.
    last = json.dumps([m.model_dump(mode="json") for m in provider.requests[-1].messages])
    assert "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" not in last
    # hooks-logging wrote the tool:post event (cut, never dropped silently).
    logged = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert "tool:post" in [record.get("event") for record in logged]


async def test_the_kernels_json_view_of_deep_data_is_not_a_crash() -> None:
    from amplifier_core.hooks import HookRegistry
    from amplifier_core.models import HookResult

    seen: list[Any] = []

    def handler(_event: str, data: dict[str, Any]) -> HookResult:
        seen.append(data["tool_result"])
        return HookResult()

    registry = HookRegistry(json_data=True)
    registry.register("tool:post", handler, name="observer")
    result = await registry.emit("tool:post", {"tool_name": "deep", "tool_result": nested(DEPTH)})
    assert result.action == "continue"
    depth, node = 0, seen[0]  # past 200 levels the data is handed over as it is, whole
    while isinstance(node, dict | list) and node:
        node = node.get("d", node.get("inner")) if isinstance(node, dict) else node[0]
        depth += 1
    assert depth >= DEPTH


async def test_an_approved_input_nested_10000_deep_runs_as_approved(workspace: Path) -> None:
    """A hook rewrites the input into data nested 10,000 deep and asks; the human allows it.
    The kernel and the orchestrator copy what was approved without recursing."""
    from amplifier_core.models import HookResult

    seen: list[Any] = []

    class Probe:
        name = "probe"
        description = "Records its input."
        input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

        async def execute(self, input: dict[str, Any]) -> ToolResult:
            seen.append(input)
            return ToolResult(success=True, output="ok")

    def rewrite(_event: str, data: dict[str, Any]) -> HookResult:
        deep = {"payload": nested(DEPTH)}
        return HookResult(
            action="ask_user", approval_prompt="Run it?", data={**data, "tool_input": deep}
        )

    approvals = StaticApprovalSystem("allow")
    script = [call("probe", x=1), {"text": "done"}]
    bundle = make_bundle(
        hooks=[
            module("hooks-logging", {"path": str(workspace / "events.jsonl")}),
            module("hooks-redaction", {}),
            module("hooks-approval", {"audit_log": None}),
        ]
    )
    session, _, _ = session_for(
        workspace, script, bundle, tools={"probe": Probe()}, approval_system=approvals
    )
    session.coordinator.hooks.register("tool:pre", rewrite, name="deepener")
    async with session:
        outcome = await session.run("go")
    assert outcome.response == "done"
    assert len(seen) == 1
    depth, node = 0, seen[0]["payload"]
    while isinstance(node, dict):
        node = node.get("d", node.get("inner", [None])[0])
        depth += 1
    assert depth == DEPTH  # the whole input ran, not a cut copy
    assert "nested deeper than 64 levels" in approvals.requests[0]
