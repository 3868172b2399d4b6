"""Amplifier's merge rules for composing bundles: a later bundle overrides an earlier one.

The rules are those of amplifier-foundation's ``Bundle.compose``:

- ``session`` and ``spawn``: deep-merged (mappings merged key by key, lists concatenated
  without repeats, any other value replaced by the later one);
- ``providers``, ``tools``, ``hooks``: merged by module id: a later entry for a module already
  listed is deep-merged into it where it stands; a new module is appended;
- ``agents`` and ``context``: merged by name, the later definition wins (an ``include:``
  list of agent names accumulates);
- ``instruction``: a later non-empty instruction replaces the earlier one;
- ``bundle`` (name, version, description): the later value wins where it is given.

:func:`compose` applies them to plain mappings (a bundle as written, ``includes`` aside).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["MODULE_LISTS", "compose", "deep_merge", "merge_module_lists"]

MODULE_LISTS: Final = ("providers", "tools", "hooks")
_BY_NAME: Final = ("agents", "context")
_NOT_MERGED: Final = frozenset({"includes", "instruction", *MODULE_LISTS, *_BY_NAME})


def deep_merge(earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    """``later`` over ``earlier``: mappings merged recursively, lists concatenated without
    repeats (earlier items first), anything else replaced. Neither input is changed."""
    result = dict(earlier)
    for key, value in later.items():
        before = result.get(key)
        if isinstance(before, Mapping) and isinstance(value, Mapping):
            result[key] = deep_merge(before, value)
        elif isinstance(before, list) and isinstance(value, list):
            result[key] = _union(before, value)
        else:
            result[key] = value
    return result


def merge_module_lists(
    earlier: Iterable[Mapping[str, Any]], later: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Module entries merged by ``module`` id, in first-listed order (see the module doc)."""
    by_id: dict[str, dict[str, Any]] = {}
    for entry in (*earlier, *later):
        module_id = str(entry.get("module", ""))
        before = by_id.get(module_id)
        by_id[module_id] = dict(entry) if before is None else deep_merge(before, entry)
    return list(by_id.values())


def compose(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Each bundle mapping of ``parts`` composed over the ones before it."""
    result: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if key in _NOT_MERGED:
                continue
            before = result.get(key)
            if isinstance(before, Mapping) and isinstance(value, Mapping):
                result[key] = deep_merge(before, value)
            else:
                result[key] = value
        for section in MODULE_LISTS:
            if part.get(section):
                result[section] = merge_module_lists(result.get(section, ()), part[section])
        for section in _BY_NAME:
            if isinstance(part.get(section), Mapping):
                result[section] = _by_name(result.get(section, {}), part[section])
        if part.get("instruction"):
            result["instruction"] = part["instruction"]
    return result


def _by_name(earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    """Later definitions win by name; an ``include:`` list of names accumulates (foundation
    reads each listed name as one more definition)."""
    merged = {**earlier, **later}
    before, after = earlier.get("include"), later.get("include")
    if isinstance(before, list) and isinstance(after, list):
        merged["include"] = _union(before, after)
    return merged


def _union(earlier: list[Any], later: list[Any]) -> list[Any]:
    seen: set[tuple[type, str]] = set()
    merged: list[Any] = []
    for item in (*earlier, *later):
        try:
            marker = (type(item), json.dumps(item, sort_keys=True, default=str))
        except (TypeError, ValueError):
            merged.append(item)
            continue
        if marker not in seen:
            seen.add(marker)
            merged.append(item)
    return merged
