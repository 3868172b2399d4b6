"""The runners of the hook types, one module each: ``command`` (:mod:`.command`), ``matcher``
(:mod:`.matcher`), ``llm`` (:mod:`.llm`, its answers cached by :mod:`.llm_cache`), ``prompt``
(:mod:`.prompt_hook`), ``agent`` (:mod:`.agent_hook`) and ``http`` (:mod:`.http_hook`).

Each turns one event into a :class:`~amplifier_module_hooks_declarative.types.Decision`; the
dispatcher imports a runner only when a hook of its type is declared. A runner speaks a hook
format only through :func:`~amplifier_module_hooks_declarative.protocols.command_protocol`,
never by importing it.
"""

__all__: list[str] = []
