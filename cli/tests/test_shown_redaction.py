"""What a session shows a person passes the redaction its log and its requests pass: with
hooks-redaction mounted, a failing hook's stderr (the warning that names it), a Claude Code
hook's ``systemMessage`` and a command hook's deny reason reach the terminal redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cli import installed, no_traceback, write

# A GitHub token of the documented shape (ghp_ + 36 characters), made up.
TOKEN = "ghp_" + "R8kf2LmQ9xZt4Vw7Yb1Nc3Pd6Hs0Ju5Ae8Gi"

SCRIPT = """\
- tool_calls:
    - name: bash
      input: {command: echo hello}
- tool_calls:
    - name: bash
      input: {command: rm -r build}
- text: done
"""

BUNDLE = """\
hooks:
  - module: hooks-redaction
  - module: hooks-declarative
    config:
      include_user: false
      hooks:
        UserPromptSubmit:
          - type: command
            protocol: claude-code
            command: "{system}"
        PreToolUse:
          - type: command
            command: "{deny}"
        PostToolUse:
          - type: command
            command: "{fail}"
"""


def _hooks(tmp_path: Path) -> dict[str, str]:
    scripts = {
        "deny": f"grep -q rm || exit 0; echo 'blocked: the key {TOKEN} is not allowed' >&2; exit 2",
        "system": f'echo \'{{"systemMessage": "watch out for {TOKEN}"}}\'',
        "fail": f"echo 'cannot reach the API with {TOKEN}' >&2; exit 1",
    }
    paths = {}
    for name, body in scripts.items():
        path = write(tmp_path / f"{name}.sh", f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
        paths[name] = str(path)
    return paths


@pytest.mark.parametrize("mounted", [True, False], ids=["redaction", "no-redaction"])
def test_hook_messages_warnings_and_deny_reasons_are_shown_redacted(
    tmp_path: Path, mounted: bool
) -> None:
    text = BUNDLE.format(**_hooks(tmp_path))
    if not mounted:
        text = text.replace("  - module: hooks-redaction\n", "")
    bundle = write(tmp_path / "bundle.yaml", text)
    write(tmp_path / "script.yaml", SCRIPT)
    (tmp_path / "work").mkdir()
    result = installed(
        "run",
        "--bundle",
        str(bundle),
        "--script",
        str(tmp_path / "script.yaml"),
        "--workspace",
        str(tmp_path / "work"),
        "--prompt",
        "say hello",
        "--approve",
        cwd=tmp_path,
    )
    shown = result.stdout + result.stderr
    no_traceback(shown)
    # the three paths were taken: each of them showed its text
    assert "watch out for" in shown, shown
    assert "blocked: the key" in shown, shown
    assert "cannot reach the API" in shown, shown
    if mounted:
        assert TOKEN not in shown, shown
        assert "[REDACTED:github_token]" in shown, shown
    else:  # the test sees what it means to: without the module, the token is shown
        assert TOKEN in shown, shown
