"""``file:line: key.path`` for a key path of a bundle file, for messages about that key."""

from __future__ import annotations

from pathlib import Path

import yaml

__all__ = ["Locator"]


class Locator:
    """Says where a key path of one bundle file is written (the line when it is found).

    The line is that of the deepest part of the path present in the file; a file that cannot
    be read or parsed gives the path without a line.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.root: yaml.Node | None = None
        try:
            text = path.read_text(encoding="utf-8-sig")
            if path.suffix.lower() in (".md", ".markdown"):
                lines = text.splitlines(keepends=True)
                end = next(
                    (i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")),
                    len(lines),
                )
                text = "".join(lines[:end])
            self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        except (OSError, yaml.YAMLError):
            self.root = None

    def __call__(self, loc: tuple[str | int, ...], *, key: bool = False) -> str:
        node = self.root
        found: yaml.Node | None = node
        for position, part in enumerate(loc):
            last = position == len(loc) - 1
            if isinstance(node, yaml.MappingNode):
                pair = next(
                    ((k, v) for k, v in node.value if getattr(k, "value", None) == str(part)),
                    None,
                )
                if pair is None:
                    break
                node = pair[1]
                found = pair[0] if (key and last) else pair[1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if part >= len(node.value):
                    break
                node = found = node.value[part]
            else:
                break
        path = ""
        for part in loc:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
        line = f":{found.start_mark.line + 1}" if found is not None else ""
        return f"{self.path}{line}: {path}"
