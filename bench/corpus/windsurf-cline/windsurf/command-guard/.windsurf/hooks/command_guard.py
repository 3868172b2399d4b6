#!/usr/bin/env python3
"""Refuse destructive shell commands before Cascade runs them."""

import json
import re
import sys

event = json.load(sys.stdin)
line = event.get("tool_info", {}).get("command_line", "")
RULES = [
    (r"\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r", "recursive force delete"),
    (r"git\s+push\s+.*--force", "force push"),
    (r"curl[^|]*\|\s*(ba)?sh", "piping a download into a shell"),
]
for pattern, what in RULES:
    if re.search(pattern, line):
        print(f"Blocked: {what} ({line})", file=sys.stderr)
        sys.exit(2)
sys.exit(0)
