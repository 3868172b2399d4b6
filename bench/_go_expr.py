"""A cursor over the tokens of a Go expression, shared by the corpus builders that read rule
samples out of Go sources (``_external_corpus.py``, ``_trufflehog_corpus.py``).

Tokens are ``(kind, text)`` pairs; each builder has its own tokenizer and its own ``term``
(what a literal, a name or a call evaluates to); the cursor and the ``+`` of strings are here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GoExpressions", "Unsupported"]


class Unsupported(Exception):
    """A Go construct the builders do not evaluate; the sample holding it is left out."""


class GoExpressions:
    """Reads expressions from ``tokens``, one after another, from the first."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        """The token ``ahead`` places on, ``("", "")`` past the end."""
        at = self.at + ahead
        return self.tokens[at] if at < len(self.tokens) else ("", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        """The next token, which must read ``value`` when one is given."""
        token = self.peek()
        if value is not None and token[1] != value:
            raise Unsupported(f"expected {value}, got {token}")
        self.at += 1
        return token

    def expr(self) -> Any:
        """A term, or terms joined by ``+`` (strings only)."""
        value = self.term()
        while self.peek()[1] == "+":
            self.take()
            right = self.term()
            if not isinstance(value, str) or not isinstance(right, str):
                raise Unsupported("+ of non-strings")
            value += right
        return value

    def term(self) -> Any:
        """One operand: each builder says what its literals, names and calls are."""
        raise NotImplementedError
