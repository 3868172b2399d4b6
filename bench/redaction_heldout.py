"""Recall and damage on a held-out corpus: secretlint's rule fixtures, read at bench time.

    git clone --bare https://github.com/secretlint/secretlint /tmp/secretlint.git
    python bench/redaction_heldout.py --git /tmp/secretlint.git [--misses N]

Nothing of that project is kept in this repository: the script reads, from a git directory
given on the command line (or ``SECRETLINT_GIT``), each rule package's test snapshots
(``packages/@secretlint/secretlint-rule-*/test/snapshots/<case>/``). The rules here were
never measured against, nor tuned on, these files.

- A ``ng.*`` case's ``output.json`` names each secret by its range in ``sourceContent``; the
  whole input is redacted at once, and a secret counts as found when no piece of it is left
  (``leaked`` of ``redact/tests/test_corpus.py``, the rule of every corpus here).
- A ``ok.*`` case's input holds no secret: each of its non-empty lines is an ordinary line,
  damaged when redacting the whole input changes it. Damage is given per 1,000 lines.

Packages that check file names or configuration rather than text (``no-dotenv``,
``no-homedir``, ``no-k8s-kind-secret``, ``filter-comments``, ``pattern``, ``example``) and the
presets (which repeat the rules' own fixtures) are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "redact"))

from tests.test_corpus import leaked  # type: ignore[import-not-found]  # noqa: E402

from amplifier_hooks_redact import RedactionConfig, build_redactor  # noqa: E402

PREFIX = "packages/@secretlint/secretlint-rule-"
LEFT_OUT = {
    "no-dotenv",
    "no-homedir",
    "no-k8s-kind-secret",
    "filter-comments",
    "pattern",
    "example",
    "preset-recommend",
    "preset-canary",
}


def _git(git: str, *args: str) -> str | None:
    """The output of a git command as UTF-8 text, or ``None`` for binary content."""
    done = subprocess.run(["git", f"--git-dir={git}", *args], capture_output=True, check=True)
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def cases(git: str) -> list[tuple[str, str, str, dict[str, Any] | None]]:
    """``(family, case, input text, output.json or None)`` per fixture directory."""
    names = (_git(git, "ls-tree", "-r", "--name-only", "HEAD") or "").splitlines()
    found: list[tuple[str, str, str, dict[str, Any] | None]] = []
    for name in names:
        if not name.startswith(PREFIX) or "/test/snapshots/" not in name:
            continue
        family, _, rest = name[len(PREFIX) :].partition("/test/snapshots/")
        case, _, file = rest.partition("/")
        if family in LEFT_OUT or "/" in file or not file.startswith("input"):
            continue
        text = _git(git, "show", f"HEAD:{name}")
        if text is None:
            continue  # a binary fixture
        folder = name.rsplit("/", 1)[0]
        output = None
        if f"{folder}/output.json" in names:
            output = json.loads(_git(git, "show", f"HEAD:{folder}/output.json") or "{}")
        found.append((family, case, text, output))
    return found


_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://([^/@\s]+:[^\s]+)@[^@]+$", re.IGNORECASE)


def _secret(source: str, message: dict[str, Any]) -> str | None:
    """The secret a message names: its longest ``data`` value found in the input (the
    range is sometimes the whole assignment); of a URL, its ``user:password``."""
    values = [
        value
        for value in (message.get("data") or {}).values()
        if isinstance(value, str) and len(value) >= 4 and value in source
    ]
    if not values:
        low, high = message["range"]
        values = [source[low:high]] if source[low:high].strip() else []
    if not values:
        return None
    secret = max(values, key=len)
    userinfo = _USERINFO.match(secret)
    return userinfo.group(1) if userinfo else secret


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git", default=os.environ.get("SECRETLINT_GIT"))
    parser.add_argument("--misses", type=int, default=0, help="print up to N misses and damage")
    options = parser.parse_args()
    if not options.git:
        parser.error("give --git DIR (a clone of github.com/secretlint/secretlint)")
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    lines = damaged = 0
    notes: list[str] = []
    started = time.process_time()
    for family, case, text, output in cases(options.git):
        redacted, _ = redactor.redact_text(text)
        if case.startswith("ng.") and output is not None:
            source = output.get("sourceContent", text)
            if not source.isascii():  # ranges count UTF-16 units: ASCII only
                continue
            for message in output.get("messages", []):
                secret = _secret(source, message)
                if secret is None:
                    continue
                total[family] += 1
                if leaked(text, secret, redacted):
                    notes.append(f"miss {family}/{case}: {secret[:80]!r}")
                else:
                    found[family] += 1
        elif case.startswith("ok."):
            before = text.splitlines()
            after = redacted.splitlines()
            for number, line in enumerate(before):
                if not line.strip():
                    continue
                lines += 1
                if number >= len(after) or after[number] != line:
                    damaged += 1
                    notes.append(f"damage {family}/{case}: {line[:80]!r}")
    seconds = time.process_time() - started
    print("secretlint rule fixtures, recall per family")
    for family in sorted(total):
        print(f"  {family:36} {found[family]:4} / {total[family]:<4}")
    all_found, all_total = sum(found.values()), sum(total.values())
    print(f"  {'overall':36} {all_found:4} / {all_total:<4} {all_found / all_total:.3f}")
    per_thousand = 1000 * damaged / lines if lines else 0.0
    print(f"ordinary lines damaged: {damaged} / {lines} ({per_thousand:.1f} per 1,000)")
    print(f"CPU time: {seconds:.2f} s")
    for note in notes[: options.misses]:
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
