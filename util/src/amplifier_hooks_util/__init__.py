"""Pieces several amplifier-hooks modules share, each in a submodule of its own.

Import the submodule you need (``amplifier_hooks_util.process``, ``.yaml_locations``,
``.config_errors``, ``.state`` ...); this package re-exports nothing, so importing one piece
never loads another. It imports no kernel: the modules that use it run on amplifier-core 2.0.2
too.
"""

__all__: list[str] = []
