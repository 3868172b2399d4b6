#!/usr/bin/env bash
# Starts a child in a session of its own (outside the hook's process group, its output
# pointed elsewhere), says who is who, and hangs.
setsid sleep 300 > /dev/null 2>&1 < /dev/null &
echo "child=$! self=$$" >&2
sleep 300
