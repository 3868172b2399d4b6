#!/bin/sh
# A command hook for PostToolUse: appends each tool call's event (JSON on stdin) to a file in
# the project, one line per call.
mkdir -p "$AMPLIFIER_PROJECT_DIR/.amplifier"
{ cat; echo; } >> "$AMPLIFIER_PROJECT_DIR/.amplifier/tool-calls.jsonl"
