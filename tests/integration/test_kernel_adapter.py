"""The kernel adapter (``amplifier_hooks_util.kernel.Kernel``) on both kernels, from one
scenario: registering with a timeout and fail-closed, who listens, what ``None`` means,
context handed aside, ending the turn.

The scenario runs here on our kernel, and on amplifier-core 2.0.2 in that kernel's own
environment (``AMPLIFIER_CORE_202_PYTHON``, as the ``compat`` nox session sets it); each
kernel's answers are written down once, side by side.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_testsupport.upstream import needs_upstream, run_upstream

SCENARIO: Final = textwrap.dedent(
    """
    import asyncio, json
    from amplifier_core.models import HookResult
    from amplifier_core.testing import MockCoordinator
    from amplifier_hooks_util.kernel import Kernel


    async def scenario():
        coordinator = MockCoordinator()
        kernel = Kernel.of(coordinator)
        seen = []

        async def quiet(event, data):
            seen.append(("quiet", event))
            return None

        async def broken(event, data):
            seen.append(("broken", event))
            raise RuntimeError("guard crashed")

        off = kernel.register("tool:pre", quiet, priority=0, name="probe:quiet", timeout=5.0)
        kernel.register(
            "tool:post", broken, priority=0, name="probe:broken", timeout=5.0, fail_closed=True
        )
        quiet_result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
        broken_result = await coordinator.hooks.emit("tool:post", {"tool_name": "bash"})
        listened = [kernel.listened("tool:pre")]
        off()
        listened += [kernel.listened("tool:pre"), kernel.listened("llm:request")]
        await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
        aside = HookResult(action="inject_context", context_injection="note from a hook")
        taken = await kernel.inject_aside(aside, "tool:pre", "probe:aside")
        interrupted = await kernel.interrupt()
        return {
            "rich": kernel.rich,
            "none_is_continue": kernel.none_is_continue,
            "keeps_modify_injections": kernel.keeps_modify_injections,
            "wildcards": kernel.wildcards,
            "seen": seen,
            "listened": listened,
            "quiet": quiet_result.action,
            "broken": broken_result.action,
            "taken": taken,
            "interrupted": interrupted,
            "cancelled": coordinator.cancellation.is_cancelled,
        }
    """
)

RUN: Final = SCENARIO + textwrap.dedent(
    """
    print(json.dumps(asyncio.run(scenario())))
    """
)

COMMON: Final[dict[str, Any]] = {
    "seen": [["quiet", "tool:pre"], ["broken", "tool:post"]],
    "quiet": "continue",
    "listened": [True, False, False],
    "taken": True,
    "interrupted": "token",  # no orchestrator mounted: the cancellation token
    "cancelled": True,
}
OURS: Final[dict[str, Any]] = {
    **COMMON,
    "rich": True,
    "none_is_continue": True,
    "keeps_modify_injections": True,
    "wildcards": True,
    "broken": "deny",  # a fail-closed handler that raises denies the event
}
UPSTREAM: Final[dict[str, Any]] = {
    **COMMON,
    "rich": False,
    "none_is_continue": False,
    "keeps_modify_injections": False,
    "wildcards": False,
    "broken": "continue",  # 2.0.2 has no fail-closed handlers: a raising handler is skipped
}


def _ours() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(SCENARIO, "kernel_scenario", "exec"), namespace)
    found: dict[str, Any] = asyncio.run(namespace["scenario"]())
    return json.loads(json.dumps(found))  # type: ignore[no-any-return]


def test_the_adapter_on_our_kernel() -> None:
    assert _ours() == OURS


@needs_upstream
def test_the_adapter_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(RUN, tmp_path, sources=[])
    assert json.loads(out.strip().splitlines()[-1]) == UPSTREAM
