"""``amplifier-hooks trust``: covering a directory of the project that a bundle runs hooks from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from amplifier_module_hooks_declarative.trust import trust_status

from .test_cli import installed, no_traceback, write


def test_include_covers_a_plugin_kept_in_the_project(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    write(project / ".claude" / "settings.json", "{}")
    write(project / "plugins" / "guard" / "hooks" / "hooks.json", '{"hooks": {}}')
    assert not trust_status(project, include=["plugins/guard"]).trusted

    done = installed("trust", str(project), "--include", "plugins/guard", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plugins/guard/hooks/hooks.json" in done.stdout
    assert trust_status(project, include=["plugins/guard"]).trusted
    checked = installed(
        "trust", "--check", str(project), "--include", "plugins/guard", cwd=tmp_path
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    write(project / "plugins" / "other" / "hooks" / "hooks.json", "{}")
    checked = installed(
        "trust", "--check", str(project), "--include", "plugins/other", cwd=tmp_path
    )
    output = " ".join((checked.stdout + checked.stderr).split())
    assert checked.returncode == 1, output
    assert f"amplifier-hooks trust {project.resolve()} --include plugins/other" in output


def test_include_names_a_directory_of_the_project(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    write(project / ".claude" / "settings.json", "{}")
    (tmp_path / "outside").mkdir()
    for name, expected in (
        ("nowhere", "nowhere: no such file or directory in"),
        ("../outside", "not a file or directory inside the project"),
    ):
        done = installed("trust", str(project), "--include", name, cwd=tmp_path)
        output = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 2, output
        assert expected in output
        no_traceback(output)
    assert not trust_status(project).trusted


WITHOUT_DECLARATIVE = """
import sys
sys.modules["amplifier_module_hooks_declarative"] = None  # as if it were not installed
sys.argv = ["amplifier-hooks", "trust", "--list"]
from amplifier_hooks_cli.main import main
main()
"""


def test_without_hooks_declarative_trust_names_the_package_to_install(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_DECLARATIVE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    no_traceback(done.stdout + done.stderr)
    assert "project trust is kept by hooks-declarative, which is not installed" in done.stderr
    assert "pip install amplifier-module-hooks-declarative" in done.stderr


def test_check_names_a_changed_interpreter_and_a_new_pth_file(tmp_path: Path) -> None:
    """``trust --check`` fails naming a changed in-project interpreter (``#!tools/runner``)
    and a ``.pth`` file that appeared in the project's virtual environment."""
    project = tmp_path / "repo"
    hook = '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "scripts/g"}]}]}}'
    write(project / ".claude" / "settings.json", hook)
    write(project / "scripts" / "g", "#!tools/runner\nimport sys\n")
    write(project / "tools" / "runner", '#!/bin/sh\nexec python3 "$@"\n')
    write(project / ".venv" / "pyvenv.cfg", "home = /usr/bin\n")
    site = project / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    done = installed("trust", str(project), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tools/runner" in done.stdout
    assert installed("trust", "--check", str(project), cwd=tmp_path).returncode == 0
    write(site / "zz.pth", "import os\n")
    checked = installed("trust", "--check", str(project), cwd=tmp_path)
    output = " ".join((checked.stdout + checked.stderr).split())
    assert checked.returncode == 1, output
    assert ".venv/lib/python3.11/site-packages/zz.pth" in output, output
    assert installed("trust", str(project), cwd=tmp_path).returncode == 0
    write(project / "tools" / "runner", '#!/bin/sh\nexec python3 -I "$@"\n')
    checked = installed("trust", "--check", str(project), cwd=tmp_path)
    output = " ".join((checked.stdout + checked.stderr).split())
    assert checked.returncode == 1, output
    assert "tools/runner" in output, output
