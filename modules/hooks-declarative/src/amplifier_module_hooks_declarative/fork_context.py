"""Context for a child session at its start: Claude Code's ``SubagentStart``
``additionalContext``.

``SubagentStart`` is ``session:fork``, which the kernel fires in the child once its modules
are mounted, and whose result no kernel acts on. So the dispatcher hands the hooks' context
to the child's coordinator itself (``process_hook_result`` with an ``inject_context``, as for
a context beside a modify), where it enters the child's context manager before the child's
first prompt; the result it returns then carries no injection, so that a kernel that does act
on ``session:fork`` results does not add it twice. The application's fork keeps what the
hooks added when it gives the child its parent's conversation (``AgentSession.fork``).
"""

from __future__ import annotations

from typing import Final

from amplifier_core.models import HookResult

__all__ = ["FORK_EVENT", "without_injections"]

FORK_EVENT: Final = "session:fork"


def without_injections(result: HookResult) -> HookResult | None:
    """``result`` with its context injections removed (delivered already); ``None`` when
    nothing else is left in it."""
    stripped = result.model_copy(update={"context_injections": [], "context_injection": None})
    if stripped.action == "inject_context":
        stripped = stripped.model_copy(update={"action": "continue"})
    said = stripped.user_message or getattr(stripped, "user_messages", None)
    if stripped.action == "continue" and not said:
        return None
    return stripped
