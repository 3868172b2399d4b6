"""Where each inline hook of a composed bundle was written: its file and line.

A module entry's inline ``hooks`` (hooks-declarative's config) may come from several files
of a composition (``includes:``): mappings are merged key by key and lists concatenated
without repeats (:mod:`.merge`), so an entry's index in the composed list is not its index
in the file that wrote it. :func:`composed_inline_origins` finds, for each item of each list
of the composed ``hooks``, the last file of the composition whose entry for the same module
holds an equal item at the same place, and takes that file's lines for it (its key paths
renamed to the composed index); a mapping's own key takes the line of the last file that
wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from amplifier_hooks_util.config_errors import key_path

from .bundle import Bundle

__all__ = ["InlineOrigins", "composed_inline_origins"]

_Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class InlineOrigins:
    """The line of each key path of one entry's composed inline ``hooks`` and the file it is
    in (``hooks.PreToolUse[0]``: 12, in ``/work/base.yaml``)."""

    lines: dict[str, int]
    files: dict[str, str]


@dataclass(frozen=True, slots=True)
class _Writer:
    file: str
    hooks: Any
    lines: Mapping[str, int]


def composed_inline_origins(
    layers: Sequence[tuple[str, Bundle]], composed: Bundle
) -> dict[int, InlineOrigins]:
    """For each ``hooks`` entry of ``composed`` (by index) whose config declares ``hooks``
    inline: where each of its key paths was written among ``layers`` (each file of the
    composition and its bundle as read, in composition order)."""
    found: dict[int, InlineOrigins] = {}
    for index, entry in enumerate(composed.hooks):
        hooks = entry.config.get("hooks")
        if not isinstance(hooks, dict | list):
            continue
        writers = [
            _Writer(file, written.config.get("hooks"), bundle.inline_hook_lines.get(number, {}))
            for file, bundle in layers
            for number, written in enumerate(bundle.hooks)
            if written.module == entry.module and number in bundle.inline_hook_lines
        ]
        if not writers:
            continue
        origins = InlineOrigins({}, {})
        _walk(("hooks",), hooks, writers, origins)
        if origins.lines:
            found[index] = origins
    return found


def _at(value: Any, loc: _Loc) -> Any:
    """The value at ``loc`` (under ``hooks``) of a writer's ``hooks``; ``None``: not there."""
    for part in loc[1:]:
        if isinstance(part, int):
            if not isinstance(value, list) or part >= len(value):
                return None
        elif not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _walk(loc: _Loc, value: Any, writers: list[_Writer], origins: InlineOrigins) -> None:
    here = key_path(loc)
    for writer in reversed(writers):  # the key itself: the last file that wrote it
        line = writer.lines.get(here)
        if line is not None:
            origins.lines[here] = line
            origins.files[here] = writer.file
            break
    if isinstance(value, dict):
        for key, item in value.items():
            _walk((*loc, str(key)), item, writers, origins)
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _take_item((*loc, number), item, writers, origins)


def _take_item(loc: _Loc, item: Any, writers: list[_Writer], origins: InlineOrigins) -> None:
    """A list item: the lines of the equal item of the last file holding one at that list."""
    for writer in reversed(writers):
        written = _at(writer.hooks, loc[:-1])
        if not isinstance(written, list):
            continue
        try:
            position = written.index(item)
        except ValueError:
            continue
        old = key_path((*loc[:-1], position))
        new = key_path(loc)
        for path, line in writer.lines.items():
            if path == old or path.startswith((old + ".", old + "[")):
                renamed = new + path[len(old) :]
                origins.lines[renamed] = line
                origins.files[renamed] = writer.file
        return
