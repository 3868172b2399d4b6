"""Finders of secrets in text recovered from inside a match: decoded blobs, joined fragments.

A :class:`Finder` scans with the rules it is given, compiled into a scanner when first used:
the rules that recover text hand one to their selectors (:func:`.encoded.encoded_selector`,
:func:`.split.split_selector`), so those modules never import the rules or the scanner.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from .rule_type import Rule
from .scanner import TextRedactor

__all__ = ["Finder"]


class Finder:
    """``find(text)``: the spans the chosen rules would replace in ``text``, in text order.

    :param chosen: the rules, asked for when the first text is scanned (the rule table that
        holds the recovering rules is complete by then).
    """

    __slots__ = ("_chosen", "_lock", "_scanner")

    def __init__(self, chosen: Callable[[], Sequence[Rule]]) -> None:
        self._chosen = chosen
        self._lock = threading.Lock()
        self._scanner: TextRedactor | None = None

    def __call__(self, text: str) -> list[tuple[int, int, str]]:
        scanner = self._scanner
        if scanner is None:
            with self._lock:
                if self._scanner is None:
                    self._scanner = TextRedactor(list(self._chosen()))
                scanner = self._scanner
        return scanner.find(text)
