"""Refuse a commit message whose subject is longer than 72 characters (a ``commit-msg`` hook).

Usage: ``python3 tools/check_commit_subject.py MESSAGE_FILE`` (pre-commit passes the file git
writes the message to). The subject is the first line that is neither blank nor a ``#``
comment; the detail belongs in the body, after a blank line. Exit status 1, with the subject
and its length on standard error, when it is too long or missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["LIMIT", "main", "subject_of"]

LIMIT = 72


def subject_of(message: str) -> str | None:
    """The subject line of ``message``: its first line that is not blank or a comment."""
    for line in message.splitlines():
        if line.strip() and not line.startswith("#"):
            return line.rstrip()
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_commit_subject.py MESSAGE_FILE", file=sys.stderr)
        return 2
    path = Path(argv[0])
    subject = subject_of(path.read_text(encoding="utf-8", errors="replace"))
    if subject is None:
        print(f"{path}: the commit message has no subject line", file=sys.stderr)
        return 1
    if len(subject) > LIMIT:
        print(
            f"{path}: the commit subject has {len(subject)} characters, at most {LIMIT} "
            f"allowed; say what the product does now, and put the detail in the body:\n"
            f"  {subject}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
