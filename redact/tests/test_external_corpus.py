"""A floor for recall on the corpus nobody here wrote (bench/corpus/external.json).

The corpus holds gitleaks' rule samples and detect-secrets' plugin test lines, with the secret
each names; ``bench/redaction_external.py`` prints the figures per family, beside
detect-secrets. Here only the floor is held: no secret of either source leaks in more than
1% of its samples.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amplifier_hooks_redact import RedactionConfig, build_redactor

from .test_corpus import leaked

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus" / "external.json"
NOT_CREDENTIALS = {"ip_public"}


@pytest.mark.skipif(not CORPUS.exists(), reason=f"{CORPUS} is not in this checkout")
@pytest.mark.parametrize("source", ["gitleaks", "detect-secrets"])
def test_recall_on_the_external_corpus(source: str) -> None:
    rows = json.loads(CORPUS.read_text(encoding="utf-8"))["rows"]
    redactor = build_redactor(RedactionConfig())
    total = 0
    missed = []
    for row in rows:
        if row["source"] != source or row["kind"] != "secret":
            continue
        if row["family"] in NOT_CREDENTIALS:
            continue
        total += 1
        redacted, _ = redactor.redact_text(row["text"])
        secret = row.get("secret")
        lost = leaked(row["text"], secret, redacted) if secret else redacted == row["text"]
        if lost:
            missed.append((row["family"], row["text"][:120]))
    assert total > 50
    assert len(missed) <= total // 100, missed[:10]
