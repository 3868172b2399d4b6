"""A random key assigned to a name that says nothing (``confluence_b=<key>``) is redacted;
the same run in a URL's query or after ``==`` is left to the rules that read those."""

from __future__ import annotations

import random
import string

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.rules import _ASSIGNED, _DIGEST_BEFORE, _random_run

_REDACTOR = build_redactor(RedactionConfig(rules=("secrets",)))
_NAMES = st.from_regex(r"[a-z][a-z0-9_]{2,14}", fullmatch=True)


def _key(seed: int) -> str:
    """40 random base62 characters with two digits and two letters of each case."""
    rng = random.Random(seed)
    body = [rng.choice(string.ascii_letters + string.digits) for _ in range(34)]
    body += rng.sample(string.digits, 2) + rng.sample(string.ascii_uppercase, 2)
    body += rng.sample(string.ascii_lowercase, 2)
    rng.shuffle(body)
    return "".join(body)


@settings(max_examples=150, deadline=None)
@given(name=_NAMES, seed=st.integers(0, 2**32), before=st.sampled_from(["", "  ", "export "]))
def test_a_random_key_after_a_bare_name_is_redacted(name: str, seed: int, before: str) -> None:
    # A name that ends as a digest's, an id's or data's (``paid``, ``nbody``) says what the
    # value is, and the rule leaves it: that reading is tested on its own.
    assume(_DIGEST_BEFORE.search(f"{name}=") is None)
    key = _key(seed)
    # About one random key in 4,000 does not read as random on its own (a letter four times
    # in a row, long runs of letters with two digits): how often is measured below.
    assume(_random_run(key, 0, len(key)) is not None)
    redacted, _ = _REDACTOR.redact_text(f"{before}{name}={key}\nnext line\n")
    assert key not in redacted


def test_a_random_key_after_a_name_is_rarely_missed() -> None:
    """The miss rate on 4,000 random keys after a bare name, whatever the key reads as."""
    missed = sum(
        key in _REDACTOR.redact_text(f"value={key}\nnext line\n")[0]
        for key in map(_key, range(4000))
    )
    assert missed <= 4, missed


@settings(max_examples=150, deadline=None)
@given(name=_NAMES, seed=st.integers(0, 2**32))
def test_a_comparison_is_not_read_as_an_assignment(name: str, seed: int) -> None:
    key = _key(seed)
    text = f"assert {name}=={key}.lower()"
    # Whatever else may read it, the unnamed-assignment reading does not start after ``==``.
    start = text.index(key)
    assert _ASSIGNED.search(text, max(0, start - 65), start) is None
