"""Validators that decide whether a pattern match is really a secret or a piece of PII.

Patterns find candidates cheaply; these functions reject the candidates that only look alike:
card-shaped numbers that fail the Luhn check or carry no card network prefix, phone-shaped digit
groups with an impossible digit count, keys that read like words rather than random tokens, and
assignment values that are code, placeholders or earlier redactions.
"""

from __future__ import annotations

import re
import string
from typing import Final

from .lazy import lazy_compile

__all__ = [
    "beside_hex_group",
    "is_card_number",
    "is_credential_word",
    "is_filler",
    "is_patterned",
    "is_placeholder",
    "is_plain_code_value",
    "looks_random",
    "luhn_valid",
    "phone_digit_count_ok",
]

_DIGITS: Final = frozenset("0123456789")
_A_DIGIT: Final = re.compile("[0-9]")


# Each digit doubled, as Luhn counts it: the sum of the digits of its double.
_DOUBLED: Final = str.maketrans("0123456789", "0246813579")


def luhn_valid(digits: str) -> bool:
    """True when the string of ASCII digits passes the Luhn (mod 10) check."""
    kept = digits[-1::-2]
    doubled = digits[-2::-2].translate(_DOUBLED)
    # The sum of a digit string's bytes, less 48 ("0") per digit, is the sum of its digits.
    total = sum(kept.encode()) + sum(doubled.encode()) - 48 * len(digits)
    return total % 10 == 0


# (prefix range low, prefix range high, prefix length, allowed card lengths) per card network.
_NETWORKS: Final[tuple[tuple[int, int, int, frozenset[int]], ...]] = (
    (4, 4, 1, frozenset({13, 16, 19})),  # Visa
    (51, 55, 2, frozenset({16})),  # Mastercard
    (2221, 2720, 4, frozenset({16})),  # Mastercard 2-series
    (34, 34, 2, frozenset({15})),  # American Express
    (37, 37, 2, frozenset({15})),  # American Express
    (6011, 6011, 4, frozenset(range(16, 20))),  # Discover
    (644, 649, 3, frozenset(range(16, 20))),  # Discover
    (65, 65, 2, frozenset(range(16, 20))),  # Discover
    (3528, 3589, 4, frozenset(range(16, 20))),  # JCB
    (300, 305, 3, frozenset(range(14, 20))),  # Diners Club
    (36, 36, 2, frozenset(range(14, 20))),  # Diners Club
    (38, 39, 2, frozenset(range(16, 20))),  # Diners Club
    (62, 62, 2, frozenset(range(16, 20))),  # UnionPay
    (50, 50, 2, frozenset(range(12, 20))),  # Maestro
    (56, 58, 2, frozenset(range(12, 20))),  # Maestro
)


def _prefix_lengths() -> dict[str, frozenset[int]]:
    """The card lengths allowed after each network prefix (the prefixes do not overlap)."""
    table: dict[str, frozenset[int]] = {}
    for low, high, width, lengths in _NETWORKS:
        for prefix in range(low, high + 1):
            table[str(prefix).zfill(width)] = lengths
    return table


_PREFIX_LENGTHS: Final = _prefix_lengths()
_PREFIX_WIDTHS: Final = sorted({len(prefix) for prefix in _PREFIX_LENGTHS})
_NETWORK_FIRST: Final = frozenset(prefix[0] for prefix in _PREFIX_LENGTHS)
"""The digits a card number can start with (no network's prefix starts with 0, 1, 7, 8 or 9)."""


def is_card_number(candidate: str) -> bool:
    """True for 13-19 digits (spaces and dashes ignored) with a card network prefix and Luhn."""
    digits = candidate.replace(" ", "").replace("-", "")
    if digits[:1] not in _NETWORK_FIRST:  # most numbers (epoch times, ids) end here
        return False
    length = len(digits)
    if not 13 <= length <= 19 or not digits.isascii() or not digits.isdigit():
        return False
    for width in _PREFIX_WIDTHS:
        lengths = _PREFIX_LENGTHS.get(digits[:width])
        if lengths is not None:
            return length in lengths and luhn_valid(digits)
    return False


_HEX: Final = frozenset("0123456789abcdefABCDEF")


