"""The redaction engine on a corpus nobody here wrote, beside detect-secrets 1.5.0, per family.

    python bench/redaction_external.py [--build] [--no-peer] [--misses N]

The corpus, ``bench/corpus/external.json``, is kept apart from ours (which
``redaction_corpus.py`` measures). ``--build`` writes it again from snapshots of gitleaks
(MIT) and detect-secrets (Apache-2.0) whose git directories are given in ``GITLEAKS_GIT`` and
``DETECT_SECRETS_GIT`` (see ``_external_corpus.py`` for what is taken and how the secret of
each sample is known). detect-secrets' environment under ``bench/.peers/`` names the secrets of
its own test lines when building.

A secret counts as found when no piece of it is left (the rule of our corpus, ``leaked`` in
``tests/test_corpus.py``); a detect-secrets test line whose plugin names no secret in it
counts as found when anything in it is redacted. An ordinary line (gitleaks' ``fps``,
detect-secrets' lines that must not be flagged) is a false positive when anything in it is
redacted. detect-secrets itself (default plugins and filters, each text scanned as a file)
is held to the same rules: the values it reports are cut out of the text.

Families left out of the figures, with the reason printed: ``ip_public`` (public IP
addresses are not credentials, and no rule here is meant to remove them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
CORPUS = BENCH / "corpus" / "external.json"
PEER = ("detect-secrets", "1.5.0")
NOT_CREDENTIALS = {"ip_public": "public IP addresses are not credentials"}
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "redact"))

from _peer_venv import ensure_peer_venv  # noqa: E402
from tests.test_corpus import leaked  # type: ignore[import-not-found]  # noqa: E402


def _peer(mode: str, payload: dict[str, Any]) -> list[list[str]] | str:
    venv = ensure_peer_venv(BENCH / ".peers" / "-".join(PEER), *PEER)
    if venv.python is None:
        return venv.reason
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "input.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        done = subprocess.run(
            [str(venv.python), str(BENCH / "_redaction_peer.py"), mode, str(path)],
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
    if done.returncode != 0:
        return f"detect-secrets failed: {done.stderr.strip()[-300:]}"
    found: list[list[str]] = json.loads(done.stdout)["found"]
    return found


_KEYED = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*[=:](?=.{8})")


def build() -> None:
    from _external_corpus import build_detect_secrets, build_gitleaks

    rows = build_gitleaks(os.environ["GITLEAKS_GIT"])
    theirs = build_detect_secrets(os.environ["DETECT_SECRETS_GIT"])
    flagged = [r for r in theirs if r["kind"] == "secret"]
    truth = _peer("detect-secrets-truth", {"rows": flagged})
    if isinstance(truth, str):
        raise SystemExit(f"cannot name the secrets of detect-secrets' lines: {truth}")
    for row, values in zip(flagged, truth, strict=True):
        if values:
            # A value reported with its key name (AccountKey=...): the part after the name.
            row["secret"] = _KEYED.sub("", max(values, key=len))
    theirs = [r for r in theirs if "{secret}" not in r["text"]]  # format strings, not samples
    unique: dict[tuple[str, ...], dict[str, Any]] = {}
    for row in rows + theirs:
        unique.setdefault((row["source"], row["family"], row["kind"], row["text"]), row)
    CORPUS.parent.mkdir(parents=True, exist_ok=True)
    CORPUS.write_text(
        json.dumps({"rows": list(unique.values())}, indent=0, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {len(unique)} rows to {CORPUS.relative_to(ROOT)}")


def _found(row: dict[str, Any], redacted: str) -> bool:
    if row["kind"] == "ordinary" or not row.get("secret"):
        return bool(redacted != row["text"])
    return not leaked(row["text"], row["secret"], redacted)


def _cut(text: str, values: list[str]) -> str:
    for value in sorted(filter(None, values), key=len, reverse=True):
        text = text.replace(value, "[REDACTED:detect_secrets]")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="rebuild the corpus file first")
    parser.add_argument("--no-peer", action="store_true", help="skip detect-secrets")
    parser.add_argument("--misses", type=int, default=0, help="print up to N misses and FPs")
    args = parser.parse_args()
    if args.build:
        build()
    from amplifier_hooks_redact import RedactionConfig, build_redactor

    rows = [
        r
        for r in json.loads(CORPUS.read_text(encoding="utf-8"))["rows"]
        if r["family"] not in NOT_CREDENTIALS
    ]
    redactor = build_redactor(RedactionConfig())
    ours = [_found(r, redactor.redact_text(r["text"])[0]) for r in rows]
    reported = (
        "--no-peer"
        if args.no_peer
        else _peer("detect-secrets", {"lines": [r["text"] for r in rows]})
    )
    theirs = (
        [_found(r, _cut(r["text"], values)) for r, values in zip(rows, reported, strict=True)]
        if isinstance(reported, list)
        else None
    )
    for family, reason in NOT_CREDENTIALS.items():
        print(f"left out: {family} ({reason})")
    for source in ("gitleaks", "detect-secrets"):
        for kind, title in (("secret", "recall"), ("ordinary", "false positives")):
            table: dict[str, Counter[str]] = {}
            for index, row in enumerate(rows):
                if row["source"] != source or row["kind"] != kind:
                    continue
                counts = table.setdefault(row["family"], Counter())
                counts["n"] += 1
                counts["ours"] += ours[index]
                counts["theirs"] += theirs[index] if theirs is not None else 0
            print(f"{source}, {title} per family (ours | detect-secrets {PEER[1]})")
            total: Counter[str] = Counter()
            for family in sorted(table):
                c = table[family]
                total.update(c)
                line = f"  {family:36} {c['ours']:4d} / {c['n']:<4d}"
                if theirs is not None:
                    line += f" | {c['theirs']:4d} / {c['n']:<4d}"
                print(line)
            line = f"  {'overall':36} {total['ours']:4d} / {total['n']:<4d} {total['ours'] / total['n']:7.2%}"  # noqa: E501
            if theirs is not None:
                line += f" | {total['theirs']:4d} / {total['n']:<4d} {total['theirs'] / total['n']:7.2%}"  # noqa: E501
            print(line)
    if theirs is None:
        print(f"detect-secrets {PEER[1]}: skipped ({reported})")
    if args.misses:
        shown = 0
        for row, hit in zip(rows, ours, strict=True):
            wrong = (row["kind"] == "secret") != hit
            if wrong and shown < args.misses:
                shown += 1
                print(
                    row["kind"],
                    row["source"],
                    row["family"],
                    repr(row["text"][:160]),
                    "|",
                    repr(row.get("secret", ""))[:60],
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
