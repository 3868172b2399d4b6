#!/usr/bin/env python3
"""Turns `rm` into a move to .trash: action modify with the new arguments."""

import json
import sys

event = json.load(sys.stdin)
args = dict(event["args"])
args["command"] = args["command"].replace("rm ", "mv -t .trash ", 1)
print(
    json.dumps({"action": "modify", "modified_args": args, "message": "rm became a move to .trash"})
)
