#!/usr/bin/env bash
# Answers at once but leaves a background job holding stdout open.
cat > /dev/null
sleep 300 &
echo "child=$!" >&2
echo '{"action": "allow"}'
