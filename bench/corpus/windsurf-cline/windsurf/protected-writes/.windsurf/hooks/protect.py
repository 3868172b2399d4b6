#!/usr/bin/env python3
"""Lock files and CI workflows are edited by humans only."""

import json
import os
import sys

info = json.load(sys.stdin)["tool_info"]
path = info["file_path"]
name = os.path.basename(path)
if name in ("package-lock.json", "poetry.lock", "Cargo.lock") or "/.github/workflows/" in path:
    sys.stderr.write(f"{name} is protected; edit it by hand\n")
    sys.exit(2)
