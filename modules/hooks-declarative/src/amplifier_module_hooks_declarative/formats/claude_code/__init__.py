"""Claude Code: its hook protocol (:mod:`.protocol`) and its plugins and marketplaces
(:mod:`.plugins`)."""

__all__: list[str] = []
