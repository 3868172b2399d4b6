"""The redaction engine on its corpus: recall and false positives by category, beside
detect-secrets.

    python bench/redaction_corpus.py [--no-peer]

The corpus (``redact/tests/corpus.py``, a fixed seed) holds fake secrets in
the shapes they leak in (vendor tokens, command-line passwords, ``.netrc``, XML, config keys,
AWS key pairs, base64 and URL-encoded credentials, multi-line and escaped values, prose) and
ordinary text of a coding session (identifiers, hashes, ids, versions, paths, logs, counts,
plain base64, placeholders, prose, commands). A secret is found when no piece of it of four
characters or more is left; an ordinary line is a false positive when anything in it is
redacted. The test suite holds our figures to a floor (``test_corpus.py``).

detect-secrets (Yelp's scanner: default plugins and filters), in an environment of its own
under ``bench/.peers/``, scans each text as a file of a repository. It detects rather than
redacts, so a secret counts as found when it reports anything in that text (generous: for a
private key it names the BEGIN line, not the key); how many secrets the values it reports
would cover, cut out by the same rule as ours, is printed too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT / "redact"))

from _peer_venv import ensure_peer_venv  # noqa: E402
from tests.corpus import ordinary, secrets  # type: ignore[import-not-found]  # noqa: E402
from tests.test_corpus import leaked, measure  # type: ignore[import-not-found]  # noqa: E402

PEER = ("detect-secrets", "1.5.0")
Table = dict[str, tuple[int, int]]


def detect_secrets() -> tuple[Table, Table, tuple[int, int]] | str:
    """detect-secrets' recall and false positives on the corpus, or why it did not run."""
    venv = ensure_peer_venv(BENCH / ".peers" / "-".join(PEER), *PEER)
    if venv.python is None:
        return venv.reason
    secret_rows = list(secrets())
    ordinary_rows = list(ordinary())
    lines = [text for _, text, _ in secret_rows] + [text for _, text in ordinary_rows]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "lines.json"
        path.write_text(json.dumps({"lines": lines}), encoding="utf-8")
        command = [str(venv.python), str(BENCH / "_redaction_peer.py"), "detect-secrets"]
        done = subprocess.run(
            [*command, str(path)], capture_output=True, text=True, timeout=900, check=False
        )
    if done.returncode != 0:
        return f"detect-secrets failed: {done.stderr.strip()[-400:]}"
    reported: list[list[str]] = json.loads(done.stdout)["found"]
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    covered = 0
    for (category, text, secret), values in zip(secret_rows, reported, strict=False):
        cut = text
        for value in sorted(filter(None, values), key=len, reverse=True):
            cut = cut.replace(value, "[REDACTED:detect_secrets]")
        total[category] += 1
        found[category] += bool(values)
        covered += not leaked(text, secret, cut)
    flagged: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for (category, _), values in zip(ordinary_rows, reported[len(secret_rows) :], strict=True):
        seen[category] += 1
        flagged[category] += bool(values)
    return (
        {c: (found[c], total[c]) for c in total},
        {c: (flagged[c], seen[c]) for c in seen},
        (covered, len(secret_rows)),
    )


def _print(title: str, ours: Table, theirs: Table | None) -> None:
    print(title + (" (ours | detect-secrets)" if theirs else ""))
    rows = [*ours.items(), ("overall", _sum(ours))]
    other = {**theirs, "overall": _sum(theirs)} if theirs else {}
    for category, (hits, total) in rows:
        line = f"  {category:28} {hits:4d} / {total:<4d} {hits / total:6.1%}"
        if category in other:
            their_hits, their_total = other[category]
            line += f"   | {their_hits:4d} / {their_total:<4d} {their_hits / their_total:6.1%}"
        print(line)


def _sum(table: Table) -> tuple[int, int]:
    return sum(a for a, _ in table.values()), sum(b for _, b in table.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-peer", action="store_true", help="skip detect-secrets")
    args = parser.parse_args()
    recall: Table
    false: Table
    recall, false = measure()
    peer = "--no-peer" if args.no_peer else detect_secrets()
    if isinstance(peer, str):
        print(f"detect-secrets {PEER[1]}: skipped ({peer})")
        _print("recall by category (found / secrets)", recall, None)
        _print("false positives by category (flagged / lines)", false, None)
    else:
        _print("recall by category (found / secrets)", recall, peer[0])
        covered, total = peer[2]
        print(f"  detect-secrets' reported values cover {covered} / {total} secrets whole")
        _print("false positives by category (flagged / lines)", false, peer[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
