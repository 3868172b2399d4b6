"""A hook script can tell which tool called it: each protocol gives its hooks its own tool's
input fields and environment variables and no other tool's.

The script branches on its caller the way 1Password's ``run-hook.sh`` (agent-hooks) does:
Cursor when ``cursor_version`` is in the input or ``CURSOR_VERSION`` in the environment,
Gemini CLI when ``GEMINI_PROJECT_DIR`` is set, Claude Code when ``CLAUDE_PROJECT_DIR`` is set
or ``permission_mode`` is in the input, else it fails open. Each path logs what it detected
and denies in its tool's own answer format, so a hook that took the wrong path does not
deny. The session inherits the other tools' variables, as one started from another tool's
terminal does: none of them may reach the hook.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.tool_identity import (
    DEFAULT_CURSOR_VERSION,
    HOOK_VARIABLES,
    foreign_variables,
    inherited_environment,
)
from amplifier_module_hooks_declarative.trust import trust_project

RUN_HOOK = r"""#!/bin/bash
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log="$here/run-hook.log"
payload="$(cat)"
has_key() { printf '%s' "$payload" | grep -q "\"$1\"[[:space:]]*:"; }

if [[ -n "${CURSOR_VERSION:-}" ]] || has_key cursor_version; then
    client=cursor
elif [[ -n "${GEMINI_PROJECT_DIR:-}" ]]; then
    client=gemini
elif [[ -n "${CLAUDE_PROJECT_DIR:-}" ]] || has_key permission_mode; then
    client=claude-code
else
    client=unknown
fi
echo "Detected client: $client version=${CURSOR_VERSION:-none}" >> "$log"
env | grep -E '^(CLAUDE|CURSOR|GEMINI)_' | sort >> "$log" || true

reason="This project uses 1Password environments; the .env file is missing or invalid"
case "$client" in
cursor)
    printf '{"permission": "deny", "user_message": "%s", "agent_message": "%s (cursor path)"}\n' \
        "$reason" "$reason"
    ;;
gemini)
    printf '{"decision": "deny", "reason": "%s (gemini path)"}\n' "$reason"
    ;;
claude-code)
    decision='"permissionDecision": "deny", "permissionDecisionReason"'
    printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", %s: "%s"}}\n' \
        "$decision" "$reason (claude-code path)"
    ;;
*)
    echo "adapter file not found, failing open" >> "$log"
    ;;
