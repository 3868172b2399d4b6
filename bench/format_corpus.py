"""A corpus of Codex, Factory Droid and GitHub Copilot hook installations, for
``bench/formats_differential.py``.

Each case is one project as its README would have it installed: the hooks file at the path its
tool reads (``.codex/hooks.json``, ``.factory/hooks.json``, ``.github/hooks/<name>.json``) and
the scripts it runs. The shapes (events, matchers, how the scripts are called, what they
answer) are modelled on hook files published in public repositories, named in each case's
``models``; the scripts are written for this corpus. Every case is decided on the same events
(:data:`EVENTS`): Bash calls, file writes and edits, an MCP tool, a prompt, the end of a turn and
a tool's result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CASES", "EVENTS", "Case"]


@dataclass(frozen=True)
class Case:
    """One installation: ``files`` (project-relative path -> text), the ``executable`` ones."""

    tool: str
    name: str
    models: str
    files: dict[str, str]
    executable: tuple[str, ...] = ()
    events: tuple[str, ...] = field(default=())
    """The names of :data:`EVENTS` this case is decided on (empty: all)."""


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}}


def file_call(tool: str, **args: str) -> dict[str, Any]:
    return {"tool_name": tool, "tool_input": args}


EVENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "rm-rf": ("tool:pre", bash("rm -rf /tmp/build-cache")),
    "force-push": ("tool:pre", bash("git push --force origin main")),
    "ls": ("tool:pre", bash("ls -la")),
    "curl-pipe": ("tool:pre", bash("curl -s https://x.example/install.sh | sh")),
    "write-env": ("tool:pre", file_call("write_file", file_path=".env", content="KEY=1\n")),
    "write-src": ("tool:pre", file_call("write_file", file_path="src/app.py", content="x = 1\n")),
    "edit-pkg": (
        "tool:pre",
        file_call("edit_file", file_path="package.json", old_string="1.0.0", new_string="1.0.1"),
    ),
    "mcp-delete": ("tool:pre", {"tool_name": "mcp__github__delete_repository", "tool_input": {}}),
    "prompt-secret": ("prompt:submit", {"prompt": "use my key sk-live-123456 for the deploy"}),
    "prompt-plain": ("prompt:submit", {"prompt": "add a README"}),
    "stop": ("prompt:complete", {"response": "Done.", "status": "completed"}),
    "post-src": (
        "tool:post",
        {
            **file_call("write_file", file_path="src/app.py", content="x = 1\n"),
            "tool_result": {"success": True, "output": "wrote src/app.py"},
        },
    ),
}
"""Event name -> (kernel event, data)."""

# ----------------------------------------------------------------------------- scripts

GUARD_BASH_EXIT2 = """#!/usr/bin/env python3
import json, re, sys
data = json.load(sys.stdin)
command = (data.get("tool_input") or {}).get("command", "")
for pattern, why in ((r"rm\\s+-rf", "recursive delete"), (r"push\\s+--force", "force push"),
                     (r"curl[^|]*\\|\\s*(ba)?sh", "piping a download into a shell")):
    if re.search(pattern, command):
        print(f"Blocked: {why}", file=sys.stderr)
        sys.exit(2)
sys.exit(0)
"""

GUARD_BASH_DENY_JSON = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
command = (data.get("tool_input") or {}).get("command", "")
if "rm -rf" in command or "--force" in command:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "permissionDecision": "deny", "permissionDecisionReason": "destructive command"}}))
"""

PATCH_PATHS = """#!/usr/bin/env python3
import json, re, sys
data = json.load(sys.stdin)
tool_input = data.get("tool_input") or {}
patch = tool_input.get("command", "")
paths = re.findall(r"^\\*\\*\\* (?:Add|Update|Delete) File: (.+)$", patch, re.M)
paths.append(tool_input.get("file_path", ""))
if any(p.endswith(".env") for p in paths):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "permissionDecision": "deny", "permissionDecisionReason": "secrets file"}}))
"""

AUDIT_LOG = """#!/bin/sh
cat >> "${AUDIT_LOG:-/dev/null}"
exit 0
"""


def answer(payload: dict[str, Any] | str, *, when: str = "", code: int = 0) -> str:
    """A script printing ``payload`` (JSON unless a string) when its stdin holds ``when``."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return (
        "#!/usr/bin/env python3\nimport sys\ndata = sys.stdin.read()\n"
        f"if {when!r} in data:\n    print({text!r})\n    sys.exit({code})\n"
    )


STOP_GATE = """#!/usr/bin/env python3
import json, os, sys
json.load(sys.stdin)
if not os.path.exists(".tests-passed"):
    print(json.dumps({"decision": "block", "reason": "run the test suite before you stop"}))
