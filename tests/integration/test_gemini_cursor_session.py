"""Gemini CLI and Cursor hook files, installed in a project the way their documentation shows,
guarding a full session: the bundle mounts hooks-declarative with no config, the project is
trusted, the scripted model asks for ``rm -rf``; the project's own scripts block it (the file
survives), the model reads their reason, their context reaches the model and their log files
are written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amplifier_module_hooks_declarative.trust import trust_project

from . import support
from .support import call, tool_results

GEMINI_GUARD = """#!/usr/bin/env bash
# Gemini CLI BeforeTool hook: block recursive deletes (exit 2, stderr is the reason).
input=$(cat)
field() { printf '%s' "$input" | python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
command=$(field '["tool_input"].get("command", "")')
tool=$(field '["tool_name"]')
echo "[$tool] $command" >> "$GEMINI_PROJECT_DIR/gemini-tools.log"
case "$command" in
  *"rm -rf"*) echo "Recursive delete blocked by project policy" >&2; exit 2 ;;
esac
echo '{"decision": "allow"}'
"""

GEMINI_CONTEXT = """#!/usr/bin/env bash
# Gemini CLI BeforeAgent hook: add the project's conventions to the prompt.
cat > /dev/null
rule="Project rule: never delete the victim directory."
printf '{"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "%s"}}' "$rule"
"""

CURSOR_GUARD = """#!/usr/bin/env python3
# Cursor beforeShellExecution hook: deny recursive deletes.
import json, sys
event = json.load(sys.stdin)
with open("cursor-shell.log", "a") as log:
    log.write(event["hook_event_name"] + " " + event["command"] + "\\n")
if "rm -rf" in event["command"]:
    print(json.dumps({
        "permission": "deny",
        "user_message": "Blocked a recursive delete",
        "agent_message": "rm -rf is not allowed in this repository; delete single files.",
    }))
else:
    print(json.dumps({"permission": "allow"}))
"""

CURSOR_AUDIT = """#!/usr/bin/env python3
# Cursor afterFileEdit hook: audit every edit.
import json, sys
event = json.load(sys.stdin)
with open("cursor-edits.log", "a") as log:
    log.write(json.dumps({"file": event["file_path"], "edits": event["edits"]}) + "\\n")
"""


# the home is the test's own (conftest): the machine's ~/.gemini and ~/.cursor are never read
pytestmark = pytest.mark.usefixtures("python3_on_path", "victim_file")


install = support.install_executable
session = support.declarative_session


async def test_gemini_settings_hooks_guard_a_session(workspace: Path) -> None:
    install(workspace / ".gemini" / "hooks" / "block-rm.sh", GEMINI_GUARD)
    install(workspace / ".gemini" / "hooks" / "context.sh", GEMINI_CONTEXT)
    settings = {
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "run_shell_command",
                    "hooks": [
                        {
                            "name": "block-rm",
                            "type": "command",
                            "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/block-rm.sh",
                            "timeout": 10000,
                        }
                    ],
                }
            ],
            "BeforeAgent": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/context.sh",
                        }
                    ]
                }
            ],
        }
    }
    (workspace / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    trust_project(workspace)
    script = [
        call("bash", command="rm -rf victim"),
        call("bash", command="ls victim"),
        {"text": "Left it in place.", "expect": "data.txt"},
    ]
    agent, recorder, provider = session(workspace, script)
    async with agent:
        outcome = await agent.run("clean up the workspace")
    assert outcome.response == "Left it in place."
    assert (workspace / "victim" / "data.txt").read_text() == "keep me"
    blocked, listed = tool_results(provider)
    assert "Recursive delete blocked by project policy" in blocked
    assert "data.txt" in listed
    assert (workspace / "gemini-tools.log").read_text().splitlines() == [
        "[run_shell_command] rm -rf victim",
        "[run_shell_command] ls victim",
    ]
    first_request = json.dumps(support.sent(provider.requests[0]))
    assert "Project rule: never delete the victim directory." in first_request
    [(_, violation)] = recorder.get_events("policy:violation")
    assert violation["tool_name"] == "bash"


async def test_cursor_hooks_json_guards_a_session(workspace: Path) -> None:
    install(workspace / ".cursor" / "hooks" / "guard.py", CURSOR_GUARD)
    install(workspace / ".cursor" / "hooks" / "audit.py", CURSOR_AUDIT)
    hooks = {
        "version": 1,
        "hooks": {
            "beforeShellExecution": [{"command": ".cursor/hooks/guard.py"}],
            "afterFileEdit": [{"command": ".cursor/hooks/audit.py"}],
        },
    }
    (workspace / ".cursor" / "hooks.json").write_text(json.dumps(hooks, indent=2))
    trust_project(workspace)
    outcome, recorder, denied = await support.cleaned_up(workspace)
    assert outcome.response == support.CLEANED
    assert (workspace / "victim" / "data.txt").exists()
    assert denied.endswith("rm -rf is not allowed in this repository; delete single files.")
    assert (workspace / "cursor-shell.log").read_text() == "beforeShellExecution rm -rf victim\n"
    [audit] = support.records(workspace / "cursor-edits.log")
    assert audit == {
        "file": str(workspace / "notes.txt"),
        "edits": [{"old_string": "", "new_string": "cleaned"}],
    }
    assert (workspace / "notes.txt").read_text() == "cleaned"
    assert len(recorder.get_events("policy:violation")) == 1


async def test_untrusted_project_hooks_do_not_run(workspace: Path) -> None:
    install(workspace / ".cursor" / "hooks" / "guard.py", CURSOR_GUARD)
    hooks = {
        "version": 1,
        "hooks": {"beforeShellExecution": [{"command": ".cursor/hooks/guard.py"}]},
    }
    (workspace / ".cursor" / "hooks.json").write_text(json.dumps(hooks))
    script = [call("bash", command="ls victim"), {"text": "Listed."}]
    agent, _, _ = session(workspace, script)
    async with agent:
        outcome = await agent.run("list")
    assert outcome.response == "Listed."
    assert not (workspace / "cursor-shell.log").exists()
