#!/usr/bin/env python3
"""Saves the hook input and environment to RECORD_TO; prints nothing."""

import json
import os
import sys

data = json.load(sys.stdin)
with open(os.environ["RECORD_TO"], "w", encoding="utf-8") as out:
    json.dump({"input": data, "cwd": os.getcwd(), "env": dict(os.environ)}, out)
