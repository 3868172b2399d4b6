"""The rules that scan text recovered from inside a match: decoded blobs, joined fragments.

Built once, on first use, from the built-in rules without the rules that decode or join
(so recovered text is decoded once, never again).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .scanner import TextRedactor

__all__ = ["RECOVERING_RULES", "TOKEN_RULES", "secret_scanner", "token_scanner"]

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


@functools.cache
def secret_scanner() -> TextRedactor:
    """Every built-in secret rule except the recovering ones."""
    from .rules import BUILTIN_RULES
    from .scanner import TextRedactor

    return TextRedactor(
        [r for r in BUILTIN_RULES if r.category == "secret" and r.name not in RECOVERING_RULES]
    )


@functools.cache
def token_scanner() -> TextRedactor:
    """The rules for tokens with a shape of their own (:data:`TOKEN_RULES`)."""
    from .rules import BUILTIN_RULES
    from .scanner import TextRedactor

    return TextRedactor([r for r in BUILTIN_RULES if r.name in TOKEN_RULES])
