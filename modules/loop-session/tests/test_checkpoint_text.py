"""A checkpoint holds whatever text a conversation carried: lone surrogates, control
characters, any plane of Unicode, and reads back as the same text."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_module_loop_session import read_checkpoint
from amplifier_module_loop_session.checkpoint import Checkpoint

from .conftest import RigFactory, say

# Every code point, lone surrogates (category Cs) included.
ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=60)


@settings(max_examples=200, deadline=None)
@given(contents=st.lists(ANY_TEXT, min_size=1, max_size=4), key=ANY_TEXT)
def test_any_text_in_a_message_is_saved_and_read_back_unchanged(
    contents: list[str], key: str
) -> None:
    messages = [{"role": "tool", "content": text, "metadata": {key: text}} for text in contents]
    checkpoint = Checkpoint(
        checkpoint_id="c",
        session_id="s",
        turn=1,
        provider="p",
        model="m",
        messages=messages,
        created="2026-01-01T00:00:00Z",
    )
    with tempfile.TemporaryDirectory() as directory:
        path = checkpoint.write(Path(directory) / "checkpoint.json")
        path.read_bytes().decode("utf-8")  # the file is valid UTF-8
        assert read_checkpoint(path).messages == messages


async def test_a_turn_whose_text_holds_half_an_emoji_saves_its_checkpoint(
    make_rig: RigFactory,
) -> None:
    broken = "output: \ud83d (half an emoji), then \udcff from surrogateescape"
    rig = await make_rig([say(broken)])
    await rig.turn("show me " + broken)

    checkpoints = rig.of("session:checkpoint")
    assert [c["turn"] for c in checkpoints] == [1]
    saved = read_checkpoint(Path(checkpoints[0]["path"]))
    assert [m["content"] for m in saved.messages][-2:] == ["show me " + broken, broken]
