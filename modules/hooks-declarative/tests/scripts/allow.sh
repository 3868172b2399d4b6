#!/usr/bin/env bash
# Lets every event through, with a note for the user.
cat > /dev/null
echo '{"action": "allow", "modified_args": null, "message": "looks fine"}'
