"""``file:line: key.path`` for a key path of a bundle file, for messages about that key."""

from __future__ import annotations

from pathlib import Path

import yaml
from amplifier_hooks_util.config_errors import key_path
from amplifier_hooks_util.yaml_locations import YamlDocument

__all__ = ["Locator"]


class Locator:
    """Says where a key path of one bundle file is written (the line when it is found).

    The line is that of the deepest part of the path present in the file; a file that cannot
    be read or parsed gives the path without a line. The file is read as
    :class:`~amplifier_hooks_util.yaml_locations.YamlDocument` reads it: alias cycles and deep
    nesting cannot hang it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.document: YamlDocument | None = None
        try:
            text = path.read_text(encoding="utf-8-sig")
            if path.suffix.lower() in (".md", ".markdown"):
                lines = text.splitlines(keepends=True)
                end = next(
                    (i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")),
                    len(lines),
                )
                text = "".join(lines[:end])  # the front matter, its "---" line kept
            self.document = YamlDocument.positions(text)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            self.document = None

    def line(self, loc: tuple[str | int, ...], *, key: bool = False) -> int | None:
        """The 1-based line of ``loc`` (or of its deepest part in the file), if known."""
        return self.document.line_of(loc, key=key) if self.document is not None else None

    def __call__(self, loc: tuple[str | int, ...], *, key: bool = False) -> str:
        line = self.line(loc, key=key)
        return f"{self.path}{f':{line}' if line else ''}: {key_path(loc)}"
