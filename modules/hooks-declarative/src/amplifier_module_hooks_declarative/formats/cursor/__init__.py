"""Cursor: its hook protocol (:mod:`.protocol`) and its ``hooks.json`` (:mod:`.reader`)."""

__all__: list[str] = []
