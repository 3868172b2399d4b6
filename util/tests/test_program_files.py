"""``program_files`` names what a command's own programs need, however the command is spelled:
generated spellings (assignments, ``exec``, quoting, options, redirections, other commands
around it) of an interpreter in a virtual environment running a script, of a script whose
``#!`` names that interpreter, and of the interpreter found on ``PATH``."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest
from amplifier_hooks_util.program_files import argv_files, program_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _tree(root: Path) -> dict[str, Path]:
    """A virtual environment, a script (a space in its name) and a ``#!`` script (a ``#!`` line
    cannot hold a space)."""
    base = root / "hooks"
    venv = base / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = venv / "bin" / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    script = base / "hook script.py"
    script.write_text("print('hi')\n")
    shebang = base / "hook.sh"
    shebang.write_text(f"#!{python}\necho hi\n")
    shebang.chmod(shebang.stat().st_mode | stat.S_IXUSR)
    project = root / "project"
    project.mkdir()
    return {"venv": venv, "python": python, "script": script, "shebang": shebang, "cwd": project}


ASSIGNMENTS = st.lists(st.sampled_from(["A=1", "LANG=C", "X='a b'"]), max_size=2)
OPTIONS = st.lists(st.sampled_from(["-u", "-B", "-E"]), max_size=2)
REDIRECTIONS = st.lists(st.sampled_from(["> out.txt", "2>/dev/null", "< /dev/null", ">>log"]))
AROUND = st.sampled_from(["", "true; ", "cd . && ", "echo x | "])
AFTER = st.sampled_from(["", "; echo done", " || exit 2", " &"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    form=st.sampled_from(["absolute", "relative", "on-path", "shebang"]),
    assignments=ASSIGNMENTS,
    exec_=st.booleans(),
    options=OPTIONS,
    redirections=REDIRECTIONS,
    around=AROUND,
    after=AFTER,
)
def test_generated_spellings_name_the_interpreter_its_environment_and_script(
    tmp_path_factory: pytest.TempPathFactory,
    form: str,
    assignments: list[str],
    exec_: bool,
    options: list[str],
    redirections: list[str],
    around: str,
    after: str,
) -> None:
    root = tmp_path_factory.mktemp("programs")
    tree = _tree(root)
    cwd = tree["cwd"]
    search_path = os.pathsep.join([str(tree["python"].parent), os.defpath])
    words = [*assignments, *(["exec"] if exec_ else [])]
    expected = {tree["python"], tree["venv"]}
    if form == "shebang":
        words.append(shlex.quote(os.path.relpath(tree["shebang"], cwd)))
        expected.add(tree["shebang"])
    else:
        program = {
            "absolute": shlex.quote(str(tree["python"])),
            "relative": shlex.quote(os.path.relpath(tree["python"], cwd)),
            "on-path": "python",
        }[form]
        script = shlex.quote(os.path.relpath(tree["script"], cwd))
        words += [program, *options, script, "arg"]
        expected.add(tree["script"])
    command = around + " ".join([*words, *redirections]) + after
    found = program_files(command, str(cwd), search_path)
    assert expected <= {Path(p) for p in found}, command
    assert all(os.path.isabs(p) and os.path.exists(p) for p in found), found
    assert len(found) == len(set(found))


def test_a_command_the_shell_cannot_split_names_nothing(tmp_path: Path) -> None:
    assert program_files("python3 'unclosed", str(tmp_path), None) == ()


def test_a_missing_program_or_script_is_not_named(tmp_path: Path) -> None:
    found = program_files("./missing.sh; no-such-program-here x", str(tmp_path), "/nonexistent")
    assert found == ()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    form=st.sampled_from(["absolute", "relative", "on-path", "shebang"]),
    options=OPTIONS,
    arguments=st.lists(st.sampled_from(["arg", "-x", "a b", "$HOME"]), max_size=3),
)
def test_an_argument_vector_names_what_its_shell_spelling_names(
    tmp_path_factory: pytest.TempPathFactory, form: str, options: list[str], arguments: list[str]
) -> None:
    """``argv_files`` (no shell between) and ``program_files`` of the same command joined for
    a shell name the same files."""
    tree = _tree(tmp_path_factory.mktemp("argv"))
    cwd = tree["cwd"]
    search_path = os.pathsep.join([str(tree["python"].parent), os.defpath])
    program = {
        "absolute": str(tree["python"]),
        "relative": os.path.relpath(tree["python"], cwd),
        "on-path": "python",
        "shebang": str(tree["shebang"]),
    }[form]
    argv = [program, *options, os.path.relpath(tree["script"], cwd), *arguments]
    found = argv_files(argv, str(cwd), search_path)
    assert found == program_files(shlex.join(argv), str(cwd), search_path)
    assert {tree["python"], tree["venv"], tree["script"]} <= {Path(p) for p in found}


def test_an_interpreter_built_into_its_own_prefix_names_that_prefix(tmp_path: Path) -> None:
    """A Python installed in a prefix of its own (``PREFIX/bin/python3.11`` beside
    ``PREFIX/lib/python3.11``), reached through a virtual environment's link: the prefix holds
    its standard library, which it reads at start."""
    prefix = tmp_path / "python"
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    (prefix / "bin").mkdir()
    real = prefix / "bin" / "python3.11"
    real.write_text("")
    real.chmod(0o755)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {prefix / 'bin'}\n")
    (venv / "bin" / "python").symlink_to(real)
    found = argv_files([str(venv / "bin" / "python"), "-c", "pass"], str(tmp_path), None)
    assert found == (str(venv / "bin" / "python"), str(venv), str(real), str(prefix))
    assert argv_files([], str(tmp_path), None) == ()
