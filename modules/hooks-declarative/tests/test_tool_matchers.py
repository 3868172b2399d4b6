"""Another tool's matcher translated to ours (:mod:`~.tool_matchers`): for any matcher and any
tool, the translated matcher runs the hook exactly when the other tool, applying its own rule
to its own names for the call, would."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.tool_matchers import MatchRule, translated_matcher

THEIRS = {
    "bash": ("Bash",),
    "write_file": ("apply_patch", "Write", "Edit"),
    "edit_file": ("apply_patch", "Write", "Edit"),
}
OTHER_TOOLS = ("read_file", "todo", "mcp__github__create_issue", "mcp__memory__read", "custom")

pieces = st.sampled_from(
    ["Bash", "Write", "Edit", "apply_patch", "mcp__", "github", "Read", "read", "_", ".*", "^",
     "$", "|", "a", "e", "[A-Z]", "(?:x|W)", "\\w+"]
)  # fmt: skip
patterns = st.lists(pieces, max_size=5).map("".join)


def expected(pattern: str, names: tuple[str, ...], rule: MatchRule) -> bool:
    """The other tool's own decision for a call it names ``names``."""
    if pattern.strip() in ("", "*"):
        return True
    if rule == "claude" and re.fullmatch(r"[A-Za-z0-9_|]+", pattern):
        return any(name in pattern.split("|") for name in names)
    try:
        compiled = re.compile(pattern)
    except re.error:
        return False
    if rule == "full":
        return any(compiled.fullmatch(name) for name in names)
    return any(compiled.search(name) for name in names)


@given(patterns, st.sampled_from(["claude", "regex", "full"]))
def test_translation_agrees_with_the_other_tool(pattern: str, rule: MatchRule) -> None:
    matcher = compile_claude_matcher(translated_matcher(pattern, THEIRS, rule))
    for ours, names in THEIRS.items():
        assert matcher(ours) is expected(pattern, names, rule), (ours, pattern)
    for ours in OTHER_TOOLS:  # a tool the format does not name: under its own name alone
        assert matcher(ours) is expected(pattern, (ours,), rule), (ours, pattern)
