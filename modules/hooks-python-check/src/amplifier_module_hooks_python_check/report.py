"""Turn the runs of one file's checks into what the model and the human are told.

The model gets the issues, one per line (``path:line:col: [checker CODE] message``), at most
``max_issues`` of them and then ``... and N more``, plus the format diff when one was asked for.
The human gets one line: ``python-check: 3 issues in foo.py (ruff 2, mypy 1)``, with any
timeout, failure or missing checker after it. A check that could not run (missing, timed out,
failed) is named to the model too, every time, so a file is never taken for clean because its
checker was absent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from .config import CHECKS, SOURCE
from .issues import CheckRun, Issue

__all__ = ["MAX_INJECTION_BYTES", "MAX_MESSAGE_CHARS", "Feedback", "build_feedback", "plural"]

MAX_INJECTION_BYTES: Final = 8000
"""Stays under the kernel's default per-injection limit (10 KiB) with room to spare."""
MAX_MESSAGE_CHARS: Final = 400
_ORDER: Final = {check: index for index, check in enumerate(CHECKS)}
_LABELS: Final = {"ruff": "ruff check", "format": "ruff format", "mypy": "mypy", "stubs": "stubs"}


@dataclass(frozen=True, slots=True)
class Feedback:
    """What to inject for the model (``None``: nothing) and the one line for the human."""

    injection: str | None
    user_message: str | None
    level: Literal["info", "warning", "error"] = "warning"


def plural(count: int, word: str) -> str:
    """``1 issue``, ``3 issues``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def _merged(runs: Sequence[CheckRun]) -> list[Issue]:
    """All issues in line order; mypy's copy of a syntax error ruff already reported is dropped."""
    issues = [issue for run in runs for issue in run.issues]
    if any(i.checker == "ruff" and i.code == "syntax" for i in issues):
        issues = [i for i in issues if not (i.checker == "mypy" and i.code == "syntax")]
    issues.sort(key=lambda i: (i.line, i.column, _ORDER[i.checker]))
    return issues


def _render(issue: Issue, display: str) -> str:
    line = issue.render(display)
    return line if len(line) <= MAX_MESSAGE_CHARS else line[: MAX_MESSAGE_CHARS - 3] + "..."


def _fit(text: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= MAX_INJECTION_BYTES:
        return text
    cut = data[: MAX_INJECTION_BYTES - 40].decode("utf-8", errors="ignore")
    return cut.rsplit("\n", 1)[0] + "\n... (cut to stay within the injection size limit)"


def build_feedback(
    display: str,
    runs: Sequence[CheckRun],
    *,
    max_issues: int,
    notes: Sequence[str] = (),
    report_clean: bool = False,
) -> Feedback:
    """The feedback for one checked file.

    ``notes`` are extra sentences for the human (a checker that is not installed, said once);
    the model is told of every check that did not run, each time.
    Clean means every check that ran finished and found nothing: silent unless
    ``report_clean``.
    """
    issues = _merged(runs)
    problems = [run.problem for run in runs if run.problem]
    extra = [*problems, *notes]
    unchecked = [
        f"{_LABELS[run.check]} did not run: "
        + (run.problem or f"{run.missing[0] if run.missing else run.check} is not available")
        for run in runs
        if run.problem or run.missing
    ]
    if issues:
        counts = Counter(issue.checker for issue in issues)
        breakdown = ", ".join(f"{check} {counts[check]}" for check in CHECKS if counts[check])
        headline = f"{plural(len(issues), 'issue')} in {display} ({breakdown})"
        lines = [f"{SOURCE} found {headline}:"]
        lines += [_render(issue, display) for issue in issues[:max_issues]]
        if len(issues) > max_issues:
            lines.append(f"... and {len(issues) - max_issues} more")
        for run in runs:
            if run.diff:
                lines += ["", f"ruff format would change {display}:", run.diff]
        if unchecked:
            lines += ["", f"Not checked, so {display} may have more issues:", *unchecked]
        message = "; ".join([f"{SOURCE}: {headline}", *extra])
        return Feedback(injection=_fit("\n".join(lines)), user_message=message)
    if unchecked:
        ran = [_LABELS[run.check] for run in runs if not (run.problem or run.missing)]
        found = f"{', '.join(ran)} found nothing" if ran else "no check ran"
        text = "\n".join([f"{SOURCE} could not fully check {display} ({found}):", *unchecked])
        said = f"{SOURCE}: {display}: " + "; ".join(extra) if extra else None
        return Feedback(injection=_fit(text), user_message=said)
    if extra:
        return Feedback(injection=None, user_message=f"{SOURCE}: {display}: " + "; ".join(extra))
    if not report_clean:
        return Feedback(injection=None, user_message=None)
    finished = ", ".join(run.check for run in runs if run.missing is None)
    clean = f"{SOURCE}: {display} is clean ({finished or 'no checks ran'})"
    return Feedback(injection=clean, user_message=clean, level="info")
