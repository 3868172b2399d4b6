#!/usr/bin/env bash
# Starts a background child that would run for minutes, says who is who, and hangs.
sleep 300 &
echo "child=$! self=$$" >&2
if [ -n "$PID_FILE" ]; then echo "child=$! self=$$" > "$PID_FILE"; fi
sleep 300