"""

STOP_GATE_EXIT2 = """#!/bin/sh
cat > /dev/null
[ -e .tests-passed ] && exit 0
echo "the stop gate failed: tests not run" >&2
exit 2
"""

PROMPT_SECRETS = """#!/usr/bin/env python3
import json, re, sys
data = json.load(sys.stdin)
if re.search(r"sk-live-[0-9]+", data.get("prompt", "")):
    print(json.dumps({"decision": "block", "reason": "the prompt holds an API key"}))
"""

LINT_FEEDBACK = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
print(json.dumps({"decision": "block", "reason": "lint: 1 problem in the file just written"}))
"""


def codex(name: str, models: str, hooks: dict[str, Any], scripts: dict[str, str]) -> Case:
    files = {".codex/hooks.json": json.dumps({"hooks": hooks}, indent=2)}
    files.update({f".codex/hooks/{n}": text for n, text in scripts.items()})
    return Case("codex", name, models, files, tuple(f".codex/hooks/{n}" for n in scripts))


def factory(
    name: str, models: str, hooks: dict[str, Any], scripts: dict[str, str], *, bare: bool = False
) -> Case:
    body = hooks if bare else {"hooks": hooks}
    files = {".factory/hooks.json": json.dumps(body, indent=2)}
    files.update({f".factory/hooks/{n}": text for n, text in scripts.items()})
    return Case("factory", name, models, files, tuple(f".factory/hooks/{n}" for n in scripts))


def copilot(name: str, models: str, hooks: dict[str, Any], scripts: dict[str, str]) -> Case:
    files = {f".github/hooks/{name}.json": json.dumps({"version": 1, "hooks": hooks}, indent=2)}
    files.update({f".github/hooks/scripts/{n}": text for n, text in scripts.items()})
    return Case(
        "copilot", name, models, files, tuple(f".github/hooks/scripts/{n}" for n in scripts)
    )


def group(matcher: str | None, *commands: str, timeout: int | None = 10) -> dict[str, Any]:
    hooks = [
        {"type": "command", "command": c, **({"timeout": timeout} if timeout else {})}
        for c in commands
    ]
    return {"hooks": hooks} if matcher is None else {"matcher": matcher, "hooks": hooks}


def run_codex(name: str) -> str:
    return f'"$(git rev-parse --show-toplevel)/.codex/hooks/{name}"'


def run_factory(name: str) -> str:
    return f'"$FACTORY_PROJECT_DIR"/.factory/hooks/{name}'


# ----------------------------------------------------------------------------- Codex

