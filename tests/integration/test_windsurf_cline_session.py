"""Windsurf (Cascade) and Cline hooks, installed in a project the way their documentation
shows, guarding a full session: the bundle mounts hooks-declarative with no config, the
project is trusted, the scripted model asks for ``rm -rf``; the project's own scripts block it
(the file survives), their context reaches the model's next request and their logs are
written. In a project never trusted they run nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amplifier_module_hooks_declarative.trust import trust_project

from . import support
from .support import call

WINDSURF_GUARD = """#!/usr/bin/env python3
# Cascade pre_run_command hook: exit 2 blocks, stderr is what the agent reads.
import json, sys
event = json.load(sys.stdin)
line = event["tool_info"]["command_line"]
with open("cascade-commands.log", "a") as log:
    log.write(event["agent_action_name"] + " " + line + "\\n")
if "rm -rf" in line:
    print("Recursive deletes are blocked in this workspace", file=sys.stderr)
    sys.exit(2)
"""

WINDSURF_AUDIT = """#!/usr/bin/env bash
# Cascade post_write_code hook: log the edited file; a post-hook never blocks.
python3 -c 'import json,sys; e=json.load(sys.stdin); print(e["tool_info"]["file_path"])' \\
  >> written.log
exit 2
"""

CLINE_GUARD = """#!/usr/bin/env bash
# Cline PreToolUse hook: cancel recursive deletes, remind the model of the rule otherwise.
input=$(cat)
field() { printf '%s' "$input" | python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
tool=$(field '["preToolUse"]["toolName"]')
command=$(field '["preToolUse"]["parameters"].get("command", "")')
echo "$tool $command" >> cline-tools.log
echo "checking $tool"
case "$command" in
  *"rm -rf"*) echo '{"cancel": true, "errorMessage": "Cline policy: no recursive deletes"}' ;;
  *) echo '{"contextModification": "WORKSPACE_RULES: keep the victim directory"}' ;;
esac
"""


pytestmark = pytest.mark.usefixtures("python3_on_path", "victim_file")


install = support.install_executable
session = support.declarative_session


def windsurf_project(workspace: Path) -> None:
    install(workspace / ".windsurf" / "hooks" / "guard.py", WINDSURF_GUARD)
    install(workspace / ".windsurf" / "hooks" / "audit.sh", WINDSURF_AUDIT)
    hooks = {
        "hooks": {
            "pre_run_command": [
                {"command": "python3 .windsurf/hooks/guard.py", "show_output": True}
            ],
            "post_write_code": [{"command": "./audit.sh", "working_directory": ".windsurf/hooks"}],
        }
    }
    (workspace / ".windsurf" / "hooks.json").write_text(json.dumps(hooks, indent=2))


async def test_windsurf_hooks_json_guards_a_session(workspace: Path) -> None:
    windsurf_project(workspace)
    trust_project(workspace)
    outcome, recorder, denied = await support.cleaned_up(workspace)
    assert outcome.response == support.CLEANED
    assert (workspace / "victim" / "data.txt").read_text() == "keep me"
    assert "Recursive deletes are blocked in this workspace" in denied
    assert (workspace / "cascade-commands.log").read_text() == "pre_run_command rm -rf victim\n"
    written = workspace / ".windsurf" / "hooks" / "written.log"
    assert written.read_text() == f"{workspace / 'notes.txt'}\n"
    assert (workspace / "notes.txt").read_text() == "cleaned"  # exit 2 after: never blocks
    assert len(recorder.get_events("policy:violation")) == 1


async def test_cline_hook_executable_guards_a_session(workspace: Path) -> None:
    install(workspace / ".clinerules" / "hooks" / "PreToolUse", CLINE_GUARD)
    (workspace / ".clinerules" / "hooks" / "README.md").write_text("# our hooks\n")
    trust_project(workspace)
    script = [
        call("bash", command="ls victim"),
        {"text": "Listed."},
    ]
    agent, _, provider = session(workspace, script)
    async with agent:
        outcome = await agent.run("list")
    assert outcome.response == "Listed."
    second = json.dumps(support.sent(provider.requests[1]))
    assert '<hook_context source=\\"PreToolUse\\" type=\\"workspace_rules\\">' in second
    assert (workspace / "cline-tools.log").read_text() == "execute_command ls victim\n"
    script = [call("bash", command="rm -rf victim"), {"text": "Stopped."}]
    agent, recorder, provider = session(workspace, script)
    async with agent:
        await agent.run("clean up")
    assert (workspace / "victim" / "data.txt").exists()
    assert "Cline policy: no recursive deletes" in json.dumps(recorder.events)


async def test_untrusted_windsurf_and_cline_hooks_run_nothing(workspace: Path) -> None:
    windsurf_project(workspace)
    install(workspace / ".clinerules" / "hooks" / "PreToolUse", CLINE_GUARD)
    script = [call("bash", command="ls victim"), {"text": "Listed."}]
    agent, _, _ = session(workspace, script)
    async with agent:
        outcome = await agent.run("list")
    assert outcome.response == "Listed."
    assert not (workspace / "cascade-commands.log").exists()
    assert not (workspace / "cline-tools.log").exists()
