#!/usr/bin/env python3
"""Blocks destructive shell commands with a JSON answer; lets everything else through."""

import json
import sys

event = json.load(sys.stdin)
command = (event.get("args") or {}).get("command", "")
if event.get("tool") == "bash" and "rm -rf" in command:
    print(json.dumps({"action": "block", "message": f"refusing to run: {command}"}))
else:
    print(json.dumps({"action": "allow", "modified_args": None, "message": None}))
