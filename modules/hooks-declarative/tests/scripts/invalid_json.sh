#!/usr/bin/env bash
cat > /dev/null
echo '{"action": "allow", "message": '
