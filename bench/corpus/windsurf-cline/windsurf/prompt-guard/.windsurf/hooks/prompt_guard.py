#!/usr/bin/env python3
"""Stop prompts that paste API keys into the conversation."""

import json
import re
import sys

prompt = json.load(sys.stdin)["tool_info"]["user_prompt"]
if re.search(r"\b(sk-[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16})\b", prompt):
    print("Your prompt contains what looks like an API key; remove it first.", file=sys.stderr)
    sys.exit(2)
