"""The corpus: recall and false positives by category, with the default rules (``all``).

A secret counts as found when no piece of it (four characters or more, split at the
characters a tokenizer would) is left in the output: a kept tail is a miss.
"""

from __future__ import annotations

import re
from collections import Counter

from amplifier_module_hooks_redaction import RedactionConfig, build_redactor

from .corpus import ordinary, secrets

_PIECES = re.compile(r"[A-Za-z0-9]{4,}")


def leaked(secret: str, redacted: str) -> bool:
    return any(piece in redacted for piece in _PIECES.findall(secret))


def measure() -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """``({category: (found, total)}, {category: (flagged, total)})``."""
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for category, text, secret in secrets():
        redacted, _ = redactor.redact_text(text)
        total[category] += 1
        found[category] += not leaked(secret, redacted)
    flagged: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for category, text in ordinary():
        redacted, counts = redactor.redact_text(text)
        lines[category] += 1
        flagged[category] += bool(counts)
    return (
        {c: (found[c], total[c]) for c in total},
        {c: (flagged[c], lines[c]) for c in lines},
    )


def test_recall_by_category_and_overall() -> None:
    recall, _ = measure()
    found = sum(f for f, _ in recall.values())
    total = sum(t for _, t in recall.values())
    assert total >= 300
    assert found / total >= 0.97, recall
    assert all(f / t >= 0.9 for f, t in recall.values()), recall


def test_ordinary_text_is_left_alone() -> None:
    _, false = measure()
    flagged = sum(f for f, _ in false.values())
    total = sum(t for _, t in false.values())
    assert total >= 500
    assert flagged / total <= 0.02, false