esac
"""

OTHER_TOOLS_ENV = {
    "CLAUDE_PROJECT_DIR": "/somewhere/else",
    "CLAUDE_ENV_FILE": "/somewhere/else/env",
    "CURSOR_VERSION": "0.0.1",
    "CURSOR_PROJECT_DIR": "/somewhere/else",
    "GEMINI_PROJECT_DIR": "/somewhere/else",
    "GEMINI_SESSION_ID": "not-this-session",
}


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    path = (tmp_path / "project").resolve()
    path.mkdir()
    return path


def install_run_hook(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "run-hook.sh"
    script.write_text(RUN_HOOK)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


async def run_ls(
    project: Path, monkeypatch: pytest.MonkeyPatch, inherited: dict[str, str], **config: Any
) -> Any:
    """Trust the project, mount the module in it with the session's environment holding
    ``inherited``, and emit ``ls -la`` as a bash call."""
    for name, value in inherited.items():
        monkeypatch.setenv(name, value)
    trust_project(project)
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, **config})
    try:
        return await coordinator.hooks.emit(
            "tool:pre",
            {"tool_name": "bash", "tool_input": {"command": "ls -la"}, "session_id": "s-1"},
        )
    finally:
        await cleanup()


def logged(script: Path) -> list[str]:
    return (script.parent / "run-hook.log").read_text().splitlines()


async def test_a_cursor_hook_takes_its_cursor_path_and_denies(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = install_run_hook(project / ".cursor" / "hooks" / "1password")
    write_json(
        project / ".cursor" / "hooks.json",
        {
            "version": 1,
            "hooks": {
                "beforeShellExecution": [{"command": ".cursor/hooks/1password/run-hook.sh"}],
            },
        },
    )
    inherited = {k: v for k, v in OTHER_TOOLS_ENV.items() if not k.startswith("CURSOR")}
    result = await run_ls(project, monkeypatch, inherited)
    assert result.action == "deny"
    assert result.reason.endswith("(cursor path)")
    lines = logged(script)
    assert lines[0] == f"Detected client: cursor version={DEFAULT_CURSOR_VERSION}"
    assert lines[1:] == [
        f"CLAUDE_PROJECT_DIR={project}",  # Cursor's own alias, never the inherited value
        f"CURSOR_PROJECT_DIR={project}",
        f"CURSOR_VERSION={DEFAULT_CURSOR_VERSION}",
    ]


async def test_the_cursor_version_hooks_see_is_the_configured_one(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = install_run_hook(project / ".cursor" / "hooks")
    write_json(
        project / ".cursor" / "hooks.json",
        {"version": 1, "hooks": {"preToolUse": [{"command": ".cursor/hooks/run-hook.sh"}]}},
    )
    result = await run_ls(project, monkeypatch, {}, cursor_version="1.7.52")
    assert result.action == "deny"
    assert logged(script)[0] == "Detected client: cursor version=1.7.52"


async def test_a_gemini_hook_takes_its_gemini_path_and_denies(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = install_run_hook(project / ".gemini" / "hooks")
    write_json(
        project / ".gemini" / "settings.json",
        {
            "hooks": {
                "BeforeTool": [
                    {
                        "matcher": "run_shell_command",
                        "hooks": [
                            {
                                "type": "command",
                                "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/run-hook.sh",
                            }
                        ],
                    }
                ]
            }
        },
    )
    inherited = {k: v for k, v in OTHER_TOOLS_ENV.items() if not k.startswith("GEMINI")}
    result = await run_ls(project, monkeypatch, inherited)
    assert result.action == "deny"
    assert result.reason.endswith("(gemini path)")
    lines = logged(script)
    assert lines[0] == "Detected client: gemini version=none"
    names = {line.split("=", 1)[0] for line in lines[1:]}
    assert names == {
        "CLAUDE_PROJECT_DIR",
        "GEMINI_CWD",
        "GEMINI_PLANS_DIR",
        "GEMINI_PROJECT_DIR",
        "GEMINI_SESSION_ID",
    }
    assert f"GEMINI_PROJECT_DIR={project}" in lines
    assert "GEMINI_SESSION_ID=s-1" in lines


async def test_a_claude_code_hook_takes_its_claude_path_and_denies(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = install_run_hook(project / ".claude" / "hooks")
    write_json(
        project / ".claude" / "settings.json",
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [
                            {
                                "type": "command",
                                "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/run-hook.sh',
                            }
                        ],
                    }
                ]
            }
        },
    )
    inherited = {k: v for k, v in OTHER_TOOLS_ENV.items() if not k.startswith("CLAUDE")}
    result = await run_ls(project, monkeypatch, inherited)
    assert result.action == "deny"
    assert result.reason.endswith("(claude-code path)")
    lines = logged(script)
    assert lines == ["Detected client: claude-code version=none", f"CLAUDE_PROJECT_DIR={project}"]


async def test_an_amplifier_hook_sees_no_tools_marks(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = install_run_hook(project / ".amplifier" / "scripts")
    (project / ".amplifier" / "hooks.yaml").write_text(
        "hooks:\n  PreToolUse:\n    - type: command\n"
        "      command: .amplifier/scripts/run-hook.sh\n"
    )
    result = await run_ls(project, monkeypatch, OTHER_TOOLS_ENV)
    assert result.action == "continue"  # it fails open: no tool called it
    assert logged(script) == [
        "Detected client: unknown version=none",
        "adapter file not found, failing open",
    ]


def test_each_protocol_keeps_only_its_own_tools_variables() -> None:
    assert "CLAUDE_PROJECT_DIR" not in foreign_variables("cursor")  # Cursor's own alias
    assert "CURSOR_VERSION" in foreign_variables("claude-code")
    assert "GEMINI_PROJECT_DIR" in foreign_variables("cursor")
    assert foreign_variables("amplifier") == frozenset().union(*HOOK_VARIABLES.values())
    kept = inherited_environment({**OTHER_TOOLS_ENV, "PATH": "/bin", "GEMINI_API_KEY": "k"})
    assert kept == {"PATH": "/bin", "GEMINI_API_KEY": "k"}  # a tool's API key is not a mark
