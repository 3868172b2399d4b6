"""Run Amplifier's own kernel test suite on one interpreter's ``amplifier_core``.

    python tests/upstream/run_suite.py --python PY --archive amplifier-core-repo.tar.gz \
        --out results.json

The archive (``../shared/upstream/amplifier-core-repo.tar.gz``, a ``git archive`` of the whole
kernel repository, or ``amplifier-core-tests.tar.gz``, its ``tests/`` alone) is unpacked into a
temporary directory; ``--source DIR`` runs a checkout instead. The suites are ``tests/`` and
``bindings/python/tests/``, each file run from the repository's root so that the files some
tests read (``CONTRACTS.md``, ``.github/workflows/``) are there. The files run as they are:
their imports from ``amplifier_core._engine`` reach this kernel's engine module, which offers
2.0.2's engine names where they have a meaning here. Each test file runs on its own
(``-o asyncio_mode=auto``), as the suite's README says, and every test's outcome is written to
``--out`` as ``{"file::test": outcome}`` with outcome ``passed``, ``failed``, ``error`` or
``skipped``; a file that cannot be collected counts as an ``error`` under
``file::<collection>``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = ["main", "outcomes"]

FILE_TIMEOUT_S = 300


def outcomes(report: Path, file: str) -> dict[str, str]:
    """``{"file::Class::test": outcome}`` from one file's JUnit XML report."""
    found: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        parts = classname.split(".")
        stem = Path(file).stem
        inner = parts[parts.index(stem) + 1 :] if stem in parts else []
        node = "::".join([file, *inner, name])
        if case.find("skipped") is not None:
            outcome = "skipped"
        elif case.find("error") is not None:
            outcome = "error"
        elif case.find("failure") is not None:
            outcome = "failed"
        else:
            outcome = "passed"
        if node in found and found[node] == "passed":
            found[node] = outcome  # a teardown error after a pass counts
        else:
            found.setdefault(node, outcome)
    return found


SUITES = ("tests", "bindings/python/tests")
"""The repository's test directories, relative to its root."""


def _run_file(python: str, root: Path, file: str) -> dict[str, str]:
    report = root / f".{file.replace('/', '_')}.xml"
    command = [
        python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "asyncio_mode=auto",
        f"--junitxml={report}",
        file,
    ]
    try:
        subprocess.run(command, cwd=root, capture_output=True, timeout=FILE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return {f"{file}::<timeout>": "error"}
    if not report.exists():
        return {f"{file}::<collection>": "error"}
    found = outcomes(report, file)
    return found or {f"{file}::<collection>": "error"}


def _repository_root(scratch: Path) -> Path:
    """The unpacked repository's root: the directory holding ``tests/`` (an archive has one
    top-level prefix, ``amplifier-core/``; the tests-only archive has ``tests/`` itself)."""
    for candidate in (scratch, *sorted(p for p in scratch.iterdir() if p.is_dir())):
        if (candidate / "tests").is_dir():
            return candidate
    raise SystemExit(f"no tests/ directory in the unpacked repository under {scratch}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="interpreter whose kernel is tested")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--archive", type=Path, help="a git archive of the repository")
    source.add_argument("--source", type=Path, help="a checkout of the repository")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    python = args.python if "/" not in args.python else str(Path(args.python).absolute())
    with tempfile.TemporaryDirectory(prefix="amplifier-core-tests-") as scratch:
        if args.archive is not None:
            with tarfile.open(args.archive) as archive:
                archive.extractall(scratch, filter="data")
        else:
            shutil.copytree(args.source, Path(scratch) / "repository", symlinks=True)
        root = _repository_root(Path(scratch))
        files: list[str] = []
        for suite in SUITES:
            for path in sorted((root / suite).glob("test_*.py")):
                files.append(path.relative_to(root).as_posix())
        results: dict[str, str] = {}
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for found in pool.map(lambda f: _run_file(python, root, f), files):
                results.update(found)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(dict(sorted(results.items())), indent=1) + "\n")
    counts: dict[str, int] = {}
    for outcome in results.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    print(f"{args.python}: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
