#!/usr/bin/env bash
# Keep Cascade away from credentials files.
path=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_info"]["file_path"])')
case "$(basename "$path")" in
  .env|.env.*|id_rsa|*.pem|credentials.json)
    echo "Reading $(basename "$path") is not allowed" >&2
    exit 2 ;;
esac
exit 0
