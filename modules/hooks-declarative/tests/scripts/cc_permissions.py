#!/usr/bin/env python3
"""PreToolUse permission policy answered with hookSpecificOutput JSON."""

import json
import sys

data = json.load(sys.stdin)
tool = data.get("tool_name")
tool_input = data.get("tool_input", {})


def answer(decision, reason, updated=None):
    output = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }
    if updated is not None:
        output["updatedInput"] = updated
    print(json.dumps({"hookSpecificOutput": output}))
    sys.exit(0)


if tool == "Bash":
    command = tool_input.get("command", "")
    if command.startswith("git push --force "):
        safer = dict(tool_input, command=command.replace("--force", "--force-with-lease", 1))
        answer("allow", "force push rewritten to --force-with-lease", safer)
    if "deploy" in command:
        answer("ask", "This deploys to production. Continue?")
    if command.startswith("npm test"):
        answer("allow", "tests are always fine")
    if "curl" in command:
        answer("deny", "network access is not allowed in this repository")
if tool in ("Write", "Edit"):
    path = tool_input.get("file_path", "")
    if path.endswith(".env"):
        answer("deny", f"{path} holds secrets")
    if path.endswith(".md") and tool == "Write":
        updated = dict(tool_input, content=tool_input.get("content", "").rstrip() + "\n")
        answer("allow", "trailing whitespace trimmed", updated)
sys.exit(0)
