"""What a process printed before it died while the interpreter finalized (an exit crash)."""

from __future__ import annotations

import re

__all__ = ["before_exit_crash"]

_FATAL = re.compile(r"^Fatal Python error: ", re.MULTILINE)
_FINALIZING = "Python runtime state: finalizing"


def before_exit_crash(output: str) -> str | None:
    """``output`` up to a fatal error the interpreter reported while it was finalizing (what a
    process printed before it died at exit), or ``None`` when it holds no such report.

    amplifier-core 2.0.2's engine (a Rust extension) keeps threads of its own; now and then one
    of them calls into the interpreter while the interpreter shuts down and the process aborts
    (``Fatal Python error: PyGILState_Release: thread state ... must be current when
    releasing``, ``Python runtime state: finalizing``), after the command has done its work and
    printed everything. A report of any other state (a crash while the program still ran) is
    not an exit crash."""
    found = _FATAL.search(output)
    if found is None or _FINALIZING not in output[found.start() :]:
        return None
    return output[: found.start()].rstrip("\n")
