#!/usr/bin/env bash
# Publishing happens in CI only; run from tools/hooks (working_directory).
line=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_info"]["command_line"])')
echo "$line" >> release-checks.log
case "$line" in
  *"npm publish"*|*"twine upload"*) echo "Releases are published by CI" >&2; exit 2 ;;
esac
