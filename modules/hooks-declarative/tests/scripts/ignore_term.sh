#!/usr/bin/env bash
# Ignores SIGTERM (and so does the child it starts): only SIGKILL ends it.
trap '' TERM
sleep 300 &
echo "child=$! self=$$" >&2
sleep 300
