"""hooks-redaction on a corpus nobody here wrote, beside detect-secrets 1.5.0.

    python bench/redaction_external.py [--build] [--no-peer]

``--build`` writes ``bench/corpus/external.json`` from two public sources, fetched as git
snapshots: gitleaks (MIT, ``cmd/generate/config/rules/*.go``: the string literals of each
rule's true-positive ``tps`` and false-positive ``fps`` samples) and detect-secrets
(Apache-2.0, ``tests/plugins/*_test.py``: the ``(line, should_flag)`` pairs of each plugin's
tests). Give the snapshots' git directories in ``GITLEAKS_GIT`` and ``DETECT_SECRETS_GIT``.
Samples built by code at test time (gitleaks' generated secrets) are not taken: only text
written there. The family is the gitleaks rule file or the detect-secrets plugin.

A secret line counts as found when redaction changes it; an ordinary line is a false positive
when redaction changes it. detect-secrets (default plugins and filters, each line scanned as a
file) counts alike: found when it reports anything in the line.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
CORPUS = BENCH / "corpus" / "external.json"
PEER = ("detect-secrets", "1.5.0")

_GO_STRING = re.compile(r'`([^`]*)`|"((?:[^"\\\n]|\\.)*)"')


def _git_files(git: str, folder: str, suffix: str) -> list[tuple[str, str]]:
    names = subprocess.run(
        ["git", "--git-dir", git, "ls-tree", "-r", "--name-only", "HEAD", folder],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    out = []
    for name in names:
        if name.endswith(suffix):
            text = subprocess.run(
                ["git", "--git-dir", git, "show", f"HEAD:{name}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            out.append((name, text))
    return out


def _go_literals(block: str) -> list[str]:
    found = []
    for raw, quoted in _GO_STRING.findall(block):
        if raw:
            found.append(raw)
        else:
            try:
                found.append(json.loads(f'"{quoted}"'))
            except ValueError:
                continue
    return found


def _gitleaks(git: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name, text in _git_files(git, "cmd/generate/config/rules", ".go"):
        family = Path(name).stem
        if family in ("stopwords", "config"):
            continue
        for func in re.split(r"\nfunc ", text)[1:]:
            for kind, start in (("secret", r"\btps\s*(?::=|=)"), ("ordinary", r"\bfps\s*(?::=|=)")):
                for found in re.finditer(start, func):
                    end = (
                        func.find("\n\t}", found.end())
                        if "{" in func[found.end() : found.end() + 20]
                        else -1
                    )
                    stop = func.find("\n", found.end()) if end < 0 else end
                    body = func[found.end() : stop]
                    if "GenerateSampleSecret" in body or "NewSecret" in body:
                        body = re.sub(r"utils\.\w+\([^()]*(?:\([^()]*\))?[^()]*\)", "", body)
                    for literal in _go_literals(body):
                        if (
                            (len(literal.strip()) >= 8
                            and "\n" not in literal.strip("\n"))
                            or len(literal) > 20
                        ):
                            rows.append(
                                {
                                    "source": "gitleaks",
                                    "family": family,
                                    "kind": kind,
                                    "text": literal,
                                }
                            )
    return rows


def _detect_secrets(git: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name, text in _git_files(git, "tests/plugins", "_test.py"):
        family = Path(name).stem.removesuffix("_test")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Tuple) and len(node.elts) == 2:
                line, flag = node.elts
                if (
                    isinstance(line, ast.Constant)
                    and isinstance(line.value, str)
                    and isinstance(flag, ast.Constant)
                    and isinstance(flag.value, bool)
                ):
                    kind = "secret" if flag.value else "ordinary"
                    rows.append(
                        {
                            "source": "detect-secrets",
                            "family": family,
                            "kind": kind,
                            "text": line.value,
                        }
                    )
    return rows


def build() -> None:
    rows = _gitleaks(os.environ["GITLEAKS_GIT"]) + _detect_secrets(os.environ["DETECT_SECRETS_GIT"])
    unique = {(r["source"], r["family"], r["kind"], r["text"]): r for r in rows}
    CORPUS.parent.mkdir(parents=True, exist_ok=True)
    CORPUS.write_text(
        json.dumps({"rows": list(unique.values())}, indent=0) + "\n", encoding="utf-8"
    )
    print(f"wrote {len(unique)} rows to {CORPUS.relative_to(ROOT)}")


def _ours(texts: list[str]) -> list[bool]:
    from amplifier_module_hooks_redaction import RedactionConfig, build_redactor

    redactor = build_redactor(RedactionConfig())
    return [redactor.redact_text(text)[0] != text for text in texts]


def _theirs(texts: list[str]) -> list[bool] | str:
    sys.path.insert(0, str(BENCH))
    from _peer_venv import ensure_peer_venv

    venv = ensure_peer_venv(BENCH / ".peers" / "-".join(PEER), *PEER)
    if venv.python is None:
        return venv.reason
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "lines.json"
        path.write_text(json.dumps({"lines": texts}), encoding="utf-8")
        done = subprocess.run(
            [str(venv.python), str(BENCH / "_redaction_peer.py"), "detect-secrets", str(path)],
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
    if done.returncode != 0:
        return f"detect-secrets failed: {done.stderr.strip()[-300:]}"
    return [bool(values) for values in json.loads(done.stdout)["found"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="rebuild the corpus file")
    parser.add_argument("--no-peer", action="store_true", help="skip detect-secrets")
    args = parser.parse_args()
    if args.build:
        build()
    rows = json.loads(CORPUS.read_text(encoding="utf-8"))["rows"]
    texts = [r["text"] for r in rows]
    ours = _ours(texts)
    theirs = "--no-peer" if args.no_peer else _theirs(texts)
    for source in ("gitleaks", "detect-secrets"):
        for kind, title in (("secret", "recall"), ("ordinary", "false positives")):
            table: dict[str, Counter[str]] = {}
            for row, hit, their in zip(
                rows, ours, theirs if isinstance(theirs, list) else [False] * len(rows), strict=True
            ):
                if row["source"] != source or row["kind"] != kind:
                    continue
                counts = table.setdefault(str(row["family"]), Counter())
                counts["n"] += 1
                counts["ours"] += hit
                counts["theirs"] += their
            total = Counter[str]()
            print(f"{source}: {title} per family (ours | detect-secrets {PEER[1]})")
            for family in sorted(table):
                c = table[family]
                total.update(c)
                print(
                    f"  {family:24} {c['ours']:4d} / {c['n']:<4d} | {c['theirs']:4d} / {c['n']:<4d}"
                )
            if total["n"]:
                print(
                    f"  {'overall':24} {total['ours']:4d} / {total['n']:<4d} {total['ours'] / total['n']:6.1%}"  # noqa: E501
                    f" | {total['theirs']:4d} / {total['n']:<4d} {total['theirs'] / total['n']:6.1%}"  # noqa: E501
                )
    if isinstance(theirs, str):
        print(f"detect-secrets: skipped ({theirs})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
