#!/usr/bin/env python3
"""A gate whose linter is not installed: it fails with exit 1 on Python files."""

import json
import sys

path = json.load(sys.stdin)["tool_info"]["file_path"]
if path.endswith(".py"):
    print("pylint: command not found", file=sys.stderr)
    sys.exit(1)
