"""A command that opens files its words do not name is never allowed past a protected path.

A program that reads the names of the files it opens from a file or its input, or a recursive
reader given a directory too large to walk, may open ``.env``: the secrets rule asks about it
(never allows it), and a protected file the command does name is still denied.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_module_hooks_approval.config import parse_config
from amplifier_module_hooks_approval.reads import WALK_LIMIT
from amplifier_module_hooks_approval.rules import RuleSet
from amplifier_module_hooks_approval.subject import subject_of

RULES = RuleSet(
    parse_config(
        {"rules": [{"name": "secrets", "action": "deny", "path": [".env"]},
                   {"name": "readers", "action": "allow",
                    "command": ["grep *", "sort *", "tar *", "wc *", "du *", "zip *", "cpio *",
                                "git add *", "rsync *"]}]}
    )
)  # fmt: skip


def decide(command: str, workspace: Path) -> str:
    subject = subject_of({"tool_name": "bash", "tool_input": {"command": command}}, str(workspace))
    return RULES.decide(subject).action


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    (root / "a").mkdir()
    for i in range(WALK_LIMIT + 10):
        (root / "a" / f"f{i}").write_text("")
    (root / "z").mkdir()
    (root / "z" / ".env").write_text("TOKEN=x\n")
    return root


def test_a_directory_too_large_to_walk_is_asked_not_allowed(big: Path) -> None:
    assert decide("grep -r TOKEN a", big) == "ask"  # .env may be in what was not walked
    assert decide("grep -r TOKEN z", big) == "deny"
    assert decide("grep TOKEN a/f1", big) == "allow"


OPTIONS = st.sampled_from(
    ["sort --files0-from={f}", "sort --files0={f}", "sort --fil {f}", "wc --files0-from {f}",
     "du --files0-from={f}", "tar -cT {f} -f out.tar", "tar -c -T {f} -f -", "tar --files-from {f}",
     "tar --files-f={f} -c", "git add --pathspec-from-file={f}", "rsync --files-from={f} . d",
     "zip out -@ < {f}", "cpio -o < {f}"]
)  # fmt: skip


@settings(max_examples=100, derandomize=True, deadline=None)
@given(option=OPTIONS, listing=st.sampled_from(["list", "names.txt", "-", "/dev/stdin"]))
def test_names_read_from_a_file_are_asked_not_allowed(
    option: str, listing: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    workspace = tmp_path_factory.mktemp("names")
    assert decide(option.format(f=listing), workspace) == "ask"


def test_plain_readers_are_still_allowed(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("x")
    assert decide("sort notes", tmp_path) == "allow"
    assert decide("sort --field-separator=, notes", tmp_path) == "allow"
    assert decide("wc -l notes", tmp_path) == "allow"
