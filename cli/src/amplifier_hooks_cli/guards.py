"""The guards a bundle declares, for coverage: every declarative hook (by label, with its
event, matcher and ``required`` flag) and every handler its Python hook modules register, and
the hook sources that would not be loaded, with why."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from amplifier_hooks_bundle import load_bundle

from amplifier_core.receipts import names

from .commands.hooks import _survey, declarative_module
from .coverage import Guard
from .module_hooks import module_handlers

__all__ = ["bundle_guards"]

MODULE_ID: Final = "hooks-declarative"
_TOOL_EVENTS: Final = frozenset({"tool:pre", "tool:post", "tool:error"})


def _accepts(
    declarative: ModuleType, matcher: str | None, tool: str | None
) -> Callable[[str], bool] | None:
    """Whether a hook with group ``matcher`` and ``match.tool`` rule ``tool`` is due for a
    tool name, as hooks-declarative decides it."""
    if matcher is None and tool is None:
        return None
    checks: list[Callable[[str], bool]] = []
    if matcher is not None:
        checks.append(declarative.compile_claude_matcher(matcher))
    if tool is not None:
        checks.append(declarative.compile_tool_pattern(tool))
    return lambda name: all(check(name) for check in checks)


def bundle_guards(
    bundle_path: Path, project: Path | None
) -> tuple[list[Guard], list[tuple[str, str]]]:
    """``(guards, not loaded)`` of the bundle at ``bundle_path`` (module docstring)."""
    bundle = load_bundle(bundle_path)
    required = list(bundle.session.require_guards)

    def is_required(name: str) -> bool:
        return any(names(name, pattern) for pattern in required)

    guards: list[Guard] = []
    unloaded: list[tuple[str, str]] = []
    python: list[tuple[str, Any]] = []
    for index, entry in enumerate(bundle.hooks):
        where = f"{bundle_path}: hooks[{index}]"
        if entry.module != MODULE_ID:
            python.append((where, entry))
            continue
        declarative = declarative_module(entry)
        survey = _survey(entry, project)
        for hook in survey.hooks:
            tool_event = hook.event in _TOOL_EVENTS
            guards.append(
                Guard(
                    name=hook.label,
                    event=hook.event,
                    kind="declarative",
                    where=hook.source,
                    matcher=hook.matcher,
                    tool=hook.tool,
                    required=bool(getattr(hook, "required", False)) or is_required(hook.label),
                    accepts=_accepts(declarative, hook.matcher, hook.tool) if tool_event else None,
                )
            )
        unloaded.extend((item.what, item.reason) for item in survey.skipped)
    if python:
        base_dir = bundle_path.resolve().parent
        scratch = (project or Path.cwd()).expanduser().resolve()
        for shown in asyncio.run(module_handlers(python, base_dir=base_dir, project=scratch)):
            if shown.note is not None and not shown.handlers:
                if shown.note.startswith("did not mount"):
                    unloaded.append((f"module {shown.module_id}", shown.note))
                continue
            for handler in shown.handlers:
                guards.append(
                    Guard(
                        name=handler.handler,
                        event=handler.event,
                        kind="handler",
                        where=f"module {shown.module_id}",
                        required=is_required(handler.handler),
                    )
                )
    return guards, unloaded
