#!/usr/bin/env bash
# Log each command before and after it runs; complain (exit 2) after a failing one.
line=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_info"]["command_line"])')
echo "$1 $line" >> commands.log
if [ "$1" = post ]; then
  echo "logged" >&2
  exit 2
fi
