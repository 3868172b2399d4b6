#!/usr/bin/env python3
"""Crashes the way real scripts crash: a traceback on stderr and exit code 1."""

import json
import sys

event = json.load(sys.stdin)
print("checking", event["tool"], file=sys.stderr)
raise KeyError("config_path")
