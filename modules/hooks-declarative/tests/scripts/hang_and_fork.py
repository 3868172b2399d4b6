#!/usr/bin/env python3
"""Forks a child that keeps running (and never reaps it), reports the pids, and hangs."""

import os
import sys
import time

child = os.fork()
if child == 0:
    time.sleep(300)
    os._exit(0)
print(f"child={child} self={os.getpid()}", file=sys.stderr, flush=True)
time.sleep(300)
