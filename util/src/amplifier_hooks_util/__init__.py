"""Pieces several amplifier-hooks modules share, each in a submodule of its own.

Import the submodule you need (``amplifier_hooks_util.process``, ``.yaml_locations``,
``.config_errors``, ``.http``); this package re-exports nothing, so importing one piece never
loads another.
"""

__all__: list[str] = []
