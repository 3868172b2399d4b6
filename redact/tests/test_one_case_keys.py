"""Keys of one letter case and digits with nothing naming them (``random_token``'s base36
branch), drawn at random.

Found: random base36 keys of 32 to 128 characters, upper or lower case, in random
surroundings. Left alone: hex digests of either case, identifiers of words and numbers in
one case (``build20240101release``), and runs of the same alphabet whose letters and digits
are not mixed throughout.
"""

from __future__ import annotations

import hashlib
import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.rules import _one_case_random

REDACTOR = build_redactor(RedactionConfig())
SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)
LOWER36 = string.ascii_lowercase + string.digits
UPPER36 = string.ascii_uppercase + string.digits
SURROUNDINGS = [
    "{}",
    "keenio '{}' region eu",
    "the value {} was set",
    '"{}"',
    "[{}]",
    "line one\n\t{}\nline three",
    '{{"value": "{}"}}',
]
WORDS = ["build", "release", "cache", "node", "layer", "stage", "deploy", "report", "alpha"]


@st.composite
def _keys(draw: st.DrawFn) -> str:
    """A random base36 key (a seed drawn, so that shrinking cannot make it typed out) that
    the shape reads as random. The shape turns away about one random key in a few hundred
    (too few digits, digits bunched, a letter repeated four times): how often is what the
    rate test below measures; this one checks that a key it reads is found wherever it
    stands."""
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    alphabet = rng.choice([LOWER36, UPPER36])
    while True:
        key = "".join(rng.choice(alphabet) for _ in range(rng.randint(32, 128)))
        if _one_case_random(key):
            return key


@SETTINGS
@given(_keys(), st.sampled_from(SURROUNDINGS))
def test_a_random_one_case_key_is_found(key: str, surrounding: str) -> None:
    text = surrounding.format(key)
    redacted, _ = REDACTOR.redact_text(text)
    assert key[:12] not in redacted, (text, redacted)
    assert key[-12:] not in redacted, (text, redacted)


def test_a_random_one_case_key_is_rarely_missed() -> None:
    """The shape's miss rate on random base36 keys of 32 characters or more, alone."""
    rng = random.Random("one-case-rate")
    missed = 0
    for _ in range(2000):
        alphabet = rng.choice([LOWER36, UPPER36])
        key = "".join(rng.choice(alphabet) for _ in range(rng.randint(32, 64)))
        if sum(map(str.isdigit, key)) < 4 or key.isdigit():
            continue
        missed += key in REDACTOR.redact_text(f"value {key} set")[0]
    assert missed <= 10, missed


@SETTINGS
@given(st.binary(min_size=16, max_size=64), st.booleans(), st.sampled_from(SURROUNDINGS))
def test_hex_digests_of_either_case_stay(data: bytes, upper: bool, surrounding: str) -> None:
    digest = hashlib.sha256(data).hexdigest()
    text = surrounding.format(digest.upper() if upper else digest)
    assert REDACTOR.redact_text(text)[0] == text


@SETTINGS
@given(
    st.lists(
        st.one_of(st.sampled_from(WORDS), st.integers(0, 10**8).map(str)),
        min_size=4,
        max_size=10,
    ),
    st.booleans(),
    st.sampled_from(SURROUNDINGS),
)
def test_words_and_numbers_in_one_case_stay(
    parts: list[str], upper: bool, surrounding: str
) -> None:
    name = "".join(parts)
    name = name.upper() if upper else name
    text = surrounding.format(name)
    assert REDACTOR.redact_text(text)[0] == text, text


@SETTINGS
@given(
    st.text(string.ascii_lowercase, min_size=16, max_size=60),
    st.text(string.digits, min_size=8, max_size=40),
    st.booleans(),
)
def test_letters_then_digits_unmixed_stay(letters: str, digits: str, upper: bool) -> None:
    """The alphabet of a key, but letters and digits in two blocks: a name and a number."""
    run = letters + digits
    run = run.upper() if upper else run
    text = f"value {run} set"
    assert REDACTOR.redact_text(text)[0] == text, text


@SETTINGS
@given(
    _keys(),
    st.sampled_from(["tfk", "acme", "zq", "vnd_live", "tok"]),
    st.sampled_from(["_", "-"]),
    st.sampled_from(SURROUNDINGS),
)
def test_a_prefixed_one_case_key_is_found(
    key: str, prefix: str, separator: str, surrounding: str
) -> None:
    """``shaped_token`` reads the same shape after a short lower-case prefix."""
    token = f"{prefix}{separator}{key}"
    text = surrounding.format(token)
    redacted, _ = REDACTOR.redact_text(text)
    assert key[:12] not in redacted, (text, redacted)
    assert key[-12:] not in redacted, (text, redacted)
