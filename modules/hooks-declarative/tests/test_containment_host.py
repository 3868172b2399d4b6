"""A contained run leaves nothing on the host but what its command wrote where it may write:
no mount point ``bwrap`` made, nothing made to hold a missing entry's place (not even while
the command runs), nothing in any directory above the project; a guarded entry the command
made is set aside and the hook blocks. Generated hooks (writes allowed and refused,
``git init``, climbs out, planted configuration) run as a project's hooks in a mounted session
under the real bubblewrap, in a project with a repository, with a ``.git`` file, or with none,
with and without a declared write path; every entry of the example's own tree, and the
guarded names in every directory above it up to ``/``, are compared before and after.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from amplifier_hooks_util.sandbox import GUARDED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount

from .support import run_contained

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap missing (CI sets AMPLIFIER_HOOKS_REQUIRE_BWRAP: there it must run)",
)

# What a hook may leave: its own new files and directories in the project and in the declared
# write path, and a guarded entry it made, set aside under a name nothing reads.
WRITTEN = re.compile(
    r"^project/(out/)?(made-\d+|dir-\d+(/sub)?)$"
    r"|^project/(\.git|\.envrc|\.claude|\.vscode)\.set-aside-[0-9a-f]{8}(/.*)?$"
)
ACTIONS = [
    "touch made-{n}",
    "mkdir -p dir-{n}/sub",
    "touch out/made-{n}",
    "mkdir -p out/dir-{n}/sub",
    "git init -q",
    "mkdir .git",
    "mkdir -p .git/hooks && touch .git/hooks/pre-commit",
    "printf '[core]\\n\\tfsmonitor = touch FSMON\\n' >> .git/config",
    "mkdir ../escaped",
    "touch ../../escaped",
    "mkdir -p ../.git",
    "cd .. && git init -q",
    "touch gitdata/planted",
    "echo 'export X=1' > .envrc",
    "mkdir -p .claude && echo '{{}}' > .claude/settings.json",
    "mkdir .vscode",
]


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root`` (relative path: a file's bytes, ``None`` for anything
    else)."""
    found: dict[str, bytes | None] = {}
    for path in root.rglob("*"):
        relative = str(path.relative_to(root))
        found[relative] = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    return found


def guarded_above(start: Path) -> set[str]:
    """The guarded names present in each directory from ``start`` up to ``/``."""
    present: set[str] = set()
    for directory in (start, *start.parents):
        for name in GUARDED:
            if os.path.lexists(directory / name):
                present.add(str(directory / name))
    return present


def setup_project(root: Path, layout: str) -> Path:
    project = root / "project"
    project.mkdir()
    (project / "out").mkdir()
    if layout == "repository":
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    elif layout == "git-file":
        subprocess.run(
            ["git", "init", "-q", "--separate-git-dir", str(project / "gitdata"), str(project)],
            check=True,
        )
    return project


async def session(project: Path, config: dict[str, Any]) -> None:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, "sandbox": "project", **config})
    try:
        await coordinator.hooks.emit(
            "tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}}
        )
    finally:
        await cleanup()


@needs_bwrap
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    layout=st.sampled_from(["none", "repository", "git-file"]),
    steps=st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=4),
    hooks=st.integers(min_value=1, max_value=2),
    declared=st.booleans(),
)
def test_a_contained_run_leaves_nothing_but_what_its_command_may_write(
    layout: str,
    steps: list[str],
    hooks: int,
    declared: bool,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # the project three levels below this example's own directory: what a hook climbs to
    # with `..` is still inside what is compared
    base = tmp_path_factory.mktemp("host")
    root = base / "a" / "b"
    root.mkdir(parents=True)
    project = setup_project(root, layout)
    (project / ".amplifier").mkdir()
    commands = [
        "; ".join(f"{{ {s.format(n=i * 10 + j)}; }} 2>/dev/null" for j, s in enumerate(steps))
        + "; true"
        for i in range(hooks)
    ]
    (project / ".amplifier" / "hooks.yaml").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"type": "command", "command": c} for c in commands]}})
    )
    home = base / "home"
    home.mkdir()
    before = tree(base)
    above = guarded_above(base)
    config: dict[str, Any] = {"sandbox_write_paths": ["out"]} if declared else {}
    own = {"AMPLIFIER_TRUST_PROJECT": "1", "AMPLIFIER_HOME": str(home)}
    with mock.patch.dict(os.environ, own):
        asyncio.run(session(project, config))
    after = tree(base)
    new = {
        path
        for path in after.keys() - before.keys()
        if not path.startswith("home/")  # the session's own state directory
    }
    new = {str(Path(p).relative_to("a/b")) if p.startswith("a/b/") else p for p in new}
    assert all(WRITTEN.match(path) for path in new), sorted(new)
    for path, content in before.items():  # nothing there before was changed or removed
        if path.startswith("home/"):
            continue
        assert path in after, path
        assert after[path] == content, path
    assert guarded_above(base) == above
    for name in GUARDED:  # none the project lacked is there now
        if f"a/b/project/{name}" not in before:
            assert not os.path.lexists(project / name), name


