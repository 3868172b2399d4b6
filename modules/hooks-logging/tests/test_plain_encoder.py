"""The plain-data encoder (orjson where installed) writes exactly what the json module's
strict encoder writes, byte for byte, and fails exactly where it fails."""

from __future__ import annotations

import math
from typing import Any

import pytest
from amplifier_hooks_testsupport.plain_data import plain_data
from hypothesis import example, given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact.walker import plain_strings
from amplifier_module_hooks_logging.encode import plain_encoder, strict_encoder

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
_FLOATS = st.one_of(
    st.floats(),  # NaN and the infinities too
    st.floats(min_value=-1e-3, max_value=1e-3),
    st.sampled_from([1e-5, 1.5e-7, 9.999e-5, 1e-4, 1e16, 1e17, 1.2345678901234567e15, 5e-324]),
)
_LEAVES = st.one_of(
    _TEXT,
    st.sampled_from(["null", "1e-05", "0.00001", "re-run", "a\udcffb", "\ud800", "é\u2028"]),
    st.integers(),
    st.integers(min_value=2**62, max_value=2**70) | st.integers(min_value=-(2**70), max_value=0),
    _FLOATS,
    st.booleans(),
    st.none(),
)
_PLAIN = plain_data(_LEAVES, _TEXT, max_leaves=20)


def _outcome(encode: Any, data: Any) -> tuple[str, str]:
    try:
        return ("text", encode(data))
    except Exception as err:
        return ("error", type(err).__name__)


@settings(max_examples=1500, deadline=None)
@given(_PLAIN)
@example({"a": math.nan})
@example({"a": [None, math.inf]})
@example({"x": 1e-05, "y": "\udc80", "z": 2**64})
def test_same_text_or_same_error_as_the_json_module(data: Any) -> None:
    assert _outcome(plain_encoder(), data) == _outcome(strict_encoder(), data)


@settings(max_examples=1500, deadline=None)
@given(_PLAIN)
@example({"a": [None, 1.5, "null"], "b": None})
@example({"x": 1e-05, "y": None, "z": 2**64})
def test_data_plain_strings_accepts_is_written_as_the_json_module_writes_it(data: Any) -> None:
    """``finite``: for the data ``plain_strings`` answers for (no NaN, no infinity), a text
    holding ``null`` is orjson's own, byte for byte the json module's."""
    if plain_strings(data) is None:
        assert _outcome(strict_encoder(), data)[0] == "error" or _has_non_finite(data)
        return
    assert _outcome(plain_encoder(finite=True), data) == _outcome(strict_encoder(), data)


def _has_non_finite(data: Any) -> bool:
    if isinstance(data, float):
        return not math.isfinite(data)
    if isinstance(data, dict):
        return any(_has_non_finite(v) for v in data.values())
    if isinstance(data, list | tuple):
        return any(_has_non_finite(v) for v in data)
    return False


def test_a_lone_surrogate_is_written_as_the_json_module_writes_it() -> None:
    text = plain_encoder()({"s": "a\udcffb"})
    assert text == '{"s":"a\udcffb"}'
    assert text.encode("utf-8", "backslashreplace") == b'{"s":"a\\udcffb"}'


def test_nesting_deeper_than_orjson_allows() -> None:
    data: Any = "leaf"
    for _ in range(300):
        data = [data]
    assert plain_encoder()(data) == strict_encoder()(data)


def test_a_cycle_fails_as_in_the_json_module() -> None:
    data: list[Any] = []
    data.append(data)
    with pytest.raises(ValueError):
        plain_encoder()(data)


def test_orjson_is_installed() -> None:
    """A dependency of the module: without it plain data takes the json module's way."""
    from amplifier_module_hooks_logging import encode

    assert encode._orjson is not None


_PIECES = [b"e-", b"0.0000", b"3", b"e", b"-", b".", b"0", b":", b",", b"[", b'"', b"1" * 30]


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(_PIECES), st.binary(max_size=4)),
        max_size=16,
    ).map(b"".join)
)
def test_the_suspect_check_finds_what_the_expression_finds(out: bytes) -> None:
    from amplifier_module_hooks_logging.encode import _ORJSON_SUSPECT, orjson_suspect

    assert orjson_suspect(out) == (_ORJSON_SUSPECT.search(out) is not None)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.one_of(
            st.floats(allow_nan=False, allow_infinity=False),
            st.integers(-(2**63), 2**64 - 1),
            st.text(alphabet="0123456789.e-:,[abc", max_size=12),
        ),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(alphabet="0e-:1", max_size=4), children, max_size=4),
        ),
        max_leaves=12,
    )
)
def test_every_number_orjson_writes_otherwise_is_suspect(data: Any) -> None:
    """Where orjson's text differs from the json module's, the check finds it, though it no
    longer counts what lies inside strings only (``8e-`` in a session id)."""
    import orjson

    from amplifier_module_hooks_logging.encode import orjson_suspect

    out = orjson.dumps(data)
    if out.decode() != strict_encoder()(data):
        assert orjson_suspect(out)


def test_a_string_holding_what_a_small_float_looks_like_is_not_suspect() -> None:
    from amplifier_module_hooks_logging.encode import orjson_suspect

    session = "b262831b-decd-4e11-bc8e-1496743f9c0a"
    assert not orjson_suspect(f'{{"session_id":"{session}","v":"x0.00001"}}'.encode())
    assert plain_encoder()({"session_id": session, "small": 1e-05}) == strict_encoder()(
        {"session_id": session, "small": 1e-05}
    )
    assert orjson_suspect(b'{"small":1e-5}')
    assert orjson_suspect(b"[-1.5e-7]")
    assert orjson_suspect(b"0.00001")
