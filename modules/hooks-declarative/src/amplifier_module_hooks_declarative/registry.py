"""The plugins: hook formats and hook types, found through two entry-point groups.

* ``amplifier_hooks.formats``: one entry point per other tool's hook format, named as its
  ``protocol`` (``gemini = "amplifier_module_hooks_declarative.formats.gemini"``), whose value
  is a module (or package) defining ``FORMAT`` (a :class:`~.source.HookFormat`) and either
  ``PROTOCOL`` or a ``protocol`` submodule defining it (a
  :class:`~.protocols.CommandProtocol`): see :mod:`.protocols`.
* ``amplifier_hooks.runners``: one entry point per hook type, named as the ``type`` of its
  hooks (``command = "amplifier_module_hooks_declarative.runners.builtin:COMMAND"``), whose
  value is a :class:`~.runner_plugins.RunnerPlugin`: see :mod:`.runner_plugins`.

This package's own formats and hook types are entry points of its ``pyproject.toml``, declared
exactly as another distribution declares its own; they come first, in the order of
:data:`BUILTIN` (installed metadata lists entry points by name, and the order of the formats is
the order their files are read in), then every other distribution's, by distribution and name.
A name declared twice is an error naming both distributions.

The entry points are read once per process, the first time a format or a hook type is asked
for (:func:`plugins`); nothing is imported until a plugin is loaded (:meth:`Plugin.load`),
which happens only for the formats a session reads and the hook types its files declare. When
this package runs from its source without its distribution installed (its folder on
``PYTHONPATH``), its own entry points are taken from :data:`BUILTIN`, which a test holds equal to
the ``pyproject.toml``.

A plugin that cannot be loaded raises :class:`PluginError`, naming the entry point and its
distribution: the hooks it would have run are never silently dropped.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "BUILTIN",
    "DISTRIBUTION",
    "FORMATS_GROUP",
    "GROUPS",
    "RUNNERS_GROUP",
    "Plugin",
    "PluginError",
    "find_plugin",
    "plugins",
    "refresh_plugins",
]

FORMATS_GROUP: Final = "amplifier_hooks.formats"
"""The entry-point group of hook formats: name = protocol name, value = the format's module."""

RUNNERS_GROUP: Final = "amplifier_hooks.runners"
"""The entry-point group of hook types: name = the hooks' ``type``, value = a runner plugin."""

GROUPS: Final = (FORMATS_GROUP, RUNNERS_GROUP)

DISTRIBUTION: Final = "amplifier-module-hooks-declarative"
"""This package's distribution, whose entry points come first."""

_PACKAGE: Final = "amplifier_module_hooks_declarative"
BUILTIN: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    FORMATS_GROUP: (
        ("claude-code", f"{_PACKAGE}.formats.claude_code"),
        ("gemini", f"{_PACKAGE}.formats.gemini"),
        ("cursor", f"{_PACKAGE}.formats.cursor"),
        ("codex", f"{_PACKAGE}.formats.codex"),
        ("factory", f"{_PACKAGE}.formats.factory"),
        ("copilot", f"{_PACKAGE}.formats.copilot"),
        ("windsurf", f"{_PACKAGE}.formats.windsurf"),
        ("cline", f"{_PACKAGE}.formats.cline"),
        ("hook-shell", f"{_PACKAGE}.formats.hook_shell"),
    ),
    RUNNERS_GROUP: (
        ("command", f"{_PACKAGE}.runners.builtin:COMMAND"),
        ("matcher", f"{_PACKAGE}.runners.builtin:MATCHER"),
        ("llm", f"{_PACKAGE}.runners.builtin:LLM"),
        ("prompt", f"{_PACKAGE}.runners.builtin:PROMPT"),
        ("agent", f"{_PACKAGE}.runners.builtin:AGENT"),
        ("http", f"{_PACKAGE}.runners.builtin:HTTP"),
        ("mcp_tool", f"{_PACKAGE}.runners.builtin:MCP_TOOL"),
        ("unreadable", f"{_PACKAGE}.runners.builtin:UNREADABLE"),
    ),
}
"""This package's own entry points, in the order its ``pyproject.toml`` declares them (a test
keeps the two equal): the order of its formats, and its entry points when its distribution is
not installed."""


class PluginError(ValueError):
    """A plugin that cannot be used: the entry point, its distribution, and why."""


