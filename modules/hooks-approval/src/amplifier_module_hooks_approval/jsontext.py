"""JSON text of any depth: ``json.dumps`` where it can, the same text built with a stack where
nesting goes past Python's recursion limit (a tool input nested 10,000 levels deep)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps"]


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def dumps(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> str:
    """``json.dumps(value, sort_keys=..., ensure_ascii=..., default=str)``, at any depth."""
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
