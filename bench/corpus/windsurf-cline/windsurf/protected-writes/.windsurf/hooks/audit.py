#!/usr/bin/env python3
"""Record every file Cascade changed, with how many edits."""

import json
import os
import sys

event = json.load(sys.stdin)
info = event["tool_info"]
root = os.getcwd()
with open(os.path.join(root, "windsurf-edits.log"), "a") as log:
    rel = os.path.relpath(info["file_path"], root)
    log.write(f"{event['agent_action_name']} {rel} {len(info.get('edits', []))}\n")