@pytest.fixture(scope="module")
def hidden_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment under ``/tmp`` (which the sandbox hides), as a clone's own is."""
    path = tmp_path_factory.mktemp("venv") / "venv"
    if not str(path).startswith("/tmp/"):
        pytest.skip(f"the temporary directory {path.parent} is not under /tmp")
    subprocess.run(
        [
            getattr(sys, "_base_executable", sys.executable),
            "-m",
            "venv",
            "--without-pip",
            str(path),
        ],
        check=True,
    )
    return path


@needs_bwrap
@pytest.mark.parametrize("spelling", ["absolute", "on-path"])
def test_an_interpreter_under_tmp_runs_contained_as_given(
    hidden_venv: Path, tmp_path: Path, spelling: str
) -> None:
    """The sandbox's ``/tmp`` is empty, and the command's own program (an interpreter in a
    virtual environment under ``/tmp``, the installation its links lead to) is shown there,
    read-only, without the caller naming it."""
    python = hidden_venv / "bin" / "python"
    project = tmp_path / "project"
    project.mkdir()
    program = str(python) if spelling == "absolute" else "python"
    env = {"PATH": f"{python.parent}:/usr/bin:/bin"}
    code = "import sys, os; print(sys.prefix); open('ran', 'w').close()"
    done = run_contained(project, [program, "-c", code], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(hidden_venv)
    assert (project / "ran").exists()
    # and nothing else of /tmp: the project's parent is not shown
    listing = run_contained(project, ["/bin/ls", "-a", str(tmp_path)], check=True)
    assert set(listing.stdout.split()) == {".", "..", "project"}


def _handshake(project: Path) -> list[str]:
    """Wait (at most a minute) for the hook to say it runs, list the project as the host sees
    it then, and let the hook go on."""
    ready = os.open(project / "ready", os.O_RDONLY | os.O_NONBLOCK)
    try:
        readable, _, _ = select.select([ready], [], [], 60)
        assert readable, "the contained hook never started"
        listing = sorted(os.listdir(project))
    finally:
        os.close(ready)
    with open(project / "go", "w") as go:
        go.write("go\n")
    return listing


@needs_bwrap
async def test_nothing_holds_a_missing_entry_while_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a contained hook runs, the host's project holds what it held before: no ``.git``
    or other entry stands in for a missing guarded one (a program looking at the project then,
    such as the session's own status context, finds no repository there). A ``.git`` the
    command then makes is set aside once it has ended, and the hook blocks, naming it."""
    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", "1")
    monkeypatch.setenv("AMPLIFIER_HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(project / "ready")
    os.mkfifo(project / "go")
    command = "echo ready > ready; read x < go; git init -q . && touch made-it"
    (project / ".amplifier").mkdir()
    (project / ".amplifier" / "hooks.yaml").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"type": "command", "command": command}]}})
    )
    before = sorted(os.listdir(project))
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, "sandbox": "project"})
    try:
        emitted = asyncio.ensure_future(
            coordinator.hooks.emit(
                "tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}}
            )
        )
        during = await asyncio.to_thread(_handshake, project)
        result = await emitted
    finally:
        await cleanup()
    assert during == before
    assert (project / "made-it").exists()  # the command ran to its end
    assert not (project / ".git").exists()
    (aside,) = [p for p in project.iterdir() if p.name.startswith(".git.set-aside-")]
    assert (aside / "HEAD").exists()
    assert result.action == "deny", result
    assert ".git (set aside as " in (result.reason or "")


@needs_bwrap
@pytest.mark.parametrize("how", ["a-w .", "a-wx .", "0 ."])
async def test_a_project_made_read_only_does_not_keep_a_planted_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The command makes ``.git`` and then takes the write permission of the project away
    from its owner, so that renaming the entry aside fails: the permission is given back and
    the entry set aside all the same. (As root the rename needs no permission: there this
    shows the entry set aside whatever the mode.)"""
    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", "1")
    monkeypatch.setenv("AMPLIFIER_HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    (project / ".amplifier").mkdir()
    command = f"git init -q . && git config core.fsmonitor 'touch FSMON #' && chmod {how}"
    (project / ".amplifier" / "hooks.yaml").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"type": "command", "command": command}]}})
    )
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, "sandbox": "project"})
    try:
        result = await coordinator.hooks.emit(
            "tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}}
        )
    finally:
        await cleanup()
        project.chmod(0o755)
    assert not (project / ".git").exists()
    planted = [p.name for p in project.iterdir() if p.name.startswith(".git")]
    assert len(planted) == 1
    assert planted[0].startswith(".git.set-aside-")
    assert result.action == "deny"
