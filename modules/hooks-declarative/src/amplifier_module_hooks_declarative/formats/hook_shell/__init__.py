"""Amplifier hook-shell: Claude-Code-format ``hooks.json`` files in ``.amplifier/hooks/``
(:mod:`.reader`)."""

__all__: list[str] = []
