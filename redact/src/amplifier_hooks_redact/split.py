"""Tokens split across a string concatenation or a line break.

``"ghp_abc" + "def..."``, ``'sk-ant-' 'api03...'`` (adjacent literals), ``"..." .. "..."``,
a literal continued on the next line, or a bare token wrapped onto the next line: the pattern
starts at a known token prefix and takes up to :data:`MAX_PIECES` fragments joined by a
concatenation or a line break. The fragments are joined and scanned with the token rules;
when a token found there starts at the prefix and runs past the first fragment, the span
from the prefix to the end of that token (in the original text, joiners included) is
replaced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from .lazy import lazy_compile

__all__ = ["MAX_FRAGMENT", "MAX_PIECES", "split_patterns", "split_selector"]

MAX_PIECES: Final = 8
MAX_FRAGMENT: Final = 1024

_PREFIXES: Final = (
    *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xapp-", "AKIA", "ASIA"),
    *("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
    *("sk-", "AIza", "sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_", "hf_"),
    *("npm_", "SG\\."),
    *("pypi-", "glc_", "dop_v1_", "shpat_", "lin_api_", "eyJ", "AGE-SECRET-KEY-"),
)
_FRAGMENT: Final = r"[A-Za-z0-9_.+/=-]"


# Between two fragments: a closing quote, an operator (+ . .. & || ~) or none (adjacent
# literals), a line break or not, an opening quote. A comma (the items of a list that is
# joined: ["ghp_", "..."].join("")) joins only a whole prefix or a cut one to what follows:
# after a whole token, a comma starts the next item of a list.
def _after_quote(operator: str) -> str:
    return (
        rf"""[ \t]*{operator}[ \t]*"""
        rf"""(?:(?:\\?\r?\n|(?:\\r)?\\n)[ \t]*{operator}[ \t]*)?\\?["'`]"""
    )


_AFTER_QUOTE: Final = _after_quote(r"(?:\+|\.\.?|&|\|\||~)?")
_AFTER_QUOTE_OR_COMMA: Final = _after_quote(r"(?:\+|\.\.?|&|\|\||~|,)?")
_QUOTED_JOIN: Final = r"""\\?["'`]""" + _AFTER_QUOTE
_BARE_JOIN: Final = r"\\?\r?\n[ \t]*"  # a line break, or a backslash and a line break
_JOIN: Final = f"(?:{_QUOTED_JOIN}|{_BARE_JOIN})"
_JOINER: Final = lazy_compile(f"""(?:\\\\?["'`]{_AFTER_QUOTE_OR_COMMA}|{_BARE_JOIN})""")
# Per prefix, the shortest whole token after it: a token that long is the token rules' to
# take, so a bare line break after it joins nothing (the common case: a token, then a line).
_WHOLE_BODY: Final = {
    **{f"gh{kind}_": "[A-Za-z0-9]{36}" for kind in "pousr"},
    "github_pat_": "[A-Za-z0-9_]{22}",
    "glpat-": "[\\w-]{20}",
    **{f"xox{kind}-": "[\\w-]{10}" for kind in "abposre"},
    "xapp-": "[\\w-]{10}",
    "AKIA": "[A-Z0-9]{16}",
    "ASIA": "[A-Z0-9]{16}",
    "sk-": "[\\w-]{20}",
    "AIza": "[\\w-]{35}",
    "sk_live_": "[A-Za-z0-9]{10}",
    "rk_live_": "[A-Za-z0-9]{10}",
    "sk_test_": "[A-Za-z0-9]{10}",
    "rk_test_": "[A-Za-z0-9]{10}",
    "whsec_": "[A-Za-z0-9]{32}",
    "hf_": "[A-Za-z]{30}",
    "npm_": "[A-Za-z0-9]{36}",
    "SG\\.": "[\\w-]{22}\\.",
    "pypi-": "[\\w-]{50}",
    "glc_": "[A-Za-z0-9+/]{32}",
    "dop_v1_": "[a-f0-9]{64}",
    "shpat_": "[a-fA-F0-9]{32}",
    "lin_api_": "[A-Za-z0-9]{40}",
    "eyJ": "[\\w-]+\\.eyJ",
    "AGE-SECRET-KEY-": "1[A-Z0-9]{58}",
}
_LONG_ENOUGH: Final = lazy_compile("|".join(p + b for p, b in _WHOLE_BODY.items()))
_STARTS_TOKEN: Final = lazy_compile("|".join(_PREFIXES))


