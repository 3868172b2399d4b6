"""Trust reaches what a trusted hook runs without spelling its path, and what a hook's own run
cannot launder into data. Each case is a real project, trusted, then changed between two tool
calls (or during a hook's run): the changed code must not run (no marker file) and the hook
refuses, naming the file; where the route is an interpreter's own behaviour the test runs it
directly afterwards and sees the marker written (the route is real).

- a path with a variable part (``. "$CLAUDE_PROJECT_DIR/$LIB/env.sh"`` with ``LIB`` set at
  run time): every entry the shape matches is surface (generated spellings, hypothesis);
- a file a script sources whose name does not say data (``guard.conf``), rewritten by someone
  else *while* the hook runs: not taken as the hook's data;
- a package a script loads by name: ``node_modules/<name>`` (``require``, ``import``, scoped,
  the nearest ``node_modules``) and a project virtual environment's ``site-packages``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_module_hooks_declarative.trust import trust_project, trust_status

from .support import answer_after, mounted, refused, write
from .support import bash_call as bash

PY_EVIL = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"
JS_EVIL = "require('fs').writeFileSync({marker!r}, 'ran');\n"


def settings_file(project: Path, command: str) -> None:
    hook = {"type": "command", "command": command}
    write(
        project / ".claude" / "settings.json",
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}),
    )


# -- a path with a variable part

_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=8)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    directories=st.lists(_NAME, min_size=1, max_size=2),
    variable=st.sampled_from(["$V{i}", "${{V{i}}}", "${{V{i}:-{value}}}", '"$V{i}"']),
    sourcing=st.sampled_from([". ", "source ", "bash "]),
    file=st.sampled_from(["env.sh", "common", "settings.conf", "lib.bash"]),
    where=st.sampled_from(["script", "hooks-file"]),
)
def test_a_path_with_a_variable_part_covers_what_it_can_reach(
    tmp_path_factory: pytest.TempPathFactory,
    directories: list[str],
    variable: str,
    sourcing: str,
    file: str,
    where: str,
) -> None:
    tmp = tmp_path_factory.mktemp("shape")
    project = tmp / "project"
    names = [f"d{i}{name}" for i, name in enumerate(directories)]  # never a hook directory
    assigns = " ".join(f"V{i}=${{V{i}:-{name}}};" for i, name in enumerate(names))
    spelled = "/".join(
        variable.format(i=i, value=name).replace('"', "") for i, name in enumerate(names)
    )
    line = f'{assigns} {sourcing}"$CLAUDE_PROJECT_DIR/{spelled}/{file}"'
    target = write(project.joinpath(*names, file), "true\n")
    if where == "script":
        write(project / ".claude" / "hooks" / "guard.sh", f"#!/bin/bash\n{line}\n", 0o755)
        settings_file(project, "bash .claude/hooks/guard.sh")
    else:
        settings_file(project, f"bash -c '{line}'")
    trust_project(project)
    marker = tmp / "marker"

    def change() -> None:
        target.write_text(f"touch {marker}\n")

    second = asyncio.run(answer_after(project, change))
    assert not marker.exists(), f"{line}: the changed file ran"
    refused(second, project, "/".join([*names, file]))
    subprocess.run(
        ["bash", "-c", line], cwd=project, env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    )
    assert marker.exists(), f"{line}: the route is not real"


async def test_a_file_appearing_where_a_variable_path_leads_is_a_change(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / "conf" / "other.sh", "true\n")
    write(project / "site" / "keep.txt", "x\n")
    write(
        project / ".claude" / "hooks" / "guard.sh",
        '#!/bin/bash\nfor d in conf site; do f="$CLAUDE_PROJECT_DIR/$d/env.sh"; '
        '[ -f "$f" ] && . "$f"; done\nexit 0\n',
        0o755,
    )
    settings_file(project, "bash .claude/hooks/guard.sh")
    trust_project(project)
    marker = tmp_path / "marker"
    second = await answer_after(
        project, lambda: write(project / "site" / "env.sh", f"touch {marker}\n")
    )
    assert not marker.exists()
    assert second.action == "deny", second


# -- what a run cannot launder into data


@pytest.mark.parametrize(
    "name", ["guard.conf", "env", "settings", "rules.sh.in", "policy.json", "allow.txt"]
)
async def test_a_sourced_file_rewritten_during_a_run_is_not_the_hooks_data(
    tmp_path: Path, name: str
) -> None:
    """Someone else (a process the model started) rewrites the file the guard sources while
    the guard runs: the change is not the guard's own, so the next run refuses (a name that
    says nothing is never data; a data name the record has may only grow). A FIFO holds the
    guard in its run while the file is written: no timing involved."""
    project = tmp_path / "project"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = tmp_path / "started"
    sourced = write(project / ".claude" / "hooks" / name, "MODE=strict\n")
    write(
        project / ".claude" / "hooks" / "guard.sh",
        f'#!/bin/sh\n. "$(dirname "$0")/{name}"\n'
        f"if [ -p {fifo} ]; then touch {started}; read -r _ < {fifo}; fi\nexit 0\n",
        0o755,
    )
    settings_file(project, "sh .claude/hooks/guard.sh")
    trust_project(project)
    marker = tmp_path / "marker"
    coordinator, cleanup = await mounted(project)
    try:
        running = asyncio.ensure_future(coordinator.hooks.emit("tool:pre", bash("ls")))
        while not started.exists():  # the guard is in its run, waiting on the FIFO
            assert not running.done(), running.result()
            await asyncio.sleep(0.01)
        sourced.write_text(f"MODE=strict; touch {marker}\n")
        await asyncio.to_thread(fifo.write_text, "go\n")
        await running
        fifo.unlink()
        second = await coordinator.hooks.emit("tool:pre", bash("ls"))
    finally:
        await cleanup()
    assert not marker.exists(), "the file rewritten during the run was sourced"
    refused(second, project, f".claude/hooks/{name}")


# -- packages loaded by name


NODE_CASES: dict[str, tuple[str, str, str]] = {
    # name: (the hook's script, the package file the attack rewrites, the script's path)
    "require": ("require('leftpad');\n", "node_modules/leftpad/index.js", "hooks/guard.js"),
    "import-from": (
        "import pad from 'leftpad';\n",
        "node_modules/leftpad/index.js",
        "hooks/guard.mjs",
    ),
    "scoped": ("require('@acme/pad');\n", "node_modules/@acme/pad/index.js", "hooks/guard.js"),
    "nearest-node-modules": (
        "require('leftpad');\n",
        "hooks/node_modules/leftpad/index.js",
        "hooks/guard.js",
    ),
    "a-dependency-of-a-dependency": (
        "require('leftpad');\n",
        "node_modules/inner/index.js",
        "hooks/guard.js",
    ),
}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("case", sorted(NODE_CASES))
async def test_a_package_a_script_loads_by_name_is_trusted_code(tmp_path: Path, case: str) -> None:
    script_text, package_file, script = NODE_CASES[case]
    project = tmp_path / "project"
    write(project / script, script_text)
    package = project / package_file
    body = "module.exports = 1;\n"
    if case == "a-dependency-of-a-dependency":
        write(project / "node_modules" / "leftpad" / "index.js", "require('inner');\n")
    if script.endswith(".mjs"):
        write(package.parent / "package.json", '{"main": "index.js"}\n')
    write(package, body)
    settings_file(project, f"node {script}")
    trust_project(project)
    marker = tmp_path / "marker"

    def change() -> None:
        package.write_text(JS_EVIL.format(marker=str(marker)))

    second = await answer_after(project, change)
    assert not marker.exists(), f"{case}: the changed package ran"
    refused(second, project, package_file)
    subprocess.run(["node", script], cwd=project, capture_output=True, check=False)  # noqa: ASYNC221
    assert marker.exists(), f"{case}: node does not load it (the route is not real)"


@pytest.mark.parametrize(
    "spelling",
    ["import policykit", "import importlib; importlib.import_module('policykit')",
     "__import__('policykit.rules')"],
)  # fmt: skip
async def test_a_package_a_python_hook_imports_from_the_project_venv_is_trusted_code(
    tmp_path: Path, spelling: str
) -> None:
    project = tmp_path / "project"
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()  # noqa: ASYNC240
    subprocess.run(  # noqa: ASYNC221
        [str(base), "-m", "venv", "--without-pip", str(project / ".venv")], check=True
    )
    site = next((project / ".venv" / "lib").glob("python*/site-packages"))
    write(site / "policykit" / "__init__.py", "from .rules import RULES\n")
    target = write(site / "policykit" / "rules.py", "RULES = []\n")
    write(project / "scripts" / "guard.py", spelling + "\n")
    settings_file(project, ".venv/bin/python scripts/guard.py")
    trust_project(project)
    marker = tmp_path / "marker"

    def change() -> None:
        target.write_text("RULES = []\n" + PY_EVIL.format(marker=str(marker)))

    second = await answer_after(project, change)
    assert not marker.exists(), "the changed package ran"
    refused(second, project, target.relative_to(project).as_posix())
    subprocess.run(  # noqa: ASYNC221
        [str(project / ".venv" / "bin" / "python"), "scripts/guard.py"], cwd=project, check=True
    )
    assert marker.exists(), "the venv's python imports it: a real route"


async def test_a_log_the_record_has_may_grow_during_a_run(tmp_path: Path) -> None:
    """The other side: a log that existed when the project was trusted, appended to by the
    guard's own run, is the guard's data; the guard stays trusted in the next session."""
    project = tmp_path / "project"
    log = write(project / ".claude" / "hooks" / "audit.log", "first\n")
    write(
        project / ".claude" / "hooks" / "guard.sh",
        '#!/bin/sh\necho run >> "$(dirname "$0")/audit.log"\nexit 0\n',
        0o755,
    )
    settings_file(project, "sh .claude/hooks/guard.sh")
    trust_project(project)
    for _ in range(2):
        second = await answer_after(project, lambda: None)
        assert second.action == "continue", second
        assert trust_status(project).trusted
    assert log.read_text().count("run") == 4


@pytest.mark.parametrize("use_inotify", [True, False])
async def test_a_directory_a_variable_path_could_lead_to_made_later_is_a_change(
    tmp_path: Path, use_inotify: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``"$d/env.sh"`` for every top-level directory ``d``: an ``env.sh`` in a directory made
    after trust is seen before the next run, by inotify and by the ``stat`` fallback."""
    project = tmp_path / "project"
    write(project / "conf" / "env.sh", "true\n")
    write(
        project / ".claude" / "hooks" / "guard.sh",
        '#!/bin/bash\nfor d in "$CLAUDE_PROJECT_DIR"/*/; do [ -f "$d/env.sh" ] && '
        '. "$d/env.sh"; done; exit 0\n',
        0o755,
    )
    settings_file(project, "bash .claude/hooks/guard.sh")
    trust_project(project)
    if not use_inotify:
        from amplifier_module_hooks_declarative.trust import watch

        monkeypatch.setattr(watch, "_Inotify", _NoInotify)
    marker = tmp_path / "marker"
    second = await answer_after(
        project, lambda: write(project / "later" / "env.sh", f"touch {marker}\n")
    )
    assert not marker.exists(), "an env.sh in a directory made after trust ran"
    refused(second, project, "later/env.sh")


