"""The fields of a tool event that name its call: every emitter writes them alike."""

from __future__ import annotations

from typing import Any

from amplifier_hooks_util.tool_events import tool_call_fields
from hypothesis import given
from hypothesis import strategies as st

_INPUTS = st.dictionaries(st.text(), st.integers() | st.text() | st.none(), max_size=4)


@given(st.text(min_size=1), _INPUTS, st.text())
def test_the_legacy_copies_are_the_same_objects(
    name: str, tool_input: dict[str, Any], call_id: str
) -> None:
    fields = tool_call_fields(name, tool_input, call_id)
    assert list(fields) == ["tool_name", "tool", "tool_input", "input", "tool_call_id"]
    assert fields["tool_name"] == fields["tool"] == name
    assert fields["tool_input"] is fields["input"] is tool_input
    assert fields["tool_call_id"] == call_id
