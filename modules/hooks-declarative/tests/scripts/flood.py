#!/usr/bin/env python3
"""Prints about 5 MB: to stdout as the start of a JSON answer, or to stderr with exit 2."""

import sys

blob = "x" * (5 * 1024 * 1024)
if sys.argv[1:] == ["stderr"]:
    sys.stderr.write("blocked: " + blob)
    sys.exit(2)
sys.stdout.write('{"action": "allow", "message": "' + blob + '"}')
