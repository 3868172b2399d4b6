"""Event data of any depth: JSON text and copies made with a stack instead of recursion.

A tool input or output nested deeper than Python's recursion limit (a parser's AST, a JSON
document 10,000 levels deep) must not break the modules that show, match or copy it.
:func:`dumps` and :func:`tree_copy` give what ``json.dumps`` and a deep copy give, at any
depth; :func:`cut_depth` cuts what lies below a depth away, for a reader that stops there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["cut_depth", "dumps", "tree_copy"]


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def dumps(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> str:
    """``json.dumps(value, sort_keys=..., ensure_ascii=..., default=str)``, at any depth: the
    C encoder where it can, the same text built with a stack where nesting goes past the
    recursion limit."""
    try:
        return json.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii, default=str)
    except RecursionError:
        pass
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, Mapping):
            out.append("{")
            stack.append(_Raw("}"))
            keys = sorted(item, key=str) if sort_keys else list(item)
            for index in range(len(keys) - 1, -1, -1):
                stack.append(item[keys[index]])
                name = json.dumps(str(keys[index]), ensure_ascii=ensure_ascii)
                stack.append(_Raw(("" if index == 0 else ", ") + name + ": "))
        elif isinstance(item, list | tuple):
            out.append("[")
            stack.append(_Raw("]"))
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                if index:
                    stack.append(_Raw(", "))
        elif item is None or isinstance(item, bool | int | float | str):
            out.append(json.dumps(item, ensure_ascii=ensure_ascii))
        else:
            out.append(json.dumps(str(item), ensure_ascii=ensure_ascii))
    return "".join(out)


def tree_copy(value: Any) -> Any:
    """A deep copy of dicts, lists and tuples (tuples come back as lists, as JSON carries
    them), made with a stack instead of recursion, so any depth is copied; a container that
    contains itself is copied once. Other values are shared (strings, numbers and the like
    are immutable)."""
    holder: list[Any] = [None]
    memo: dict[int, Any] = {}
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        item, parent, key = stack.pop()
        made = memo.get(id(item))
        if made is not None:
            parent[key] = made
        elif isinstance(item, dict):
            new: Any = dict.fromkeys(item)
            memo[id(item)] = parent[key] = new
            stack.extend((v, new, k) for k, v in item.items())
        elif isinstance(item, list | tuple):
            new = [None] * len(item)
            memo[id(item)] = parent[key] = new
            stack.extend((v, new, i) for i, v in enumerate(item))
        else:
            parent[key] = item
    return holder[0]


def cut_depth(value: Any, limit: int, marker: str) -> Any:
    """``value`` with containers deeper than ``limit`` levels replaced by ``marker`` (a copy
    of the dicts, lists and tuples above that depth; tuples come back as lists)."""
    if limit <= 0:
        return marker if isinstance(value, dict | list | tuple) else value
    if isinstance(value, dict):
        return {k: cut_depth(v, limit - 1, marker) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [cut_depth(v, limit - 1, marker) for v in value]
    return value
