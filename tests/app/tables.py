"""A table's title as one line, however the terminal wrapped it.

Rich wraps a table's title to the table's width: a title holding a long path (amplifier's
``session list`` prints ``Sessions for Current Project (<the working directory's slug>)``)
takes two or more lines, at a place that depends on the path's length, and a path cut in two
is no longer recognised (and replaced by its placeholder) when outputs are compared.
:func:`unwrap_titles` puts each title back on one line: the fragments of a line filled to the
table's width are joined without a space (a word folded in two), the others with one.
"""

from __future__ import annotations

import itertools

__all__ = ["unwrap_titles"]

_TOP_BORDER = frozenset("┏┓┳━┌┐┬─╭╮╔╗╦═╒╕╤")
_CORNERS = frozenset("┏┌╭╔╒")


def _is_top_border(line: str) -> bool:
    text = line.rstrip()
    return len(text) > 1 and text[0] in _CORNERS and set(text) <= _TOP_BORDER


def unwrap_titles(text: str) -> str:
    """``text`` with the title above each table on one line, centred as before when it fits
    (see the module docstring); everything else unchanged."""
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        if not _is_top_border(line):
            out.append(line)
            continue
        width = len(line.rstrip())
        start = len(out)
        while start > 0 and len(out[start - 1]) == width and out[start - 1].strip():
            if _is_top_border(out[start - 1]):
                break
            start -= 1
        fragments = [f.strip() for f in out[start:]]
        if len(fragments) > 1:
            title = fragments[0]
            for previous, fragment in itertools.pairwise(fragments):
                title += ("" if len(previous) >= width else " ") + fragment
            out[start:] = [title.center(width) if len(title) <= width else title]
        out.append(line)
    return "\n".join(out)
