"""Another tool's matcher, written on its own tool names, as a matcher on ours.

Codex, Factory Droid and GitHub Copilot match a hook's ``matcher`` against their own tool
names (``apply_patch``, ``Execute``, ``bash``), sometimes under several names at once (Codex
matches an ``apply_patch`` call as ``apply_patch``, ``Write`` and ``Edit``).
:func:`translated_matcher` decides, for each of our tools the format names, whether the other
tool would run the hook, and writes that decision as a matcher string that
:func:`~.patterns.compile_claude_matcher` reads: our accepted tool names exactly, and any other
tool (an MCP tool, a tool of a module) under its own name with the written rule, never under
its Claude Code name (which the other tool does not use).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal

from .patterns import CLAUDE_TOOL_NAMES, tool_names

__all__ = ["MatchRule", "composed_matcher", "translated_matcher"]

MatchRule = Literal["claude", "regex", "full"]
"""How the other tool reads a matcher: ``claude`` (Claude Code's rule, which Codex and
Factory Droid follow: letters, digits, ``_`` and ``|`` list exact names, anything else is a
regular expression searched in the name), ``regex`` (always a regular expression, searched),
``full`` (a regular expression that must match the whole name)."""

_SIMPLE: Final = re.compile(r"[A-Za-z0-9_|]+")
_NOTHING: Final = "^(?!)"


def _test(pattern: str, rule: MatchRule) -> tuple[Callable[[str], bool], str] | None:
    """The other tool's test of one name, and the same test as a regular expression
    anchored at the start of a name; ``None``: the expression is invalid (it matches no
    tool, as in Codex, which skips such a hook)."""
    if rule == "claude" and _SIMPLE.fullmatch(pattern):
        wanted = frozenset(part for part in pattern.split("|") if part)
        alternatives = "|".join(map(re.escape, sorted(wanted))) or "(?!)"
        return (lambda name: name in wanted), f"(?:{alternatives})$"
    try:
        compiled = re.compile(pattern)
    except re.error:
        return None
    if rule == "full":
        return (lambda name: compiled.fullmatch(name) is not None), f"(?:{pattern})$"
    return (lambda name: compiled.search(name) is not None), f".*?(?:{pattern})"


def translated_matcher(
    pattern: str | None, theirs: Mapping[str, tuple[str, ...]], rule: MatchRule
) -> str | None:
    """A matcher on our tool names accepting a tool exactly when the other tool would run a
    hook whose matcher is ``pattern``: for each of our tools in ``theirs`` (ours -> the names
    the other tool matches it under, the first its own name), when any of those names
    passes; any other tool under its own name. ``None``: every tool (an empty matcher, or
    ``*``)."""
    if pattern is None or pattern.strip() in ("", "*"):
        return None
    found = _test(pattern, rule)
    if found is None:
        return _NOTHING
    test, expression = found
    accepted = sorted(ours for ours, names in theirs.items() if any(map(test, names)))
    # any other tool is matched under our name for it alone, never under a Claude Code alias
    claude_aliases = {alias for names in CLAUDE_TOOL_NAMES.values() for alias in names}
    known = sorted({alias for ours in theirs for alias in tool_names(ours)} | claude_aliases)
    return composed_matcher(accepted, known, expression)


def composed_matcher(accepted: Sequence[str], known: Sequence[str], others: str) -> str:
    """A matcher on our tool names accepting exactly the ``accepted`` names, and a name
    outside ``known`` when the expression ``others`` matches at its start (``others`` alone
    if it cannot be nested: inline global flags)."""
    rest = f"(?!(?:{'|'.join(map(re.escape, known))})$){others}"
    branches = [f"(?:{'|'.join(map(re.escape, accepted))})$"] if accepted else []
    composed = "^(?:" + "|".join([*branches, rest]) + ")"
    try:
        re.compile(composed)
    except re.error:  # an expression that cannot be nested (inline global flags)
        return "^(?:" + "|".join(branches or ["(?!)"]) + ")"
    return composed