@dataclass(frozen=True, slots=True)
class Plugin:
    """One entry point of :data:`GROUPS`; :meth:`load` imports it (once)."""

    group: str
    name: str
    value: str
    distribution: str
    _loaded: list[object] = field(default_factory=list, compare=False, repr=False)
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """What its group's readers found in it (its format's protocol), kept with it: a plugin
    read again (:func:`refresh_plugins`) is looked at afresh."""

    @property
    def origin(self) -> str:
        """How errors name it: ``entry point 'gemini = pkg.mod' of amplifier-x (group ...)``."""
        return (
            f"entry point {self.name!r} = {self.value!r} of distribution "
            f"{self.distribution!r} (group {self.group!r})"
        )

    def load(self) -> object:
        """The object the entry point names, imported on first use.

        :raises PluginError: it cannot be imported, naming the entry point and distribution.
        """
        if self._loaded:
            return self._loaded[0]
        entry = importlib.metadata.EntryPoint(self.name, self.value, self.group)
        try:
            found = entry.load()
        except Exception as err:
            raise PluginError(
                f"{_PACKAGE}: the {self.origin} cannot be loaded: {type(err).__name__}: {err}"
            ) from err
        self._loaded.append(found)
        return found

    def fail(self, problem: str) -> PluginError:
        """The error for a plugin that loaded but is not what its group asks for."""
        return PluginError(f"{_PACKAGE}: the {self.origin} {problem}")


_read: dict[str, tuple[Plugin, ...]] = {}


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-")


def _name_of(dist: importlib.metadata.Distribution) -> str:
    """The distribution's name, from its folder's name when it has one (reading its
    ``METADATA`` costs a millisecond or two)."""
    found = getattr(dist, "_normalized_name", None) or dist.metadata["Name"]
    return _canonical(str(found)) if found else "an unknown distribution"


def _declaring() -> list[tuple[str, importlib.metadata.EntryPoints]]:
    """Each installed distribution that declares entry points of :data:`GROUPS`, once (the
    first on ``sys.path`` of a name), with its entry points: only those are parsed."""
    seen: set[str] = set()
    found: list[tuple[str, importlib.metadata.EntryPoints]] = []
    for dist in importlib.metadata.distributions():
        text = dist.read_text("entry_points.txt")
        if not text or "[amplifier_hooks." not in text:
            continue
        name = _name_of(dist)
        if name not in seen:
            seen.add(name)
            found.append((name, dist.entry_points))
    return found


def _read_groups() -> dict[str, tuple[Plugin, ...]]:
    """Every entry point of :data:`GROUPS`: this package's first, in the order of
    :data:`BUILTIN` (from it when its distribution is not installed), then the others'."""
    own: dict[str, list[Plugin]] = {group: [] for group in GROUPS}
    others: dict[str, list[Plugin]] = {group: [] for group in GROUPS}
    for dist, entries in _declaring():
        for group in GROUPS:
            for entry in entries.select(group=group):
                plugin = Plugin(group, entry.name, entry.value, dist)
                (own if dist == DISTRIBUTION else others)[group].append(plugin)
    read: dict[str, tuple[Plugin, ...]] = {}
    for group in GROUPS:
        rank = {name: index for index, (name, _value) in enumerate(BUILTIN[group])}
        mine = sorted(own[group], key=lambda p: (rank.get(p.name, len(rank)), p.name)) or [
            Plugin(group, name, value, DISTRIBUTION) for name, value in BUILTIN[group]
        ]
        rest = sorted(others[group], key=lambda p: (p.distribution, p.name))
        read[group] = _unique(group, [*mine, *rest])
    return read


def _unique(group: str, found: list[Plugin]) -> tuple[Plugin, ...]:
    by_name: dict[str, Plugin] = {}
    for plugin in found:
        first = by_name.get(plugin.name)
        if first is not None and first.value != plugin.value:
            raise PluginError(
                f"{_PACKAGE}: {plugin.name!r} is declared twice in group {group!r}: by "
                f"{first.distribution!r} ({first.value}) and by {plugin.distribution!r} "
                f"({plugin.value}); uninstall one of them"
            )
        by_name.setdefault(plugin.name, plugin)
    return tuple(by_name.values())


def plugins(group: str) -> tuple[Plugin, ...]:
    """The entry points of ``group``, read once per process (see the module docstring).

    :raises PluginError: a name is declared twice.
    """
    if not _read:
        _read.update(_read_groups())
    return _read[group]


def find_plugin(group: str, name: str) -> Plugin | None:
    """The entry point called ``name`` in ``group``, or ``None``."""
    return next((p for p in plugins(group) if p.name == name), None)


def refresh_plugins() -> None:
    """Read the entry points again at the next use: after a distribution was installed or
    removed in a running process."""
    _read.clear()
