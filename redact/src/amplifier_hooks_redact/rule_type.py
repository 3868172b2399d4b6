"""The redaction rule type: what a rule is (its patterns, the selector that turns a match into
the span to replace), and the names of the rule families that other modules treat apart. The
built-in rules themselves are in :mod:`.rules`.

A leaf: the scanner, the rules and the finders of recovered text all import it, and it
imports none of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from .lazy import PatternLike

__all__ = ["RECOVERING_RULES", "TOKEN_RULES", "Category", "Rule", "Selector", "Span"]

Span = tuple[int, int]
Selector = Callable[[str, "re.Match[str]"], "Span | None"]
Category = Literal["secret", "pii", "custom"]

RECOVERING_RULES: Final = frozenset({"encoded_secret", "split_token"})
"""Rules that recover text from a match and scan it again."""

TOKEN_RULES: Final = frozenset(
    {
        *("jwt", "aws_access_key_id", "github_token", "gitlab_token", "slack_token"),
        *("google_api_key", "stripe_key", "anthropic_api_key", "openai_api_key"),
        *("vendor_token", "private_key"),
    }
)
"""Rules whose matches are whole tokens with a shape of their own."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret or PII: how to find it and which part of a match to replace.

    ``patterns`` run on the text, or on ``text.lower()`` when ``lowered`` is set (so that
    ``PASSWORD=`` and ``password=`` are one literal; ``ignorecase`` holds the same patterns
    compiled case-insensitively for the rare text whose lower-case form changes length).
    ``select`` returns the span to replace, in the original text, or ``None`` to reject the
    match.

    ``starts`` (optional, for a rule of one pattern without a literal trigger): Hyperscan
    expressions, each with a width, such that the pattern can only match at position 0 or at
    ``end - width`` for some match of one of them ending at ``end``. Where Hyperscan runs, the
    pattern is then tried only there instead of being searched through the whole text.
    """

    name: str
    category: Category
    summary: str
    patterns: tuple[PatternLike, ...]
    select: Selector
    lowered: bool = False
    ignorecase: tuple[PatternLike, ...] = ()
    starts: tuple[tuple[str, int], ...] = ()
