#!/usr/bin/env python3
"""PreToolUse validator for Bash commands, in the style of the Claude Code hooks guide."""

import json
import re
import sys

VALIDATION_RULES = [
    (r"\brm\s+-rf\b", "rm -rf is destructive; delete specific files instead"),
    (r"\bgrep\b(?!.*\|)", "Use 'rg' (ripgrep) instead of 'grep' for better performance"),
]


def validate_command(command: str) -> list[str]:
    return [message for pattern, message in VALIDATION_RULES if re.search(pattern, command)]


try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

tool_name = input_data.get("tool_name", "")
tool_input = input_data.get("tool_input", {})
command = tool_input.get("command", "")

if tool_name != "Bash" or not command:
    sys.exit(0)

issues = validate_command(command)
if issues:
    for message in issues:
        print(f"• {message}", file=sys.stderr)
    # Exit code 2 blocks the tool call and shows stderr to Claude
    sys.exit(2)