def split_patterns() -> tuple[str, ...]:
    """Quoted joins after any prefix; bare line breaks only after a token cut short."""
    prefixes = "|".join(_PREFIXES)
    cut_short = "|".join(f"{prefix}(?!{body})" for prefix, body in _WHOLE_BODY.items())
    pieces = f"{{1,{MAX_PIECES}}}"
    # Possessive runs: a joiner never starts with a fragment's character, so nothing is
    # given back to it (no backtracking through a token's characters).
    # Fragments are bounded (:data:`MAX_FRAGMENT`), so a candidate costs at most a few KB.
    first = f"{_FRAGMENT}{{0,{MAX_FRAGMENT}}}+"
    more = f"{_FRAGMENT}{{1,{MAX_FRAGMENT}}}+"
    # A prefix itself cut by the join ("gh" + "p_...", 'AK' 'IA...'): its first two or more
    # characters and a closing quote (the literal triggers), the join, then the rest of it.
    rests: dict[str, set[str]] = {}
    for prefix in _PREFIXES:
        plain = prefix.replace("\\", "")
        for n in range(2, len(plain)):
            rests.setdefault(plain[:n], set()).add(plain[n:])
    heads = sorted(
        f"{re.escape(head)}{slash}{quote}{_AFTER_QUOTE_OR_COMMA}"
        f"(?={'|'.join(re.escape(rest) for rest in sorted(rests[head]))})"
        for head in rests
        for quote in "\"'`"
        for slash in ("", "\\\\")
    )
    cut = [
        f"(?:{'|'.join(heads[i : i + _ALTERNATIVES])}){more}"
        f"(?:{_QUOTED_JOIN}{more}){{0,{MAX_PIECES}}}"
        for i in range(0, len(heads), _ALTERNATIVES)
    ]
    return (
        f"(?:{prefixes}){first}(?:{_QUOTED_JOIN}{more}){pieces}",
        # A whole prefix as one item of a list: ["ghp_", "..."].
        f"""(?:{prefixes})\\\\?["'`]{_after_quote(",")}{more}"""
        f"(?:{_QUOTED_JOIN}{more}){{0,{MAX_PIECES}}}",
        f"(?:{cut_short}){first}(?:{_JOIN}{more}){pieces}",
        *cut,
    )


_ALTERNATIVES: Final = 60  # literal triggers per pattern (the trigger reader takes 64)


def split_selector(
    find_tokens: Callable[[str], Sequence[tuple[int, int, str]]],
) -> Callable[[str, re.Match[str]], tuple[int, int] | None]:
    """The selector of the split-token rule: the fragments of a match joined, and scanned by
    ``find_tokens`` (the whole-token rules, :class:`.inner.Finder`)."""

    def select(text: str, match: re.Match[str]) -> tuple[int, int] | None:
        start, end = match.span()
        pieces: list[tuple[int, int]] = []
        position = start
        for joiner in _JOINER.finditer(text, start, end):
            pieces.append((position, joiner.start()))
            position = joiner.end()
            if any(quote in joiner.group() for quote in "\"'`"):
                continue
            # A bare line break joins only a token cut short, and only with a line that does not
            # start a token of its own.
            if _STARTS_TOKEN.match(text, position) or _LONG_ENOUGH.match(
                "".join(text[a:b] for a, b in pieces)
            ):
                position = -1
                break
        if position >= 0:
            pieces.append((position, end))
        if len(pieces) < 2:
            return None
        joined = "".join(text[a:b] for a, b in pieces)
        first = pieces[0][1] - pieces[0][0]
        for hit_start, hit_end, _ in find_tokens(joined):
            if hit_start != 0:
                break
            if hit_end <= first:
                return None  # whole in the first fragment: the token rules take it
            offset = 0
            for a, b in pieces:
                if hit_end <= offset + (b - a):
                    return start, a + hit_end - offset
                offset += b - a
        return None

    return select
