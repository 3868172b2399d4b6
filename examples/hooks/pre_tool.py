"""A command hook for PreToolUse: blocks shell commands that touch .env files.

The event arrives as JSON on stdin (hooks-declarative's ``amplifier`` protocol); the decision
goes to stdout as JSON. Nothing on stdout means "go on".
"""

import json
import sys

event = json.load(sys.stdin)
command = str(event.get("args", {}).get("command", ""))
if ".env" in command:
    json.dump(
        {"action": "block", "message": "commands that touch .env files need a human"}, sys.stdout
    )
