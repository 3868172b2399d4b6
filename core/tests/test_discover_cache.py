"""Entry points are read once per process and again whenever what is installed changes.

Real distributions (``*.dist-info`` with METADATA and entry_points.txt) are written into a
``sys.path`` directory, installed and removed in generated orders; after every step the
kept reading must equal a reading made afresh.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core import loader
from amplifier_core.loader import discover_modules


def _install(site: Path, group: str, dist: str, module_id: str, target: str) -> None:
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{module_id} = {target}:mount\n")


def _settle(site: Path) -> None:
    """Date the directory back, as if installed a while ago (the kept reading is trusted
    only for directories that did not change in the last seconds)."""
    past = time.time_ns() - 10 * loader._SETTLED_NS
    os.utime(site, ns=(past, past))


def _dynload() -> list[str]:
    """The directories of the standard library's extension modules on ``sys.path``."""
    return [entry for entry in sys.path if entry.endswith("lib-dynload")]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "site"
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))
    return directory


def test_a_second_reading_is_the_kept_one(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    group = f"amplifier.modules.test-{uuid.uuid4().hex[:8]}"
    _install(site, group, "dist_a", "hooks-a", "pkg_a")
    _settle(site)
    # Only directories nothing else writes to: a test running beside this one may write
    # bytecode or files into a directory of the real sys.path at any moment, and a directory
    # changed in the last seconds is read every time (the next test).
    stdlib = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib")}
    monkeypatch.setattr(sys, "path", [str(site), *sorted(stdlib), *_dynload()])
    first = discover_modules(group)
    kept = loader._DISCOVERED[group][1]
    assert discover_modules(group) == first == kept
    assert loader._DISCOVERED[group][1] is kept  # not read again
    assert set(first) == {"hooks-a"}


def test_a_directory_changed_just_now_is_read_every_time(site: Path) -> None:
    group = f"amplifier.modules.test-{uuid.uuid4().hex[:8]}"
    _install(site, group, "dist_a", "hooks-a", "pkg_a")
    assert set(discover_modules(group)) == {"hooks-a"}
    _install(site, group, "dist_b", "hooks-b", "pkg_b")  # within the same clock tick, maybe
    assert set(discover_modules(group)) == {"hooks-a", "hooks-b"}


_STEPS = st.lists(
    st.tuples(st.sampled_from(["install", "remove", "path"]), st.integers(0, 3)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=30, deadline=None)
@given(_STEPS)
def test_every_install_remove_and_path_change_is_seen(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    group = f"amplifier.modules.test-{uuid.uuid4().hex[:8]}"
    root = tmp_path_factory.mktemp("sites")
    sites = [root / "one", root / "two"]
    for directory in sites:
        directory.mkdir()
    saved = list(sys.path)
    sys.path.insert(0, str(sites[0]))
    try:
        for number, (action, which) in enumerate(steps):
            site = sites[which % 2]
            if action == "install":
                _install(site, group, f"d{number}_{which}", f"hooks-{which}", f"p{number}")
            elif action == "remove":
                for info in sorted(site.glob("*.dist-info"))[:1]:
                    shutil.rmtree(info)
            elif str(sites[1]) in sys.path:
                sys.path.remove(str(sites[1]))
            else:
                sys.path.insert(1, str(sites[1]))
            if number % 2:  # half the steps are read as long settled
                for directory in sites:
                    _settle(directory)
            assert discover_modules(group) == loader._read_entry_points(group)
    finally:
        sys.path[:] = saved
