"""``Contained.set_aside`` takes away what a contained command made in place of a guarded entry,
as the project's owner, even where the command took that owner's write permission to the
project away (as root the rename needs no permission, so the owner here is an unprivileged
user, run through ``setpriv`` on a copy of this package any user can read)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import amplifier_hooks_util
import pytest
from amplifier_hooks_util.sandbox import Contained

SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"

SCRIPT = """
import json, os, sys
from amplifier_hooks_util.sandbox import Contained
project, mode = sys.argv[1], int(sys.argv[2], 8)
os.mkdir(os.path.join(project, ".git"))
open(os.path.join(project, ".envrc"), "w").close()
os.chmod(project, mode)
missing = tuple(os.path.join(project, n) for n in (".git", ".envrc", ".claude"))
print(json.dumps(Contained([], (), {}, missing).set_aside()))
"""


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory under ``/tmp`` any user can enter, holding a copy of this package."""
    base = Path(tempfile.mkdtemp(prefix="set-aside-", dir="/tmp"))
    base.chmod(0o755)
    shutil.copytree(
        Path(amplifier_hooks_util.__file__).parent, base / "site" / "amplifier_hooks_util"
    )
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("mode", ["555", "500", "000", "755"])
def test_an_entry_is_set_aside_though_the_project_was_made_read_only(
    shared: Path, mode: str
) -> None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip("needs root, setpriv and the system's Python to act as an unprivileged owner")
    project = shared / "project"
    project.mkdir()
    os.chown(project, 65534, 65534)
    done = subprocess.run(
        [
            setpriv,
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            SYSTEM_PYTHON,
            "-c",
            SCRIPT,
            str(project),
            mode,
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(shared / "site"), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    moved = json.loads(done.stdout)
    assert [Path(path).name for path, _ in moved] == [".git", ".envrc"]
    for path, aside in moved:
        assert aside.startswith(path + ".set-aside-")
        assert os.path.lexists(aside)
        assert not os.path.lexists(path)
    assert not (project / ".claude").exists()


def test_nothing_missing_nothing_moved(tmp_path: Path) -> None:
    assert Contained([], (), {}, (str(tmp_path / ".git"),)).set_aside() == []