def _hex_token(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` is hex digits standing alone (not part of a longer word)."""
    if start < 0 or end > len(text) or not all(char in _HEX for char in text[start:end]):
        return False
    before_ok = start == 0 or not text[start - 1].isalnum()
    after_ok = end == len(text) or not text[end].isalnum()
    return before_ok and after_ok


def _hex_groups(text: str, position: int, width: int, step: int) -> int:
    """How many (0-2) lone ``width``-digit hex groups follow one another from ``position``.

    ``step`` -1 walks left from a span's start, +1 walks right from its end; groups are
    separated by one space.
    """
    found = 0
    while found < 2:
        if step < 0:
            start, end = position - 1 - width, position - 1
            if text[end : end + 1] != " " or not _hex_token(text, start, end):
                break
            position = start
        else:
            start, end = position + 1, position + 1 + width
            if text[position : position + 1] != " " or not _hex_token(text, start, end):
                break
            position = end
        found += 1
    return found


def beside_hex_group(text: str, start: int, end: int) -> bool:
    """True when the span sits in a hex dump: two more 2- or 4-digit hex groups on one side.

    ``7f 45 02 01 00 00 00 00 00 00`` and ``7f45 4c46 4111 1111 1111 1111`` are bytes, not a
    phone or card number; ``exp 2027 4111 1111 1111 1111 on 2027-01-01`` is still a card.
    """
    for width in (2, 4):
        if _hex_groups(text, start, width, -1) == 2 or _hex_groups(text, end, width, 1) == 2:
            return True
    return False


def phone_digit_count_ok(candidate: str, low: int, high: int) -> bool:
    """True when the candidate holds between ``low`` and ``high`` digits."""
    count = sum(1 for char in candidate if char in _DIGITS)
    return low <= count <= high


def looks_random(value: str) -> bool:
    """True for token-like text: it holds a digit, or mixes upper and lower case letters, and
    is not typed out as a pattern (:func:`is_patterned`).

    Random keys of 20+ characters practically always do; hyphenated words and slugs
    (``sk-learn-this-long-name``) do not.
    """
    if is_patterned(value):
        return False
    if _A_DIGIT.search(value) is not None:
        return True
    return value != value.lower() and value != value.upper()  # holds both cases


FILLED_MIN: Final = 36
"""From this length, a value filled out with the placeholder letter (``x``, ``X``) or typed
out as an alphabet walk is not a key. Shorter ones (a 20-character AWS key id such as
``AKIAABCDEFGHIJKLMNOP``, a 34-character Twilio SID of x's) stay secrets: the public test
corpora disagree on them, and a placeholder redacted costs nothing."""
_MASK_RUNS: Final = lazy_compile(r"x{4,}|X{4,}|\*{4,}|#{4,}")
_MASK_FOURS: Final = ("xxxx", "XXXX", "****", "####")
_WALK_BLOCKS: Final = tuple(
    alphabet[start : start + 4]
    for alphabet in (string.ascii_lowercase, string.ascii_uppercase)
    for start in range(0, 24, 4)
)
# The quick looks above as one search each (a loop of ``in`` tests costs twice as much).
_WALK_BLOCK: Final = lazy_compile("|".join(_WALK_BLOCKS))
_MASK_FOUR: Final = lazy_compile("|".join(map(re.escape, _MASK_FOURS)))
# Eight consecutive letters of the alphabet, in one case: a random key holds such a walk by
# chance about once in 50^7 positions.
_ALPHABET_WALK: Final = lazy_compile(
    "|".join(
        alphabet[start : start + 8]
        for alphabet in (string.ascii_lowercase, string.ascii_uppercase)
        for start in range(len(alphabet) - 7)
    )
)


def is_patterned(value: str) -> bool:
    """True for a key of :data:`FILLED_MIN` characters or more typed out rather than
    generated: an alphabet walk in it (``sk-ant-api03-abc123xyz-...-klmnopqrstuvwx``,
    ``AIzaSyabcdefghijklmnopqrstuvwxyz1234567``), or a third of it or more in runs of the
    placeholder letter or mask characters (``ghp_xxxx...``,
    ``sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE_XXX``). Runs of digits and other letters are left
    alone: sample keys such as ``12345678-ABCD-ABCD-ABCD-1234567890AB`` or an age key of
    ``Q``s stand for real ones in the public corpora."""
    if len(value) < FILLED_MIN:
        return False
    # Quick looks first: every walk of eight letters holds one of the aligned blocks (abcd,
    # efgh, ... uvwx), every mask run four of one mask character.
    if _WALK_BLOCK.search(value) is not None and _ALPHABET_WALK.search(value):
        return True
    if _MASK_FOUR.search(value) is None:
        return False
    masked = sum(len(run) for run in _MASK_RUNS.findall(value))
    return masked * 3 >= len(value)


_PLACEHOLDER: Final = lazy_compile(
    r"""
    \*+ | x{3,} | X{3,} | \.{3,} | _+ | -+       # masks and ellipses
    | <[^<>]*>? | (?i:\[redacted[^\[\]]*\]?)     # <your-key>, [REDACTED:...]
    | \[[A-Za-z][A-Za-z0-9 _-]*\]                # [PASSWORD], [token]: a slot to fill
    | \$\{?[A-Za-z_][A-Za-z0-9_]*\}?             # $VAR, ${VAR}
    | \$\([A-Za-z_][A-Za-z0-9_]*\)                # $(VAR): a make variable
    | \{\{.*\}\}? | \{[A-Za-z_][A-Za-z0-9_.]*\}  # {{ template }}, {name}
    | %\(?[A-Za-z_]*\)?s                         # %s, %(name)s
    | \#(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})  # colours: token: '#d8dee9'
    | (?i:null|none|nil|true|false|undefined|redacted|hidden)
    """,
    re.VERBOSE,
)


# Words that mark a value as an example: insert_key_here, your-api-key, a-fake-key.
_EXAMPLE_WORDS: Final = lazy_compile(
    r"(?i)(?:^|[_ -])(?:insert|your|here|replace|placeholder|example|dummy|sample|fake|changeme)"
    r"(?:$|[_ -])"
)
_WORDS_ONLY: Final = lazy_compile(r"[A-Za-z]+(?:[_ -][A-Za-z]+)+")
# Masked or cut values: ab***, abc..., ab..[Redacted], ...####, an earlier redaction.
_FILLED: Final = lazy_compile(r"(?:\*{3,}|#{5,}|…|\.\.\.|\.\.(?=\[)|\.\.$|(?i:\[redacted))")


def is_placeholder(value: str) -> bool:
    """True for values that stand in for a secret: masks, template variables, nulls, example
    phrases (``insert_key_here``), masked or cut values (``ab***``, ``abc...``)."""
    if _PLACEHOLDER.fullmatch(value) is not None:
        return True
    if _FILLED.search(value) is not None:
        return True
    return _WORDS_ONLY.fullmatch(value) is not None and _EXAMPLE_WORDS.search(value) is not None


_CREDENTIAL_WORDS: Final = frozenset(
    {
        *("password", "passwd", "pass", "pwd", "token", "secret", "user", "username", "test"),
        *("apikey", "api_key", "key", "login", "name", "xxx", "yyy", "foo", "bar", "admin"),
    }
)


def is_credential_word(value: str) -> bool:
    """True for a value that only names what belongs there (``user:password``)."""
    return value.lower().strip("<>[]{}") in _CREDENTIAL_WORDS


def is_filler(value: str) -> bool:
    """True for a token-shaped value filled in rather than generated: at least a third of it
    runs of one repeated character (``ghp_xxxx...``, ``glc_1111...``, ``AIzaaaaa...``) as in
    a mask (``AKIAXXXXXXXXXXXXXXXX``)."""
    if len(value) < 12:
        return False
    filled = 0
    run = 1
    for index in range(1, len(value) + 1):
        if index < len(value) and value[index] == value[index - 1] and value[index].isalnum():
            run += 1
            continue
        if run >= 4:
            filled += run
        run = 1
    return filled * 3 >= len(value)


_CODE_VALUE: Final = lazy_compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)*")
_NUMBER: Final = lazy_compile(r"[+-]?[0-9]{1,9}(?:\.[0-9]+)?")


def is_plain_code_value(value: str) -> bool:
    """True for unquoted values that read as code or numbers, not as a secret.

    ``api_key=api_key``, ``password: str``, ``token = self.token`` and ``max_token: 4096`` keep
    their text: a bare identifier or dotted name without digits, or a number of up to nine
    digits (a longer run of digits can be a numeric token or PIN).
    """
    return _CODE_VALUE.fullmatch(value) is not None or _NUMBER.fullmatch(value) is not None
