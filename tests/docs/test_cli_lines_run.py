"""Every ``amplifier-hooks`` command line in the READMEs' and docs' shell blocks runs as written
(continuation lines joined, comments dropped) and exits 0 (``emit``: 0, or the exit code of the
decision it shows, 3 for a deny and 4 for an ask): from the repository's directory,
with the installed script, no terminal, ``CI`` set, and a state directory of its own. The
checkout is left as it was."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.commands.emit import EXIT_CODES

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "cli" / "README.md",
        *ROOT.glob("modules/*/README.md"),
        *ROOT.glob("docs/*.md"),
    ]
)
SCRIPT = Path(sys.executable).parent / "amplifier-hooks"


def _joined(block: str) -> Iterator[tuple[int, str]]:
    """Each command of a shell block with its continuation lines joined, and its offset."""
    start, parts = 0, list[str]()
    for offset, raw in enumerate(block.splitlines()):
        if not parts:
            start = offset
        stripped = raw.strip()
        if stripped.endswith("\\"):
            parts.append(stripped[:-1])
            continue
        parts.append(stripped)
        yield start, " ".join(parts)
        parts = []


def _lines() -> Iterator[Any]:
    seen: set[tuple[str, ...]] = set()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"```(?:bash|sh|console)\n(.*?)```", text, re.S):
            first = text.count("\n", 0, match.start()) + 2
            for offset, line in _joined(match.group(1)):
                if not line.startswith("amplifier-hooks "):
                    continue
                words = tuple(shlex.split(line, comments=True))
                if words in seen:
                    continue
                seen.add(words)
                where = f"{doc.relative_to(ROOT)}:{first + offset}"
                yield pytest.param(list(words), where, id=where)


def _status() -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else ""


@pytest.mark.parametrize(("words", "where"), list(_lines()))
def test_cli_line_runs_as_written(words: list[str], where: str, tmp_path: Path) -> None:
    before = _status()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(AMPLIFIER_HOME=str(tmp_path / "state"), CI="1")
    done = subprocess.run(
        [str(SCRIPT), *words[1:]],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    expected = {0, EXIT_CODES["deny"], EXIT_CODES["ask"]} if words[1] == "emit" else {0}
    assert done.returncode in expected, (
        f"{where}: {shlex.join(words)}\n{done.stdout}\n{done.stderr}"
    )
    assert _status() == before, f"{where}: {shlex.join(words)} changed the checkout"


def test_the_command_lines_are_found() -> None:
    found = {tuple(p.values[0][:2]) for p in _lines()}
    assert {("amplifier-hooks", "demo"), ("amplifier-hooks", "validate")} <= found
