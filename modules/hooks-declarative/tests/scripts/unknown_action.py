#!/usr/bin/env python3
import json
import sys

json.load(sys.stdin)
print(json.dumps({"action": "maybe", "message": "not sure"}))
