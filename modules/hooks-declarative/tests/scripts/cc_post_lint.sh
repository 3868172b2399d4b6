#!/usr/bin/env bash
# PostToolUse on Write|Edit: complains on stderr with exit 2 when the file has a TODO.
input=$(cat)
file=$(printf '%s' "$input" | python3 -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["file_path"])')
if grep -q TODO "$file"; then
  echo "lint: $file still contains TODO" >&2
  exit 2
fi
exit 0
