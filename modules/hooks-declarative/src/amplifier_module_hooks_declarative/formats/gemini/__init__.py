"""Gemini CLI: its hook protocol (:mod:`.protocol`), its ``settings.json`` hooks
(:mod:`.reader`) and its extensions (:mod:`.extensions`)."""

__all__: list[str] = []
