"""Trust covers what runs before a hook's own code: the interpreter a ``#!`` line names inside
the project, and what a project virtual environment's python executes at start-up (``.pth``
files, ``sitecustomize``, the modules ``.pth`` lines import). A file of the surface rewritten
through a hard link elsewhere in the project, where no watched directory sees the write, is
seen through its inode before the next run.

Each case is a real project in ``tmp_path`` with a real interpreter, trusted, then changed
between two tool calls: the changed code must not run (no marker), the hook refuses naming the
file, and ``trust --check`` (:func:`trust_status`) names it too. Where the route is the
interpreter's own behaviour, the test also runs it directly afterwards and sees the marker
written: the route is real, not a guess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amplifier_module_hooks_declarative import HooksConfigError
from amplifier_module_hooks_declarative.trust import trust_project, trust_status

from .support import answer_after, mounted, refused, write
from .support import bash_call as bash

PY_EVIL = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


def settings(project: Path, command: str) -> None:
    hook = {"type": "command", "command": command}
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )


# -- interpreters named by #! lines


@pytest.mark.parametrize("spelling", ["relative", "absolute", "dot-relative"])
async def test_an_interpreter_in_the_project_is_trusted_code(tmp_path: Path, spelling: str) -> None:
    project = tmp_path / "project"
    runner = write(project / "tools" / "runner", "#!/bin/sh\nexit 0\n", 0o755)
    interpreter = {
        "relative": "tools/runner",
        "absolute": str(runner),
        "dot-relative": "./tools/runner",
    }[spelling]
    write(project / "scripts" / "guard", f"#!{interpreter}\n", 0o755)
    settings(project, "scripts/guard")
    trust_project(project)
    assert "tools/runner" in trust_status(project).surface.states  # type: ignore[union-attr]
    marker = tmp_path / "marker"

    def change() -> None:
        runner.write_text(f"#!/bin/sh\ntouch {marker}\n")

    second = await answer_after(project, change)
    assert not marker.exists(), "the changed interpreter ran"
    refused(second, project, "tools/runner")
    subprocess.run([str(project / "scripts" / "guard")], cwd=project, check=False)  # noqa: ASYNC221
    assert marker.exists(), "the kernel runs the #! interpreter from the project: a real route"


# -- a project virtual environment


def venv(project: Path, name: str = ".venv") -> Path:
    """A virtual environment as ``python -m venv`` lays it out, on this test's interpreter."""
    root = project / name
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    write(
        root / "pyvenv.cfg",
        f"home = {base.parent}\ninclude-system-site-packages = false\n"
        f"version = {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}\n",
    )
    (root / "bin").mkdir()
    (root / "bin" / "python3").symlink_to(base)
    (root / "bin" / "python").symlink_to("python3")
    site = root / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    write(site / "distutils-precedence.pth", "import _shim; _shim.ok()\n")
    write(site / "_shim.py", "def ok():\n    return 1\n")
    return site


VENV_CHANGES = {
    "a-new-pth-file": ("zz_evil.pth", "import pathlib; pathlib.Path({marker!r}).write_text('ran')"),
    "a-module-a-pth-imports": ("_shim.py", "def ok():\n    " + PY_EVIL),
    "a-new-sitecustomize": ("sitecustomize.py", PY_EVIL),
    "a-changed-pth-file": (
        "distutils-precedence.pth",
        "import pathlib; pathlib.Path({marker!r}).write_text('ran')",
    ),
}


@pytest.mark.parametrize("how", ["venv-path", "python-on-path", "env-shebang"])
@pytest.mark.parametrize("change_name", sorted(VENV_CHANGES))
async def test_what_a_project_venv_python_runs_at_start_up_is_trusted_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, change_name: str
) -> None:
    project = tmp_path / "project"
    site = venv(project)
    write(project / "scripts" / "guard.py", "#!/usr/bin/env python3\nimport sys\n", 0o755)
    command = {
        "venv-path": ".venv/bin/python scripts/guard.py",
        "python-on-path": "python3 scripts/guard.py",
        "env-shebang": "scripts/guard.py",
    }[how]
    settings(project, command)
    # an activated environment: ``python3`` resolves to the project's
    monkeypatch.setenv("PATH", f"{project / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VIRTUAL_ENV", str(project / ".venv"))
    trust_project(project)
    marker = tmp_path / "marker"
    target, evil = VENV_CHANGES[change_name]

    def change() -> None:
        (site / target).write_text(evil.format(marker=str(marker)) + "\n")

    second = await answer_after(project, change)
    assert not marker.exists(), "the changed start-up code ran"
    name = (site / target).relative_to(project).as_posix()
    refused(second, project, name)
    python = str(project / ".venv" / "bin" / "python")
    subprocess.run([python, "-c", "pass"], check=True)  # noqa: ASYNC221
    assert marker.exists(), "the venv's python runs it at start-up: a real route"


