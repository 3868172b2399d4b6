"""The reading of a text: invisible characters and terminal sequences removed, escapes written
as text decoded once, every span mapped back to the original."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact.reading import MARK, reading_view

HIDDEN = st.sampled_from(
    [
        "\u200b",
        "\u2060",
        "\ufeff",
        "\u00ad",
        "\u0301",
        "\x1b[0m",
        "\x1b[38;2;1;2;3m",
        "\x1b]8;;u\x1b\\",
    ]
)


def test_every_format_character_and_combining_mark_is_seen_through() -> None:
    missed = [
        f"U+{point:04X}"
        for point in range(0x80, 0x110000)
        if unicodedata.category(chr(point)) in ("Cf", "Mn", "Me")
        and MARK.fullmatch(chr(point)) is None
    ]
    assert missed == []


def test_escapes_are_decoded_once() -> None:
    for text, read in [
        ("\\u0067hp_", "ghp_"),
        ("\\x41KIA", "AKIA"),
        ("\\101KIA", "AKIA"),
        ("&#x67;&#104;p_", "ghp_"),
        ("&quot;a&quot;", '"a"'),
        ("\\u005cu0067", "\\u0067"),  # decoded once: the result is not decoded again
    ]:
        reading = reading_view(text)
        assert reading is not None
        assert reading.text == read


def test_text_without_such_spellings_has_no_reading() -> None:
    for text in ["plain text", "a & b; c", "C:\\Users\\me", "100% sure", "caf\u00e9"]:
        assert reading_view(text) is None


@settings(deadline=None)
@given(st.lists(st.tuples(st.text("ab-_01", min_size=1, max_size=6), HIDDEN), max_size=8))
def test_every_span_of_the_reading_maps_back_to_the_same_characters(
    pieces: list[tuple[str, str]],
) -> None:
    text = "".join(word + hidden for word, hidden in pieces)
    reading = reading_view(text)
    if reading is None:
        assert not pieces
        return
    assert reading.text == "".join(word for word, _ in pieces)
    for start in range(len(reading.text)):
        for end in range(start + 1, len(reading.text) + 1):
            low, high = reading.span(start, end)
            assert MARK.sub("", text[low:high]) == reading.text[start:end]
