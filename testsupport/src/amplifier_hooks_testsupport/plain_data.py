"""Hypothesis strategies for plain data as events carry it: ``str``, ``int``, ``float``,
``bool`` and ``None`` leaves in lists, tuples and string-keyed dicts, nested a few levels.

The walkers, encoders and snapshots that read event data (redact's walker, hooks-logging's
encoders) are tested against a reference on the same generated data; each test names the
leaves its code cares about (secrets, numbers JSON spells oddly, keys the walker reads) and
:func:`plain_data` nests them.

Needs ``hypothesis``, which the tests install.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["plain_data", "plain_leaves"]


def plain_leaves(*samples: st.SearchStrategy[Any], text_size: int) -> st.SearchStrategy[Any]:
    """``samples`` first, then any text of at most ``text_size`` characters, any integer,
    any finite float, a boolean or ``None``."""
    return st.one_of(
        *samples,
        st.text(max_size=text_size),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
    )


def plain_data(
    leaves: st.SearchStrategy[Any], keys: st.SearchStrategy[str], *, max_leaves: int
) -> st.SearchStrategy[Any]:
    """``leaves`` alone or nested in lists, tuples and dicts keyed by ``keys`` (at most four
    items each), with at most ``max_leaves`` leaves in all."""

    def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=4).map(tuple),
            st.dictionaries(keys, inner, max_size=4),
        )

    return st.recursive(leaves, containers, max_leaves=max_leaves)
