"""The application comparison reads a reference that died while the interpreter finalized as
having printed what it printed before the crash report, and nothing else as an exit crash."""

from __future__ import annotations

from pathlib import Path

from amplifier_hooks_testsupport.load import load_file
from hypothesis import given
from hypothesis import strategies as st

before_exit_crash = load_file(
    Path(__file__).with_name("exit_crash.py"), "app_exit_crash"
).before_exit_crash

EXIT_CRASH = """\
Fatal Python error: PyGILState_Release: thread state 0x7f132c001b30 must be current when releasing
Python runtime state: finalizing (tstate=0x00007f1342d76ef8)

Thread 0x00007f1342e59b80 (most recent call first):
  <no Python frame>

Extension modules: yaml._yaml, wcwidth._wcwidth_c, hyperscan._hs_ext (total: 3)"""

RUNNING_CRASH = """\
Fatal Python error: Segmentation fault

Current thread 0x00007f1342e59b80 (most recent call first):
  File "/x/amplifier_app_cli/main.py", line 12 in run"""

printed = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300).filter(
    lambda t: "Fatal Python error: " not in t
)


@given(printed)
def test_what_was_printed_before_an_exit_crash_is_the_output(text: str) -> None:
    output = f"{text}\n\n{EXIT_CRASH}"
    assert before_exit_crash(output) == text.rstrip("\n")


@given(printed)
def test_a_crash_while_running_is_not_an_exit_crash(text: str) -> None:
    assert before_exit_crash(f"{text}\n{RUNNING_CRASH}") is None
    assert before_exit_crash(text) is None