async def test_a_new_pth_file_before_the_session_stops_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    site = venv(project)
    write(project / "scripts" / "guard.py", "import sys\n")
    settings(project, ".venv/bin/python scripts/guard.py")
    trust_project(project)
    marker = tmp_path / "marker"
    write(site / "evil.pth", f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n")
    with pytest.raises(HooksConfigError, match=r"site-packages/evil\.pth"):
        await mounted(project)
    assert not marker.exists()


def test_a_project_without_python_hooks_does_not_cover_its_venv(tmp_path: Path) -> None:
    """The venv is surface only when something of the surface runs Python."""
    project = tmp_path / "project"
    venv(project)
    write(project / "scripts" / "guard.sh", "exit 0\n")
    settings(project, "sh scripts/guard.sh")
    trust_project(project)
    surface = trust_status(project).surface
    assert surface is not None
    assert not any(name.startswith(".venv/") for name in surface.states)


# -- a write through a hard link elsewhere


@pytest.mark.parametrize("use_inotify", [True, False])
async def test_a_hook_rewritten_through_a_hard_link_elsewhere_refuses(
    tmp_path: Path, use_inotify: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    guard = write(project / ".claude" / "hooks" / "guard.sh", "#!/bin/sh\nexit 0\n", 0o755)
    settings(project, ".claude/hooks/guard.sh")
    other = project / "notes" / "readme.txt"
    other.parent.mkdir()
    os.link(guard, other)  # before trust: the link already exists
    trust_project(project)
    marker = tmp_path / "marker"
    if not use_inotify:
        from amplifier_module_hooks_declarative.trust import watch

        monkeypatch.setattr(watch, "_Inotify", _NoInotify)

    def change() -> None:
        with other.open("r+") as stream:  # in place: the same inode, another directory
            stream.write(f"#!/bin/sh\ntouch {marker}\n")
        assert os.stat(other).st_ino == os.stat(guard).st_ino

    second = await answer_after(project, change)
    assert not marker.exists(), "the hook rewritten through a hard link ran"
    refused(second, project, ".claude/hooks/guard.sh")


async def test_a_hard_link_made_after_trust_and_written_through_refuses(tmp_path: Path) -> None:
    project = tmp_path / "project"
    guard = write(project / "scripts" / "guard.sh", "#!/bin/sh\nexit 0\n", 0o755)
    settings(project, "scripts/guard.sh")
    trust_project(project)
    marker = tmp_path / "marker"
    other = project / "build" / "copy"

    def change() -> None:
        other.parent.mkdir()
        os.link(guard, other)
        with other.open("r+") as stream:
            stream.write(f"#!/bin/sh\ntouch {marker}\n")

    second = await answer_after(project, change)
    assert not marker.exists()
    refused(second, project, "scripts/guard.sh")


class _NoInotify:
    def __init__(self) -> None:
        raise OSError("inotify switched off for this test")


async def test_a_file_renamed_over_with_the_same_bytes_is_watched_anew(tmp_path: Path) -> None:
    """An editor's atomic save puts a new inode at the path (same content: still trusted); a
    later write through a hard link to that new inode is seen too."""
    project = tmp_path / "project"
    guard = write(project / "scripts" / "guard.sh", "#!/bin/sh\nexit 0\n", 0o755)
    settings(project, "scripts/guard.sh")
    trust_project(project)
    marker = tmp_path / "marker"
    coordinator, cleanup = await mounted(project)
    event = bash("ls")
    try:
        assert (await coordinator.hooks.emit("tool:pre", event)).action == "continue"
        fresh = write(project / "scripts" / ".guard.sh.tmp", guard.read_text(), 0o755)
        os.replace(fresh, guard)
        assert (await coordinator.hooks.emit("tool:pre", event)).action == "continue"
        other = project / "elsewhere" / "copy"
        other.parent.mkdir()
        os.link(guard, other)
        with other.open("r+") as stream:
            stream.write(f"#!/bin/sh\ntouch {marker}\n")
        third = await coordinator.hooks.emit("tool:pre", event)
    finally:
        await cleanup()
    assert not marker.exists()
    refused(third, project, "scripts/guard.sh")
