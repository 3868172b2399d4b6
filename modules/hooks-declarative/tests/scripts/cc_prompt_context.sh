#!/usr/bin/env bash
# UserPromptSubmit / SessionStart: plain stdout becomes context for Claude.
cat > /dev/null
echo "Current branch: main"
echo "Open issues: 3"
