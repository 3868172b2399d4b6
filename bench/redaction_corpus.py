"""hooks-redaction on its corpus: recall and false positives by category, default rules.

    python bench/redaction_corpus.py

The corpus (``modules/hooks-redaction/tests/corpus.py``, a fixed seed) holds fake secrets in
the shapes they leak in (vendor tokens, command-line passwords, ``.netrc``, XML, config keys,
AWS key pairs, base64 and URL-encoded credentials, multi-line and escaped values, prose) and
ordinary text of a coding session (identifiers, hashes, ids, versions, paths, logs, counts,
plain base64, prose). A secret is found when no piece of it of four characters or more is
left; an ordinary line is a false positive when anything in it is redacted. The test suite
holds these figures to a floor (``test_corpus.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "modules" / "hooks-redaction"))

from tests.test_corpus import measure  # type: ignore[import-not-found]  # noqa: E402


def main() -> int:
    recall: dict[str, tuple[int, int]]
    false: dict[str, tuple[int, int]]
    recall, false = measure()
    print("recall by category (found / secrets)")
    for category, (found, total) in recall.items():
        print(f"  {category:28} {found:4d} / {total:<4d} {found / total:6.1%}")
    found = sum(f for f, _ in recall.values())
    total = sum(t for _, t in recall.values())
    print(f"  {'overall':28} {found:4d} / {total:<4d} {found / total:6.1%}")
    print("false positives by category (flagged / lines)")
    for category, (flagged, lines) in false.items():
        print(f"  {category:28} {flagged:4d} / {lines:<4d} {flagged / lines:6.1%}")
    flagged = sum(f for f, _ in false.values())
    lines = sum(t for _, t in false.values())
    print(f"  {'overall':28} {flagged:4d} / {lines:<4d} {flagged / lines:6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
