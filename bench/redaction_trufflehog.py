"""Recall and damage on trufflehog's detector pattern tests, split in a tuning and a held-out half.

    git clone --bare https://github.com/trufflesecurity/trufflehog /tmp/trufflehog.git
    python bench/redaction_trufflehog.py --git /tmp/trufflehog.git [--half held-out|tuning]
        [--misses N]

trufflehog is AGPL-3.0: nothing of it is kept in this repository; ``_trufflehog_corpus.py``
reads the samples from the git directory given (or ``TRUFFLEHOG_GIT``) at bench time, and
says what counts as a secret and as an ordinary line, and how the detectors are split. The
split was fixed before any sample was read; only the held-out half's figures are reported
as held-out figures.

A secret counts as found when no piece of it is left (``leaked`` of
``redact/tests/test_corpus.py``, the rule of every corpus here); each case's input is
redacted whole. An ordinary line (of a detector's own source) is damaged when redacting the
whole file changes it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "redact"))

from _trufflehog_corpus import cases, held_out, secrets_of, sources  # noqa: E402
from tests.test_corpus import leaked  # type: ignore[import-not-found]  # noqa: E402

from amplifier_hooks_redact import RedactionConfig, build_redactor  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git", default=os.environ.get("TRUFFLEHOG_GIT"))
    parser.add_argument("--half", choices=("held-out", "tuning"), default="held-out")
    parser.add_argument("--misses", type=int, default=0, help="print up to N misses and damage")
    options = parser.parse_args()
    if not options.git:
        print("skipped: give --git DIR or TRUFFLEHOG_GIT (a clone of trufflesecurity/trufflehog)")
        return 0
    redactor = build_redactor(RedactionConfig(rules=("secrets",)))
    want_held_out = options.half == "held-out"
    found = total = lines = damaged = 0
    families: set[str] = set()
    missed_families: Counter[str] = Counter()
    notes: list[str] = []
    started = time.process_time()
    for case in cases(options.git):
        if held_out(case.family) != want_held_out:
            continue
        secrets = secrets_of(case)
        if not secrets:
            continue
        families.add(case.family)
        redacted, _ = redactor.redact_text(case.text)
        for secret in secrets:
            total += 1
            if leaked(case.text, secret, redacted):
                missed_families[case.family] += 1
                notes.append(f"miss {case.name}: {secret[:70]!r}")
            else:
                found += 1
    for family, path, text in sources(options.git):
        if held_out(family) != want_held_out:
            continue
        redacted, _ = redactor.redact_text(text)
        after = redacted.splitlines()
        for number, line in enumerate(text.splitlines()):
            if not line.strip():
                continue
            lines += 1
            if number >= len(after) or after[number] != line:
                damaged += 1
                notes.append(f"damage {path}:{number + 1}: {line.strip()[:100]!r}")
    seconds = time.process_time() - started
    print(f"trufflehog detector pattern tests, {options.half} half: {len(families)} detectors")
    print(f"  secrets found: {found} / {total} ({found / max(total, 1):.3f})")
    per_thousand = 1000 * damaged / lines if lines else 0.0
    print(f"  ordinary lines damaged: {damaged} / {lines} ({per_thousand:.1f} per 1,000)")
    print(f"  detectors with a miss: {len(missed_families)}")
    print(f"  CPU time: {seconds:.2f} s")
    for note in notes[: options.misses]:
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
