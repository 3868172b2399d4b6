"""The hook formats of the registry (:data:`~.registry.FORMATS_GROUP`) a session reads: each
format's ``FORMAT`` (a :class:`~.source.HookFormat`: its hooks files and how to read them),
loaded only when the config has not switched it off.

A format's switch is the config key named as the format with ``_`` for ``-``
(``cursor: false``, ``claude_code: false``): a format switched off is not even imported. A
format may also name its switch itself (:attr:`~.source.HookFormat.switch`), checked once it
is loaded.
"""

from __future__ import annotations

from typing import Final

from .config import DeclarativeConfig
from .registry import FORMATS_GROUP, Plugin, plugins
from .source import HookFormat, SourceKind

__all__ = ["BASE_PROJECT_KINDS", "hook_format", "hook_formats", "is_project_kind"]

BASE_PROJECT_KINDS: Final[frozenset[SourceKind]] = frozenset(
    {"project", "hook-shell", "project-plugin"}
)
"""The module's own kinds of sources that come with the project."""

_project_kinds: set[SourceKind] = set(BASE_PROJECT_KINDS)


def _switch_of(name: str) -> str:
    return name.replace("-", "_")


def _switched_on(settings: DeclarativeConfig, key: str | None) -> bool:
    return key is None or bool(getattr(settings, key, True))


def hook_format(plugin: Plugin) -> HookFormat:
    """The ``FORMAT`` of a format's module, imported on first use.

    :raises ~.registry.PluginError: it cannot be imported, defines no ``HookFormat`` or one of
        another name.
    """
    known = plugin.memo.get("format")
    if isinstance(known, HookFormat):
        return known
    declared = getattr(plugin.load(), "FORMAT", None)
    if not isinstance(declared, HookFormat):
        raise plugin.fail("defines no FORMAT (a HookFormat)")
    if declared.name != plugin.name:
        raise plugin.fail(f"defines the format {declared.name!r} under the name {plugin.name!r}")
    _project_kinds.update(declared.project_kinds)
    plugin.memo["format"] = declared
    return declared


def hook_formats(settings: DeclarativeConfig) -> list[HookFormat]:
    """The formats ``settings`` reads, in the registry's order; those switched off are not
    imported.

    :raises ~.registry.PluginError: a format cannot be loaded (naming its entry point and
        distribution): its hooks are never silently left out.
    """
    found: list[HookFormat] = []
    for plugin in plugins(FORMATS_GROUP):
        if not _switched_on(settings, _switch_of(plugin.name)):
            continue
        loaded = hook_format(plugin)
        if _switched_on(settings, loaded.switch):
            found.append(loaded)
    return found


def is_project_kind(kind: SourceKind) -> bool:
    """Whether a source of ``kind`` comes with the project rather than from the user or the
    bundle: the module's own project kinds and those of every format loaded (a source of a
    format's kind exists only once its format is)."""
    return kind in _project_kinds
