#!/usr/bin/env python3
"""Writes what it received (stdin bytes, cwd, environment) to RECORD_TO, then lets it through."""

import json
import os
import sys

raw = sys.stdin.buffer.read()
with open(os.environ["RECORD_TO"], "w", encoding="utf-8") as out:
    json.dump({"stdin": raw.decode("utf-8"), "cwd": os.getcwd(), "env": dict(os.environ)}, out)
print('{"action": "allow"}')
