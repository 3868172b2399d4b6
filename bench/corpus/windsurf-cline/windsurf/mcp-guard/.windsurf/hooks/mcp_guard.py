#!/usr/bin/env python3
"""No destructive calls to the production database server; log every MCP call."""

import json
import sys

event = json.load(sys.stdin)
info = event["tool_info"]
with open("mcp-calls.log", "a") as log:
    log.write(f"{event['agent_action_name']} {info['mcp_server_name']}.{info['mcp_tool_name']}\n")
if info["mcp_server_name"] == "prod-db" and info["mcp_tool_name"].startswith(("drop", "delete")):
    print(f"{info['mcp_tool_name']} on prod-db needs a change request", file=sys.stderr)
    sys.exit(2)
