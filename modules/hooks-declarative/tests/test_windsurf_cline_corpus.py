"""The Windsurf and Cline installations of ``bench/corpus/windsurf-cline`` decided by the
tools' documented semantics (the bench's oracle) and by hooks-declarative: a few of them run
here on every test run (the whole corpus: ``python bench/formats_windsurf_cline.py``)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from types import ModuleType

import pytest
from amplifier_hooks_testsupport.load import load_file

BENCH = Path(__file__).resolve().parents[3] / "bench" / "formats_windsurf_cline.py"


def _bench() -> ModuleType:
    return load_file(BENCH, "formats_windsurf_cline")


@pytest.mark.parametrize("installation", ["command-guard", "push-checks", "release-guard"])
def test_the_oracle_and_the_runtime_decide_alike(
    installation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bench sets these for its run; the monkeypatch puts them back afterwards
    for name in ("HOME", "AMPLIFIER_HOME", "AMPLIFIER_TRUST_PROJECT", "PATH"):
        monkeypatch.setenv(name, os.environ.get(name, ""))
    monkeypatch.delenv("AMPLIFIER_WINDSURF_SYSTEM_HOOKS", raising=False)
    bench = _bench()
    results = asyncio.run(bench._main(installation))
    assert results, f"{installation}: no decision was taken"
    assert [(r.tool, r.step, r.differences) for r in results if r.differences] == []
