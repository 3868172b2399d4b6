"""What a check finds (:class:`Issue`) and how one check ended (:class:`CheckRun`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import Check

__all__ = ["CheckRun", "Issue"]


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding at a 1-based line and column of the checked file."""

    line: int
    column: int
    checker: Check
    code: str | None
    message: str

    def render(self, path: str) -> str:
        """``path:line:col: [checker CODE] message``, on one line."""
        tag = f"{self.checker} {self.code}" if self.code else self.checker
        message = " ".join(self.message.split())
        return f"{path}:{self.line}:{self.column}: [{tag}] {message}"


@dataclass(slots=True)
class CheckRun:
    """How one check of one file ended.

    ``issues`` is what it found; ``problem`` says why it could not finish (a timeout, a crash);
    ``missing`` names the checker executable that could not be found (``ruff`` or ``mypy``)
    with where it was looked for; ``diff`` is the format diff, when one was asked for.
    """

    check: Check
    issues: list[Issue] = field(default_factory=list)
    problem: str | None = None
    missing: tuple[str, str] | None = None
    diff: str | None = None