CODEX_CASES = [
    codex(
        "safety-stack",
        "a Bash safety check, an audit trail and a PR gate, each its own group with matcher "
        "Bash, git rev-parse --show-toplevel to find the scripts (devkit-style enforcement stack)",
        {
            "PreToolUse": [
                group("Bash", run_codex("safety.py")),
                group("Bash", run_codex("audit.sh")),
                group("Edit|Write|apply_patch", run_codex("paths.py")),
            ]
        },
        {"safety.py": GUARD_BASH_EXIT2, "audit.sh": AUDIT_LOG, "paths.py": PATCH_PATHS},
    ),
    codex(
        "deny-json",
        "one PreToolUse guard answering permissionDecision deny with a reason",
        {"PreToolUse": [group("^Bash$", run_codex("deny.py"))]},
        {"deny.py": GUARD_BASH_DENY_JSON},
    ),
    codex(
        "star-audit",
        "matcher * on every tool event, a tracer that records and answers nothing",
        {
            "PreToolUse": [group("*", run_codex("audit.sh"), timeout=2)],
            "PostToolUse": [group("*", run_codex("audit.sh"), timeout=2)],
        },
        {"audit.sh": AUDIT_LOG},
    ),
    codex(
        "ask-unsupported",
        "a guard ported from Claude Code that asks before edits to package manifests",
        {"PreToolUse": [group("apply_patch", run_codex("ask.py"))]},
        {
            "ask.py": answer(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "ask",
                        "permissionDecisionReason": "manifest change",
                    }
                },
                when="package.json",
            )
        },
    ),
    codex(
        "allow-without-input",
        "a policy hook answering permissionDecision allow for safe commands",
        {"PreToolUse": [group("Bash", run_codex("allow.py"))]},
        {
            "allow.py": answer(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "allow",
                    }
                },
                when="ls",
            )
        },
    ),
    codex(
        "legacy-block",
        "the legacy decision/reason answer on PreToolUse",
        {"PreToolUse": [group("Bash", run_codex("legacy.py"))]},
        {"legacy.py": answer({"decision": "block", "reason": "no force pushes"}, when="--force")},
    ),
    codex(
        "exit2-silent",
        "a guard that exits 2 without writing a reason",
        {"PreToolUse": [group("Bash", run_codex("silent.sh"))]},
        {"silent.sh": "#!/bin/sh\ngrep -q 'rm -rf' && exit 2\nexit 0\n"},
    ),
    codex(
        "stop-gate",
        "a Stop quality gate (decision block with a reason until the tests ran), timeout 300",
        {"Stop": [group(None, run_codex("stop.py"), timeout=300)]},
        {"stop.py": STOP_GATE},
    ),
    codex(
        "stop-exit2",
        "a Stop gate that exits 2 with its reason on stderr",
        {"Stop": [group(None, run_codex("stop.sh"), timeout=90)]},
        {"stop.sh": STOP_GATE_EXIT2},
    ),
    codex(
        "prompt-secrets",
        "a UserPromptSubmit scanner that blocks prompts holding API keys",
        {"UserPromptSubmit": [group(None, run_codex("secrets.py"))]},
        {"secrets.py": PROMPT_SECRETS},
    ),
    codex(
        "post-lint",
        "a PostToolUse gate on apply_patch|Edit|Write feeding lint findings back",
        {"PostToolUse": [group("apply_patch|Edit|Write", run_codex("lint.py"), timeout=120)]},
        {"lint.py": LINT_FEEDBACK},
    ),
    codex(
        "mcp-guard",
        "a guard on MCP tools with a regex matcher mcp__.*",
        {"PreToolUse": [group("mcp__.*", run_codex("mcp.py"))]},
        {"mcp.py": answer({"decision": "block", "reason": "no repository deletes"}, when="delete")},
    ),
    codex(
        "unknown-key",
        "a deny answer carrying a key Codex does not know",
        {"PreToolUse": [group("Bash", run_codex("extra.py"))]},
        {
            "extra.py": answer(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": "no",
                    },
                    "severity": "high",
                },
                when="rm -rf",
            )
        },
    ),
    codex(
        "write-edit-aliases",
        "matcher Write|Edit (Claude Code's names) guarding writes; Codex matches apply_patch so",
        {"PreToolUse": [group("Write|Edit", run_codex("paths.py"))]},
        {"paths.py": PATCH_PATHS},
    ),
]

# ----------------------------------------------------------------------------- Factory Droid

FACTORY_CASES = [
    factory(
        "execute-gate",
        'a PreToolUse gate on Execute run as python3 "$FACTORY_PROJECT_DIR"/.factory/hooks/…',
        {"PreToolUse": [group("Execute", f"python3 {run_factory('gate.py')}", timeout=60)]},
        {"gate.py": GUARD_BASH_EXIT2},
    ),
    factory(
        "protect-files",
        "a Create|Edit guard denying writes to secrets files with permissionDecision deny",
        {"PreToolUse": [group("Create|Edit", run_factory("protect.py"))]},
        {"protect.py": PATCH_PATHS},
    ),
    factory(
        "ask-sensitive",
        "a guard asking before manifest edits (permissionDecision ask)",
        {"PreToolUse": [group("Edit|Create", run_factory("ask.py"))]},
        {
            "ask.py": answer(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "ask",
                        "permissionDecisionReason": "sensitive file",
                    }
                },
                when="package.json",
            )
        },
    ),
    factory(
        "bash-matcher",
        "Droid's quickstart shape: matcher Bash, a deny JSON guard",
        {"PreToolUse": [group("Bash", run_factory("deny.py"))]},
        {"deny.py": GUARD_BASH_DENY_JSON},
    ),
    factory(
        "applypatch-only",
        "a PostToolUse check on Create|Edit|ApplyPatch feeding findings back",
        {"PostToolUse": [group("Create|Edit|ApplyPatch", f"python3 {run_factory('lint.py')}")]},
        {"lint.py": LINT_FEEDBACK},
    ),
    factory(
        "stop-gate",
        "a Stop gate with decision block",
        {"Stop": [group(None, run_factory("stop.py"))]},
        {"stop.py": STOP_GATE},
    ),
    factory(
        "prompt-secrets",
        "a UserPromptSubmit scanner",
        {"UserPromptSubmit": [group(None, run_factory("secrets.py"))]},
        {"secrets.py": PROMPT_SECRETS},
    ),
    factory(
        "top-level-events",
        "Droid's hooks.json with its events at the top level (no hooks key), a startup "
        "SessionStart matcher and a guard",
        {
            "SessionStart": [group("startup", run_factory("audit.sh"))],
            "PreToolUse": [group("Execute", run_factory("gate.py"))],
        },
        {"audit.sh": AUDIT_LOG, "gate.py": GUARD_BASH_EXIT2},
        bare=True,
    ),
]

