#!/usr/bin/env python3
"""Adds a note to the agent's context; KEY chooses the key the note is sent under."""

import json
import os
import sys

json.load(sys.stdin)
key = os.environ.get("KEY", "context")
print(json.dumps({"action": "allow", key: "Remember: the test suite runs with -x"}))
