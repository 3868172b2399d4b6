#!/usr/bin/env python3
"""Asks the human before anything touches production."""

import json
import sys

event = json.load(sys.stdin)
print(
    json.dumps({"action": "ask", "message": f"Run {event['args'].get('command')!r} on production?"})
)