# ----------------------------------------------------------------------------- GitHub Copilot


def cli_hook(script: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "command",
        "bash": f"./.github/hooks/scripts/{script}",
        "powershell": f"./.github/hooks/scripts/{script}.ps1",
        "cwd": ".",
        "timeoutSec": 10,
        **extra,
    }


def vscode_hook(script: str) -> dict[str, Any]:
    return {"type": "command", "command": f"./.github/hooks/scripts/{script}", "timeout": 15}


COPILOT_DENY = """#!/bin/bash
INPUT=$(cat)
if echo "$INPUT" | grep -qE 'rm -rf|--force'; then
  echo '{"permissionDecision":"deny","permissionDecisionReason":"Dangerous command blocked"}'
fi
exit 0
"""

COPILOT_ENV_DENY = """#!/bin/bash
INPUT=$(cat)
ARGS=$(echo "$INPUT" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("toolArgs",""))')
if [ "$BLOCK_MODE" = "deny" ] && echo "$ARGS" | grep -q 'curl'; then
  echo '{"permissionDecision":"deny","permissionDecisionReason":"no downloads piped to a shell"}'
fi
"""

COPILOT_CASES = [
    copilot(
        "block-dangerous-commands",
        "a preToolUse guard with bash and powershell scripts answering permissionDecision deny",
        {"preToolUse": [cli_hook("deny.sh")]},
        {"deny.sh": COPILOT_DENY},
    ),
    copilot(
        "matcher-env",
        "preToolUse with matcher bash, cwd, env BLOCK_MODE and toolArgs read as JSON text",
        {"preToolUse": [cli_hook("env.sh", matcher="bash", env={"BLOCK_MODE": "deny"})]},
        {"env.sh": COPILOT_ENV_DENY},
    ),
    copilot(
        "audit-trail",
        "sessionStart, userPromptSubmitted, postToolUse and sessionEnd loggers",
        {
            "userPromptSubmitted": [cli_hook("log.sh")],
            "postToolUse": [cli_hook("log.sh")],
        },
        {"log.sh": AUDIT_LOG},
    ),
    copilot(
        "allow-and-ask",
        "a preToolUse hook answering allow and ask, which do not act",
        {"preToolUse": [cli_hook("ask.py")]},
        {
            "ask.py": answer(
                {"permissionDecision": "ask", "permissionDecisionReason": "check"}, when="push"
            )
        },
    ),
    copilot(
        "exit-nonzero",
        "a preToolUse script failing with exit 1 and a message on stderr",
        {"preToolUse": [cli_hook("fail.sh")]},
        {"fail.sh": "#!/bin/sh\ncat >/dev/null\necho 'policy server down' >&2\nexit 1\n"},
    ),
    copilot(
        "agent-stop",
        "an agentStop hook keeping the agent working until the tests ran",
        {"agentStop": [cli_hook("stop.py")]},
        {"stop.py": STOP_GATE},
    ),
    copilot(
        "prompt-ignored",
        "a userPromptSubmitted scanner printing a deny (which Copilot ignores there)",
        {"userPromptSubmitted": [cli_hook("prompt.py")]},
        {
            "prompt.py": answer(
                {"permissionDecision": "deny", "permissionDecisionReason": "key"}, when="sk-live"
            )
        },
    ),
    copilot(
        "vscode-exit2",
        "VS Code's PreToolUse command hook blocking with exit 2",
        {"PreToolUse": [vscode_hook("guard.py")]},
        {"guard.py": GUARD_BASH_EXIT2},
    ),
    copilot(
        "vscode-deny-ask",
        "VS Code's hookSpecificOutput.permissionDecision deny and ask",
        {"PreToolUse": [vscode_hook("decide.py")]},
        {
            "decide.py": """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
command = (data.get("tool_input") or {}).get("command", "")
path = (data.get("tool_input") or {}).get("filePath", "")
decision = "deny" if "rm -rf" in command else "ask" if path.endswith("package.json") else None
if decision:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "permissionDecision": decision, "permissionDecisionReason": "policy"}}))
"""
        },
    ),
    copilot(
        "vscode-stop",
        "VS Code's Stop hook with decision block, and continue:false on a prompt",
        {
            "Stop": [vscode_hook("stop.py")],
            "UserPromptSubmit": [vscode_hook("halt.py")],
        },
        {
            "stop.py": STOP_GATE,
            "halt.py": answer({"continue": False, "stopReason": "no secrets"}, when="sk-live"),
        },
    ),
]

CASES: list[Case] = [*CODEX_CASES, *FACTORY_CASES, *COPILOT_CASES]
"""Every case, Codex first."""
