"""The check before every run: nothing changed costs nothing, a change to code revokes trust,
and what a hook's own run writes that holds no code is its data, by inotify and by stat."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amplifier_module_hooks_declarative.trust import trust_project, trust_status, trusted_projects
from amplifier_module_hooks_declarative.trust.watch import TrustGuard

WATCHES = [
    pytest.param(
        True,
        id="inotify",
        marks=pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's"),
    ),
    pytest.param(False, id="stat"),
]


def project(root: Path) -> Path:
    hooks = root / ".cursor" / "hooks"
    hooks.mkdir(parents=True)
    entry = {"command": ".cursor/hooks/guard.sh"}
    (root / ".cursor" / "hooks.json").write_text(
        json.dumps({"version": 1, "hooks": {"beforeShellExecution": [entry]}})
    )
    guard = hooks / "guard.sh"
    guard.write_text('#!/bin/sh\nhere="$(dirname "$0")"\necho run >> "$here/audit.log"\n')
    guard.chmod(0o755)
    (hooks / "helper.py").write_text("OK = 1\n")
    (hooks / "policy.json").write_text('{"deny": ["rm"]}\n')
    trust_project(root)
    return root.resolve()


def guard_of(root: Path, inotify: bool) -> TrustGuard:
    status = trust_status(root)
    assert status.trusted, status.why_not()
    guard = TrustGuard(status, use_inotify=inotify)
    assert guard.watching == ("inotify" if inotify else "stat")
    return guard


def run_hook(root: Path) -> None:
    subprocess.run([root / ".cursor" / "hooks" / "guard.sh"], check=True)


@pytest.mark.parametrize("inotify", WATCHES)
def test_nothing_changed_is_no_reason(tmp_path: Path, inotify: bool) -> None:
    root = project(tmp_path)
    guard = guard_of(root, inotify)
    assert guard.check() is None
    assert guard.check() is None
    guard.close()


@pytest.mark.parametrize("inotify", WATCHES)
@pytest.mark.parametrize(
    "change",
    ["edit code", "edit configuration", "add code", "remove code", "new directory with code"],
)
def test_a_change_between_runs_revokes_trust(tmp_path: Path, inotify: bool, change: str) -> None:
    root = project(tmp_path)
    hooks = root / ".cursor" / "hooks"
    guard = guard_of(root, inotify)
    if change == "edit code":
        (hooks / "helper.py").write_text("import os\n")
        named = ".cursor/hooks/helper.py"
    elif change == "edit configuration":
        (hooks / "policy.json").write_text('{"deny": []}\n')
        named = ".cursor/hooks/policy.json"
    elif change == "add code":
        (hooks / "later.sh").write_text("true\n")
        named = ".cursor/hooks/later.sh"
    elif change == "remove code":
        (hooks / "helper.py").unlink()
        named = ".cursor/hooks/helper.py"
    else:
        (hooks / "lib").mkdir()
        (hooks / "lib" / "x.py").write_text("OK = 1\n")
        named = ".cursor/hooks/lib/x.py"
    why = guard.check()
    assert why is not None
    assert named in why
    assert f"amplifier-hooks trust {root}" in why
    assert guard.check() == why  # it stays revoked
    guard.close()


@pytest.mark.parametrize("inotify", WATCHES)
def test_what_the_hooks_own_run_writes_is_its_data(tmp_path: Path, inotify: bool) -> None:
    root = project(tmp_path)
    guard = guard_of(root, inotify)
    run_hook(root)
    guard.after_run()
    assert guard.check() is None
    record = trusted_projects()[str(root)]
    assert record["data"] == [".cursor/hooks/audit.log"]
    assert ".cursor/hooks/audit.log" not in record["files"]
    run_hook(root)  # and again, in the next session
    guard.close()
    guard = guard_of(root, inotify)
    run_hook(root)
    guard.after_run()
    assert guard.check() is None
    (root / ".cursor" / "hooks" / "audit.log").write_text("#!/bin/sh\ntouch marker\n")
    why = guard.check()  # data that now holds code is a change
    assert why is not None
    assert ".cursor/hooks/audit.log" in why
    guard.close()


@pytest.mark.parametrize("inotify", WATCHES)
def test_code_written_during_a_run_is_not_taken_as_the_hooks_data(
    tmp_path: Path, inotify: bool
) -> None:
    root = project(tmp_path)
    guard = guard_of(root, inotify)
    (root / ".cursor" / "hooks" / "helper.py").write_text("import os\n")
    guard.after_run()
    assert guard.revoked is not None
    assert ".cursor/hooks/helper.py" in guard.revoked
    guard.close()


def test_a_bytecode_cache_written_by_a_run_is_recorded_with_its_digest(tmp_path: Path) -> None:
    root = project(tmp_path)
    guard = guard_of(root, True)
    cache = root / ".cursor" / "hooks" / "__pycache__"
    subprocess.run(
        [sys.executable, "-c", "import helper"],
        cwd=root / ".cursor" / "hooks",
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
    )
    [compiled] = cache.iterdir()
    guard.after_run()
    assert guard.check() is None
    name = compiled.relative_to(root).as_posix()
    assert name in trusted_projects()[str(root)]["files"]
    compiled.write_bytes(compiled.read_bytes() + b"\0")  # a forged cache, between runs
    why = guard.check()
    assert why is not None
    assert name in why
    guard.close()


@pytest.mark.parametrize("inotify", WATCHES)
def test_a_change_between_the_check_and_the_watch_is_seen(tmp_path: Path, inotify: bool) -> None:
    root = project(tmp_path)
    status = trust_status(root)
    assert status.trusted
    (root / ".cursor" / "hooks" / "helper.py").write_text("import os\n")  # right after the scan
    (root / ".cursor" / "hooks" / "new.sh").write_text("true\n")
    guard = TrustGuard(status, use_inotify=inotify)
    why = guard.check()
    assert why is not None
    assert ".cursor/hooks/helper.py" in why
    assert ".cursor/hooks/new.sh" in why
    guard.close()


def test_a_package_that_would_shadow_an_imported_module_is_watched(tmp_path: Path) -> None:
    """``python3 -c 'import guard'`` imports guard.py, until a guard/ package appears."""
    root = tmp_path.resolve()
    (root / ".claude").mkdir()
    command = {"type": "command", "command": "python3 -c 'import guard'"}
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [command]}]}})
    )
    (root / "guard.py").write_text("OK = 1\n")
    trust_project(root)
    guard = guard_of(root, True)
    assert guard.check() is None
    (root / "guard").mkdir()
    (root / "guard" / "__init__.py").write_text("import os\n")
    why = guard.check()
    assert why is not None
    assert "guard/__init__.py" in why
    guard.close()
    assert "guard/__init__.py" in trust_status(root).changed
