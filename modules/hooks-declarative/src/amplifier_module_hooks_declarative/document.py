"""Hooks as read from a source: documents, event blocks, groups and entries, and the problems
that make a source invalid (:class:`HooksConfigError`, naming file, line and key path)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from .config import MODULE_ID
from .specs import HookSpec

__all__ = [
    "EventHooks",
    "HookEntry",
    "HookGroup",
    "HooksConfigError",
    "HooksDocument",
    "Problem",
    "Step",
]


# --------------------------------------------------------------------------- parsed hooks


@dataclass(frozen=True, slots=True)
class HookEntry:
    """One hook as declared, with the label naming where it came from
    (``~/.amplifier/hooks.yaml:hooks.PreToolUse[1]``)."""

    spec: HookSpec
    label: str
    loc: tuple[str | int, ...] = ()
    """The entry's key path in its source (``("hooks", "PreToolUse", 1)``)."""
    line: int | None = None
    """The line of the entry's ``command`` (else the entry) in its file, when read from one."""
    condition: str | None = None
    """Claude Code's ``if``: a permission rule (:mod:`.permission_rules`); the hook is started
    only for tool calls it matches, and never on events without a tool."""


@dataclass(frozen=True, slots=True)
class HookGroup:
    """Hooks that run as one step: concurrently when ``parallel``; only for tools matching
    ``matcher`` (Claude Code's rules) when it is set."""

    hooks: tuple[HookEntry, ...]
    parallel: bool
    matcher: str | None
    label: str
    written: str | None = None
    """The matcher as its file wrote it, when ``matcher`` is a translation of it (another
    tool's names); what ``hooks list`` shows."""
    joint: bool = False
    """Runs at once with the event's other joint groups that match, every hook to its end
    even when one denies, as Claude Code and Gemini CLI run every matching hook of an event
    (:mod:`.dispatch`)."""
    ends_on_answer: bool = False
    """hook-shell's rule: the first hook of such groups that injects context or changes the
    arguments ends the event's later groups of this kind (other tools' hooks still run)."""


Step = HookEntry | HookGroup


@dataclass(frozen=True, slots=True)
class EventHooks:
    """The steps declared for one event key in one source, in declaration order.

    ``name`` is the key as written (``PreToolUse``, ``Stop``, ``tool:pre``); ``event`` the
    canonical event or ``*:error``.
    """

    name: str
    event: str
    steps: tuple[Step, ...]
    source: str


@dataclass(frozen=True, slots=True)
class HooksDocument:
    """Everything one source declares, in declaration order."""

    source: str
    events: tuple[EventHooks, ...]

    def entries(self) -> Iterator[HookEntry]:
        """Every hook of the document, groups flattened."""
        for block in self.events:
            for step in block.steps:
                yield from (step.hooks if isinstance(step, HookGroup) else (step,))

    def with_entries(self, change: Callable[[HookEntry], HookEntry]) -> HooksDocument:
        """This document with every hook replaced by ``change(entry)``, groups kept."""

        def step(item: Step) -> Step:
            if isinstance(item, HookGroup):
                return replace(item, hooks=tuple(change(e) for e in item.hooks))
            return change(item)

        events = tuple(
            replace(block, steps=tuple(step(s) for s in block.steps)) for block in self.events
        )
        return replace(self, events=events)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a hooks source."""

    message: str
    key_path: str | None = None
    line: int | None = None
    loc: tuple[str | int, ...] = ()
    """The key path as keys and indexes, relative to the source's root."""
    key: bool = False
    """The problem is the key at ``loc`` itself (an unknown name), not its value."""


class HooksConfigError(ValueError):
    """A hooks source is unreadable or invalid; the message names file, line and key path."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = sorted(problems, key=lambda p: p.line or 0)
        super().__init__(self._render())

    def _render(self) -> str:
        lines = [self._one(p) for p in self.problems]
        if len(lines) == 1:
            return f"{MODULE_ID}: {lines[0]}"
        return f"{MODULE_ID}: {self.source}: {len(lines)} problems:\n  " + "\n  ".join(lines)

    def _one(self, problem: Problem) -> str:
        where = self.source if problem.line is None else f"{self.source}:{problem.line}"
        if problem.key_path:
            where += f": {problem.key_path}"
        return f"{where}: {problem.message}"
