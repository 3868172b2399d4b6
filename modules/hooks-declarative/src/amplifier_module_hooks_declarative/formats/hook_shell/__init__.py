"""Amplifier hook-shell: Claude-Code-format ``hooks.json`` files in the module's own
``.amplifier/hooks/`` directories (:mod:`.reader`); its commands speak ``protocol: hook-shell``
(:mod:`.protocol`: Claude Code's stdin, hook-shell's reading of the answer).
Its files lie beside the module's own hooks files, so :mod:`...sources` reads them there
(``hook_shell: false`` turns them off) rather than at a fixed path of ``FORMAT``."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat

__all__ = ["FORMAT"]

FORMAT: Final = HookFormat(name="hook-shell", switch="hook_shell")
