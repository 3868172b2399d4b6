#!/usr/bin/env bash
# PreToolUse hook on Bash: no jq on this machine, so python3 reads the JSON.
input=$(cat)
command=$(printf '%s' "$input" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("tool_input", {}).get("command", ""))')
if [[ "$command" == *"rm -rf"* ]]; then
  echo "Blocked: rm -rf is not allowed in this repository" >&2
  exit 2
fi
exit 0
