#!/usr/bin/env python3
"""Keep a transcript of prompts and answers for compliance."""

import json
import sys

event = json.load(sys.stdin)
info = event["tool_info"]
text = info.get("user_prompt", info.get("response", ""))
with open("conversation.log", "a") as log:
    log.write(f"{event['agent_action_name']}: {text}\n")
