"""What became of each gated event in a hooks-logging log, for ``logs show`` to print on its line.

hooks-logging writes an event when its handler runs, before the hooks after it decide; a deny
ends the chain, so the decision is a later record of its own. :func:`decisions` reads a run of
records and returns, for each record a later one decided, the words for its line:

- ``denied by HOOK: REASON``: a ``policy:violation`` record whose ``event`` is that event (the
  latest undecided one of that name, and of the same ``tool_name`` when both carry one);
- ``approved (ANSWER)`` / ``not approved (ANSWER)``: an ``approval:granted`` /
  ``approval:denied`` record for it (a deny that follows still wins);
- ``ran`` / ``ran, the tool failed``: the ``tool:post`` / ``tool:error`` record with the same
  ``tool_call_id`` as a ``tool:pre`` nothing else decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["decisions"]

_VIOLATION: Final = "policy:violation"
_APPROVALS: Final = {"approval:granted": "approved", "approval:denied": "not approved"}
_RAN: Final = {"tool:post": "ran", "tool:error": "ran, the tool failed"}
_DECIDING: Final = frozenset({_VIOLATION, *_APPROVALS, *_RAN})


def _data(record: Mapping[str, Any]) -> Mapping[str, Any]:
    data = record.get("data")
    return data if isinstance(data, Mapping) else {}


def _tool(data: Mapping[str, Any]) -> object:
    return data.get("tool_name") or data.get("tool")


def decisions(records: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """Record index -> what became of that event (see the module docstring)."""
    found: dict[int, str] = {}
    pending: dict[str, list[int]] = {}  # event -> undecided records of it, oldest first
    tools: dict[int, object] = {}
    calls: dict[object, int] = {}  # tool_call_id -> its undecided tool:pre
    for index, record in enumerate(records):
        event = str(record.get("event", ""))
        data = _data(record)
        if event not in _DECIDING:
            if event == "tool:pre" and data.get("tool_call_id") is not None:
                calls[data["tool_call_id"]] = index
            waiting = pending.setdefault(event, [])
            waiting.append(index)
            del waiting[:-64]  # a violation follows its event closely: keep the recent ones
            tools[index] = _tool(data)
            continue
        if event in _RAN:
            pre = calls.pop(data.get("tool_call_id"), None)
            if pre is not None:
                found.setdefault(pre, _RAN[event])
                _forget(pending, "tool:pre", pre)
            continue
        target = _latest(pending, str(data.get("event", "")), _tool(data), tools)
        if target is None:
            continue
        if event == _VIOLATION:
            hook = data.get("hook") or "a hook"
            reason = data.get("reason")
            found[target] = f"denied by {hook}" + (f": {reason}" if reason else "")
            _forget(pending, str(data.get("event", "")), target)
        else:
            answer = data.get("answer") or data.get("decision")
            found[target] = _APPROVALS[event] + (f" ({answer})" if answer else "")
    return found


def _latest(
    pending: Mapping[str, list[int]], event: str, tool: object, tools: Mapping[int, object]
) -> int | None:
    for index in reversed(pending.get(event, ())):
        if tool is None or tools.get(index) is None or tools[index] == tool:
            return index
    return None


def _forget(pending: dict[str, list[int]], event: str, index: int) -> None:
    waiting = pending.get(event)
    if waiting and index in waiting:
        waiting.remove(index)
