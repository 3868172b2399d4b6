"""The hook formats of other tools, each in its own package: how its files are read
(``reader``) and how its hook processes are talked to (``protocol``).

* :mod:`.claude_code`: Claude Code's settings hooks, plugins and marketplaces;
* :mod:`.gemini`: Gemini CLI's ``settings.json`` hooks and extensions;
* :mod:`.cursor`: Cursor's ``hooks.json``;
* :mod:`.codex`: OpenAI Codex CLI's ``hooks.json``;
* :mod:`.factory`: Factory Droid's ``hooks.json`` (its protocol builds on Claude Code's);
* :mod:`.copilot`: GitHub Copilot's ``.github/hooks/*.json`` (the CLI's and VS Code's dialects);
* :mod:`.hook_shell`: Amplifier hook-shell's ``.amplifier/hooks/`` layout.

A format imports the package's shared pieces and its runners, never another format (but
Factory Droid's protocol, which is Claude Code's with Droid's tool names).
"""

__all__: list[str] = []
