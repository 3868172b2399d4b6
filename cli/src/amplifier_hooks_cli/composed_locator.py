"""Where a key path of a composed bundle was written: in the bundle's own file or in one it
includes (see :mod:`amplifier_hooks_bundle.includes`).

A module entry's key path (``hooks[2].config.level``) is an index into the composed list; it
is mapped to the last file that wrote an entry for that module and the index there
(``behaviors/base.yaml:14: hooks[1].config.level``). A ``session`` key path goes to the last
file that wrote it. Anything else stays in the bundle's own file.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from amplifier_hooks_bundle import MODULE_SECTIONS, Bundle
from amplifier_hooks_util.config_errors import ConfigProblem, key_path

from .locator import Locator

__all__ = ["ComposedLocator", "locator_for"]

Loc = tuple[str | int, ...]


def locator_for(path: Path, bundle: Bundle) -> Locator:
    """A :class:`ComposedLocator` for a bundle composed from includes, else a ``Locator``."""
    return ComposedLocator(path, bundle) if bundle.layers else Locator(path)


class ComposedLocator(Locator):
    """A :class:`~amplifier_hooks_cli.locator.Locator` that follows the includes."""

    def __init__(self, path: Path, bundle: Bundle) -> None:
        super().__init__(path)
        self._bundle = bundle
        self._layers = bundle.layers
        self._own = Locator(path)
        self._files: dict[str, Locator] = {}

    def place(self, loc: Loc) -> tuple[Locator, Loc]:
        """The file's locator and the key path within that file where ``loc`` was written."""
        if not loc or len(self._layers) < 2:
            return self._own, loc
        section = loc[0]
        if section in MODULE_SECTIONS and len(loc) >= 2 and isinstance(loc[1], int):
            entries = getattr(self._bundle, str(section))
            if 0 <= loc[1] < len(entries):
                module = entries[loc[1]].module
                written = [
                    (index, file, found, data[str(section)][found])
                    for index, (file, data) in enumerate(self._layers)
                    if (found := _index_of(data.get(str(section)), module)) is not None
                ]
                # the last file that wrote this very key, else the last that wrote the entry
                chosen = next((w for w in reversed(written) if _has(w[3], loc[2:])), None)
                if chosen is None and written:
                    chosen = written[-1]
                if chosen is not None:
                    index, file, found, _ = chosen
                    return self._at(index, file), (section, found, *loc[2:])
        if section == "session" and len(loc) >= 2:
            for index, (file, data) in reversed(list(enumerate(self._layers))):
                if _has(data, loc[:2]):
                    return self._at(index, file), loc
        return self._own, loc

    def line(self, loc: Loc, *, key: bool = False) -> int | None:
        where, mapped = self.place(loc)
        return where.line(mapped, key=key)

    def __call__(self, loc: Loc, *, key: bool = False) -> str:
        where, mapped = self.place(loc)
        return where(mapped, key=key)

    def render(self, problem: ConfigProblem) -> str:
        """``problem`` (located in the composed bundle) rendered in the file that wrote it."""
        where, mapped = self.place(problem.loc)
        moved = replace(
            problem, key_path=key_path(mapped), line=where.line(mapped, key=problem.key)
        )
        return moved.render(str(where.path))

    def _at(self, index: int, file: str) -> Locator:
        if index == len(self._layers) - 1:
            return self._own  # the bundle's own file, named as the user named it
        if file not in self._files:
            self._files[file] = Locator(Path(file))
        return self._files[file]


def _index_of(entries: Any, module: str) -> int | None:
    if not isinstance(entries, list):
        return None
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("module") == module:
            return index
    return None


def _has(data: Any, loc: Loc) -> bool:
    for part in loc:
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True