async def test_a_directory_made_later_that_holds_nothing_of_the_shape_changes_nothing(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    write(project / "conf" / "env.sh", "true\n")
    write(project / ".claude" / "hooks" / "guard.sh", '. "$CLAUDE_PROJECT_DIR/$D/env.sh"\n')
    settings_file(project, "D=conf sh .claude/hooks/guard.sh")
    trust_project(project)
    second = await answer_after(project, lambda: write(project / "build" / "out.o", "x"))
    assert second.action == "continue", second
    assert trust_status(project).trusted


@pytest.mark.parametrize("dotfile", [".bashrc", ".profile", ".gitconfig", ".npmrc"])
async def test_a_hook_whose_home_is_the_project_trusts_its_dotfiles(
    tmp_path: Path, dotfile: str
) -> None:
    """``env: {HOME: <the project>}``: an interactive bash reads the project's ``.bashrc``
    (git its ``.gitconfig``, npm its ``.npmrc``); a dotfile that changes, or appears, at the
    project's top level is a change."""
    project = tmp_path / "project"
    hook = {
        "type": "command",
        "command": "bash -i -c 'exit 0' </dev/null >/dev/null 2>&1",
        "env": {"HOME": str(project)},
    }
    write(project / ".amplifier" / "hooks.yaml", json.dumps({"hooks": {"PreToolUse": [hook]}}))
    if dotfile != ".bashrc":
        write(project / dotfile, "# nothing\n")
    trust_project(project)
    marker = tmp_path / "marker"
    evil = f"touch {marker}\n" if dotfile == ".bashrc" else "# changed\n"
    second = await answer_after(
        project,
        lambda: write(project / ".bashrc" if dotfile == ".bashrc" else project / dotfile, evil),
    )
    assert not marker.exists(), "the project's .bashrc ran as the hook's home"
    refused(second, project, dotfile)


class _NoInotify:
    def __init__(self) -> None:
        raise OSError("inotify switched off for this test")
