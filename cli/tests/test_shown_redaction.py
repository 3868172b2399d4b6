"""What a session shows a person passes the redaction its log and its requests pass: with
hooks-redaction mounted, a failing hook's stderr (the warning that names it), a Claude Code
hook's ``systemMessage`` and a command hook's deny reason reach the terminal redacted, and a
value cut to fit a line is redacted before the cut."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.demo_view import shorten
from amplifier_hooks_cli.output import SHOWN_CAPABILITY, show_through
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.fixture(scope="module")
def redact_text() -> Any:
    """The redaction a session with hooks-redaction mounted offers its terminal."""
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_redaction import mount

    coordinator = create_test_coordinator()
    asyncio.run(mount(coordinator, {}))
    return coordinator.get_capability(SHOWN_CAPABILITY)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    before=st.integers(0, 200),
    limit=st.integers(20, 240),
    filler=st.sampled_from(["x", "ab ", "{", '"k": "', "\n"]),
    as_json=st.booleans(),
)
def test_a_secret_cut_for_the_terminal_is_redacted_whole_first(
    redact_text: Any, before: int, limit: int, filler: str, as_json: bool
) -> None:
    """The terminal cuts long values (``shorten``); a token straddling the cut was shown as a
    fragment no rule recognises (``ghp_ERR1...EEEEff...`` in a deny reason). The text is
    redacted whole before any cut, wherever the cut falls."""
    text = (filler * before)[:before] + TOKEN + " tail"
    value: Any = {"command": text} if as_json else text
    show_through(redact_text)
    try:
        shown_text = shorten(value, limit)
    finally:
        show_through(None)
    for size in range(8, len(TOKEN) + 1):  # no piece of the token, not even a short prefix
        assert TOKEN[:size] not in shown_text, (size, shown_text)


LISTED = """\
hooks:
  - module: hooks-redaction
  - module: hooks-declarative
    config:
      include_user: false
      hooks:
        PreToolUse:
          - type: command
            command: "curl -s -H 'Authorization: token {token}' https://example.invalid/a/long/path/to/wrap"
"""


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
@pytest.mark.parametrize("mounted", [True, False], ids=["redaction", "no-redaction"])
def test_hooks_list_shows_a_hook_command_redacted(
    tmp_path: Path, mounted: bool, as_json: bool
) -> None:
    text = LISTED.format(token=TOKEN)
    if not mounted:
        text = text.replace("  - module: hooks-redaction\n", "")
    bundle = write(tmp_path / "bundle.yaml", text)
    result = installed(
        "hooks", "list", "--bundle", str(bundle), *(["--json"] if as_json else []), cwd=tmp_path
    )
    shown = result.stdout + result.stderr
    no_traceback(shown)
    assert result.returncode == 0, shown
    assert "Authorization: token" in shown, shown  # the hook is listed, table cut or not
    if mounted:  # a token the table would cut over two lines is redacted before the cut
        assert TOKEN[4:16] not in shown, shown
        assert "REDACTED" in shown, shown
    else:  # the control: without the module, the token is shown
        assert TOKEN[4:16] in shown, shown
