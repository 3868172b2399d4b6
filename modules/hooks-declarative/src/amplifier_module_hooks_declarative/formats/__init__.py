"""The hook formats of other tools, each in its own package: how its files are read
(``reader``) and how its hook processes are talked to (``protocol``).

* :mod:`.claude_code`: Claude Code's settings hooks, plugins and marketplaces;
* :mod:`.gemini`: Gemini CLI's ``settings.json`` hooks and extensions;
* :mod:`.cursor`: Cursor's ``hooks.json``;
* :mod:`.hook_shell`: Amplifier hook-shell's ``.amplifier/hooks/`` layout.

A format imports the package's shared pieces and its runners, never another format.
"""

__all__: list[str] = []
