"""The hook formats of other tools, each in its own package: how its files are read
(``reader``) and how its hook processes are talked to (``protocol``).

* :mod:`.claude_code`: Claude Code's settings hooks, plugins and marketplaces;
* :mod:`.gemini`: Gemini CLI's ``settings.json`` hooks and extensions;
* :mod:`.cursor`: Cursor's ``hooks.json``;
* :mod:`.codex`: OpenAI Codex CLI's ``hooks.json``;
* :mod:`.factory`: Factory Droid's ``hooks.json`` (its protocol is Claude Code's with Droid's
  tool names);
* :mod:`.copilot`: GitHub Copilot's ``.github/hooks/*.json`` (the CLI's and VS Code's dialects);
* :mod:`.hook_shell`: Amplifier hook-shell's ``.amplifier/hooks/`` layout;
* :mod:`.windsurf`, :mod:`.cline`: Windsurf's and Cline's hooks.

A format imports the package's shared pieces and its runners, never another format. What two
formats have in common is in :mod:`.shared` (Claude Code's protocol, which Factory Droid speaks
too; the transcript path), which is no format and imports none.
"""

__all__: list[str] = []
