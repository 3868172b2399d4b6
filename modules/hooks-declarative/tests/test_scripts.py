"""The script a command hook runs is found without running it: a missing one is named, and a
command whose script cannot be told is never reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_module_hooks_declarative.scripts import script_path, script_problem

ENV = {"HOME": "/home/u", "CLAUDE_PROJECT_DIR": "/proj", "HOOKS": "/opt/hooks"}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("./check.sh", "./check.sh"),
        ("./check.sh --strict arg", "./check.sh"),
        ('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', "/proj/.claude/hooks/guard.sh"),
        ("${HOOKS}/x.py && echo done", "/opt/hooks/x.py"),
        ("~/.amplifier/hooks/log_tool.sh", "/home/u/.amplifier/hooks/log_tool.sh"),
        ("python ~/.amplifier/hooks/pre_tool.py", "/home/u/.amplifier/hooks/pre_tool.py"),
        ("python3 -u -W ignore hooks/pre.py --flag", "hooks/pre.py"),
        ("/usr/bin/python3.12 hooks/pre.py", "hooks/pre.py"),
        ("bash -e -o pipefail guard.sh", "guard.sh"),
        ("node hooks/check.js", "hooks/check.js"),
        ("FOO=1 BAR=2 ./run.sh", "./run.sh"),
        ("env FOO=1 python x.py", "x.py"),
        ("./fmt.sh >> log.txt 2>&1", "./fmt.sh"),
        ("cat | ./x.sh", None),
        ("echo 'Session started' >> ~/.amplifier/session.log", None),
        ("jq -r .tool_input", None),
        ("python -m mypkg.hook", None),
        ("python -c 'print(1)'", None),
        ("sh -c './inner.sh'", None),
        ("bash", None),
        ("$UNSET_VAR/x.sh", None),
        ("'$HOME'/x.sh", None),
        ("$(git rev-parse --show-toplevel)/x.sh", None),
        ("./unbalanced 'quote", None),
    ],
)
def test_the_script_a_command_runs(command: str, expected: str | None) -> None:
    assert script_path(command, env=ENV) == expected


def test_problems_name_the_script_and_where_it_was_looked_for(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert script_problem("./a.sh", cwd=tmp_path, env=env) == (
        f"the script ./a.sh ({tmp_path / 'a.sh'}) does not exist"
    )
    (tmp_path / "a.sh").write_text("#!/bin/sh\n")
    assert script_problem("./a.sh", cwd=tmp_path, env=env) == (
        "the script ./a.sh is not executable (chmod +x ./a.sh)"
    )
    assert script_problem("sh ./a.sh", cwd=tmp_path, env=env) is None  # run by sh: no +x needed
    (tmp_path / "a.sh").chmod(0o755)
    assert script_problem("./a.sh", cwd=tmp_path, env=env) is None
    (tmp_path / "d").mkdir()
    assert script_problem("python d", cwd=tmp_path, env=env) == "the script d is a directory"
    assert script_problem("python ~/a.sh", cwd="/", env=env) is None
    assert script_problem("python ~/b.py", cwd="/", env=env) == (
        f"the script {tmp_path / 'b.py'} does not exist"
    )
