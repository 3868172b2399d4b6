#!/usr/bin/env python3
"""Written as for another tool: answers in JSON on stdout and exits 0."""

import json
import sys

line = json.load(sys.stdin)["tool_info"]["command_line"]
if "rm " in line:
    print(json.dumps({"decision": "deny", "reason": "no rm"}))
