"""The corpus: recall and false positives by family, with the default rules (``all``).

A secret counts as found when no piece of it (four characters or more, split at the
characters a tokenizer would) is left in the output: a kept tail is a miss. An ordinary line
counts as a false positive when anything at all in it is redacted. The figures are in the
assertion messages (and ``python bench/redaction_corpus.py`` prints them by family).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from amplifier_hooks_redact import RedactionConfig, build_redactor

from .corpus import ordinary, secrets

_PIECES = re.compile(r"[A-Za-z0-9]{4,}")

RECALL_FLOOR = 0.97
FAMILY_RECALL_FLOOR = 0.9
FALSE_POSITIVE_CEILING = 0.02
CATEGORY_FALSE_POSITIVE_CEILING = 0.05


_MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")


def leaked(text: str, secret: str, redacted: str) -> bool:
    """Whether a piece of ``secret`` is in ``redacted`` more often than in the rest of ``text``.

    Pieces the surrounding text names anyway (``pypi`` of ``PYPI_TOKEN=pypi-...``, ``https``
    and ``slack`` of a webhook URL under a ``slack_webhook`` key) are not a leak, nor are the
    redaction markers themselves.
    """
    outside = text
    for part in secret.split():  # a value continued on the next line is given in parts
        outside = outside.replace(part, " ")
    kept = _MARKER.sub(" ", redacted)
    return any(kept.count(p) > outside.count(p) for p in _PIECES.findall(secret))


@cache
def measure() -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """``({family: (found, total)}, {category: (flagged, total)})``."""
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for category, text, secret in secrets():
        redacted, _ = redactor.redact_text(text)
        total[category] += 1
        found[category] += not leaked(text, secret, redacted)
    flagged: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for category, text in ordinary():
        _, counts = redactor.redact_text(text)
        lines[category] += 1
        flagged[category] += bool(counts)
    return (
        {c: (found[c], total[c]) for c in total},
        {c: (flagged[c], lines[c]) for c in lines},
    )


def _figures(table: dict[str, tuple[int, int]]) -> str:
    return ", ".join(f"{c} {a}/{b}" for c, (a, b) in table.items())


def test_recall_at_least_97_percent_overall_and_90_percent_per_family() -> None:
    recall, _ = measure()
    found = sum(f for f, _ in recall.values())
    total = sum(t for _, t in recall.values())
    assert total >= 450
    assert len(recall) >= 40
    figures = f"recall {found}/{total} = {found / total:.3f}; by family: {_figures(recall)}"
    assert found / total >= RECALL_FLOOR, figures
    low = {c: ft for c, ft in recall.items() if ft[0] / ft[1] < FAMILY_RECALL_FLOOR}
    assert not low, figures


def test_false_positives_at_most_2_percent_overall_and_5_percent_per_category() -> None:
    _, false = measure()
    flagged = sum(f for f, _ in false.values())
    total = sum(t for _, t in false.values())
    assert total >= 1000
    figures = (
        f"false positives {flagged}/{total} = {flagged / total:.3f}; by category: {_figures(false)}"
    )
    assert flagged / total <= FALSE_POSITIVE_CEILING, figures
    high = {c: ft for c, ft in false.items() if ft[0] / ft[1] > CATEGORY_FALSE_POSITIVE_CEILING}
    assert not high, figures


def test_every_secret_value_is_gone_whole() -> None:
    """Lists the misses themselves, so a regression names the text it let through."""
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    misses = []
    for category, text, secret in secrets():
        redacted, _ = redactor.redact_text(text)
        if leaked(text, secret, redacted):
            misses.append(f"{category}: {redacted!r}")
    total = sum(1 for _ in secrets())
    assert len(misses) <= total * (1 - RECALL_FLOOR), "\n".join(misses)


def test_ordinary_lines_flagged_are_listed() -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    flagged = []
    for category, text in ordinary():
        redacted, counts = redactor.redact_text(text)
        if counts:
            flagged.append(f"{category}: {redacted!r}")
    total = sum(1 for _ in ordinary())
    assert len(flagged) <= total * FALSE_POSITIVE_CEILING, "\n".join(flagged)
