"""A guard that cannot load never fails open: a bundle whose guard module is broken stops the
session before its first turn (the command it would have blocked never runs), and a broken
hooks file that comes with the project is reported and skipped while the bundle's own guard
still blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import DELETING_SCRIPT, installed, no_traceback, write

GUARD = """\
hooks:
  - module: {module}
    config:
      include_user: false
      hooks:
        PreToolUse:
          - type: matcher
            match: {{tool: bash, args: {{command: "{pattern}"}}{regex}}}
            action: {action}
            message: no deleting
"""


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "work"
    (workspace / "victim").mkdir(parents=True)
    (workspace / "victim" / "keep.txt").write_text("precious\n")
    write(tmp_path / "script.yaml", DELETING_SCRIPT)
    return workspace


def _run(tmp_path: Path, bundle: Path, workspace: Path) -> tuple[int, str]:
    result = installed(
        "run",
        "--bundle",
        str(bundle),
        "--script",
        str(tmp_path / "script.yaml"),
        "--workspace",
        str(workspace),
        "--prompt",
        "tidy up",
        "--deny",
        cwd=tmp_path,
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"module": "hooks-declarative", "pattern": "rm (", "regex": ", regex: true"},
            "invalid regular expression",
        ),
        (
            {"module": "hooks-declarative", "pattern": "rm *", "action": "[block]"},
            "action",
        ),
        ({"module": "hooks-declaritive", "pattern": "rm *"}, "hooks-declaritive"),
    ],
    ids=["bad-regex", "wrong-type", "typo-module-id"],
)
def test_a_broken_guard_stops_the_session_and_nothing_runs(
    tmp_path: Path, fields: dict[str, str], expected: str
) -> None:
    values = {"regex": "", "action": "block", **fields}
    bundle = write(tmp_path / "bundle.yaml", GUARD.format(**values))
    workspace = _workspace(tmp_path)
    code, output = _run(tmp_path, bundle, workspace)
    assert code != 0, output
    assert (workspace / "victim" / "keep.txt").read_text() == "precious\n"
    flat = " ".join(output.split())
    assert "stopped before its first turn" in flat, output
    assert expected in flat
    no_traceback(output)


def test_an_optional_broken_guard_is_a_visible_warning(tmp_path: Path) -> None:
    text = GUARD.format(module="hooks-declaritive", pattern="rm *", regex="", action="block")
    bundle = write(
        tmp_path / "bundle.yaml", text.replace("    config:", "    optional: true\n    config:")
    )
    workspace = tmp_path / "work"
    workspace.mkdir()
    write(tmp_path / "script.yaml", "- text: hello\n")
    code, output = _run(tmp_path, bundle, workspace)
    assert code == 0, output
    assert "skipped module hooks-declaritive" in output


PROJECT_GUARD = """\
{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "sh .claude/hooks/guard.sh"}]},
    ]
  }
}
"""


def _project_guard(workspace: Path) -> None:
    """The project's own guard, as a new user writes it: a trailing comma ending line 4 (JSON
    reports it on line 5, where the list closes)."""
    write(workspace / ".claude" / "settings.json", PROJECT_GUARD)
    write(
        workspace / ".claude" / "hooks" / "guard.sh",
        'case "$(cat)" in *"rm -rf"*) echo "no deleting" >&2; exit 2 ;; esac\n',
    )


def test_a_trusted_projects_broken_guard_stops_the_session_before_its_first_turn(
    tmp_path: Path,
) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n  - module: hooks-declarative\n    config: {include_user: false}\n",
    )
    workspace = _workspace(tmp_path)
    _project_guard(workspace)
    trusted = installed("trust", str(workspace), cwd=tmp_path)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    code, output = _run(tmp_path, bundle, workspace)
    assert code != 0, output
    assert (workspace / "victim" / "keep.txt").read_text() == "precious\n"
    flat = " ".join(output.split())
    assert "stopped before its first turn" in flat, output
    assert ".claude/settings.json:5:" in flat
    assert f"amplifier-hooks trust {workspace}" in flat
    assert "strict: false" in flat
    no_traceback(output)


def test_strict_false_goes_on_without_the_broken_file_and_says_it_fails_open(
    tmp_path: Path,
) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        GUARD.format(module="hooks-declarative", pattern="rm *", regex="", action="block").replace(
            "include_user: false", "include_user: false\n      strict: false"
        ),
    )
    workspace = _workspace(tmp_path)
    _project_guard(workspace)
    trusted = installed("trust", str(workspace), cwd=tmp_path)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    code, output = _run(tmp_path, bundle, workspace)
    assert code == 0, output
    assert (workspace / "victim" / "keep.txt").read_text() == "precious\n"  # the bundle's guard
    flat = " ".join(output.split())
    assert "no deleting" in flat
    assert ".claude/settings.json:5:" in flat
    assert "the hooks of .claude/settings.json are skipped and the guard they hold is off" in flat
