"""A decision's budget: reading a command stops once its time (or its steps) are spent.

The hook decides a call in a worker thread (:mod:`.hook`) under :func:`within`, and the reader
spends the budget as it goes (:func:`spend`: one step per :data:`STEP_CHARS` characters of
text read, per word, per simple command, per rule tried, per path looked at). Once the
deadline has passed or the steps are spent, the next :func:`spend` raises
:class:`DecisionTimeout`, so a command built to make the reading slow stops the thread soon
after its deadline instead of running on beside the session; the hook fails closed (the call
is asked, or denied where the default is ``deny``).

Steps make the budget deterministic where a test needs it: a budget of ``steps=N`` runs out
after the same ``N`` steps on any machine, and a deadline of ``0`` seconds runs out at the
first step.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

__all__ = ["STEP_CHARS", "Budget", "DecisionTimeout", "spend", "within"]

STEP_CHARS: Final = 64
"""Characters of command text read for one step."""


class DecisionTimeout(Exception):
    """The decision's budget ran out before the command was read."""


class Budget:
    """``seconds`` from now (``None``: no deadline) and at most ``steps`` steps (``None``: no
    limit) to decide one call."""

    __slots__ = ("_deadline", "_limit", "seconds", "spent")

    def __init__(self, seconds: float | None, steps: int | None = None) -> None:
        self.seconds = seconds
        self._deadline = None if seconds is None else time.monotonic() + seconds
        self._limit = steps
        self.spent = 0

    def spend(self, steps: int = 1) -> None:
        """Count ``steps``; raise :class:`DecisionTimeout` once the budget is spent."""
        self.spent += steps
        if self._limit is not None and self.spent > self._limit:
            raise DecisionTimeout(f"the command took more than {self._limit} steps to read")
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise DecisionTimeout(f"the command was not read within {self.seconds:g} s")


_CURRENT: Final[ContextVar[Budget | None]] = ContextVar("hooks_approval_budget", default=None)


def spend(steps: int = 1) -> None:
    """Spend ``steps`` of the budget the current decision runs under (none: free)."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.spend(steps)


@contextmanager
def within(budget: Budget) -> Iterator[Budget]:
    """Run the block under ``budget``: every :func:`spend` in it counts against it."""
    token = _CURRENT.set(budget)
    try:
        budget.spend(0)
        yield budget
    finally:
        _CURRENT.reset(token)
