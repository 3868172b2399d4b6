"""A hook's deny that also ends the turn: Claude Code's ``PermissionRequest``
``decision.interrupt: true`` ("stops Claude").

The denied call is answered with the denial as usual; then the running turn is asked to stop
as a user's cancel does: through the orchestrator's ``cancel()`` when it has one (loop-session
fires ``cancel:requested`` and sets the coordinator's cancellation token), else the token's
``request_graceful()``. The turn stops before its next provider request (after the other calls
of the model's batch are answered) with the status ``cancelled``. Where neither exists, the
denial stands and a warning says that the turn could not be ended.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from amplifier_hooks_util.kernel import Kernel

from .types import Decision

__all__ = ["interrupt_turn"]

logger = logging.getLogger(__name__)


async def interrupt_turn(kernel: Kernel, blocks: Sequence[Decision], event: str) -> bool:
    """Ask the running turn to stop for the interrupting decisions among ``blocks``; True
    when a cancel was requested."""
    who = ", ".join(d.source for d in blocks if d.interrupt) or "a hook"
    reason = next((d.message for d in blocks if d.interrupt and d.message), "") or "no reason"
    try:
        how = await kernel.interrupt()
    except Exception as err:
        logger.warning(
            "hook %s asked to interrupt on %s; ending the turn failed (%s: %s); the denial stands",
            who,
            event,
            type(err).__name__,
            err,
        )
        return False
    if how is None:
        logger.warning(
            "hook %s asked to interrupt on %s (%s), but the session has no way to "
            "end the turn; the denial stands and the turn goes on",
            who,
            event,
            reason,
        )
        return False
    logger.warning("hook %s interrupted the turn on %s: %s", who, event, reason)
    return True
