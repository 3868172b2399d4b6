"""A word only known when the command runs (an expansion, a glob) in the arguments of a
program that may run them is asked about under a deny rule whose command the words after it
would make, whatever wrapper and spelling carry it; it is never allowed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_module_hooks_approval.config import parse_config
from amplifier_module_hooks_approval.rules import RuleSet
from amplifier_module_hooks_approval.subject import subject_of

RULES = RuleSet(
    parse_config(
        {
            "rules": [
                {"name": "rmrf", "action": "deny", "command": "rm -rf *"},
                {"name": "force", "action": "deny", "command": "git push --force*"},
            ],
            "default_action": "allow",
        }
    )
)
UNSETTLED = st.sampled_from(
    ["${X:-{p}}", "$P", "${P}", "$(echo {p})", "`echo {p}`", "{p}?", "[{p}]", "{{p},}", "{x,{p}}"]
)
WRAPPERS = st.sampled_from(["./w", "mywrapper --quiet", "/opt/run/w -x", "w2 --"])
RM_OPTIONS = st.sampled_from(["-rf", "-fr", "-r -f", "-f -r", "-Rf", "-r --force"])
PUSH = st.sampled_from(["push -f", "push --force", "push --forc", "push -uf"])


@settings(max_examples=100, deadline=None)
@given(WRAPPERS, st.permutations(["-r", "-f"]), st.sampled_from(["victim", "a"]))
def test_a_brace_expansion_is_read_as_the_words_it_makes(
    wrapper: str, options: list[str], target: str
) -> None:
    command = f"{wrapper} {{rm,{','.join(options)},{target}}}"
    assert decide(command) != "allow", command


def decide(command: str) -> str:
    subject = subject_of({"tool_name": "bash", "tool_input": {"command": command}}, "/tmp")
    return RULES.decide(subject).action


@settings(max_examples=200, deadline=None)
@given(WRAPPERS, UNSETTLED, RM_OPTIONS, st.sampled_from(["victim", "-- victim", "a b"]))
def test_an_unsettled_program_after_a_wrapper_is_never_allowed_rm(
    wrapper: str, word: str, options: str, target: str
) -> None:
    command = f"{wrapper} {word.replace('{p}', 'rm')} {options} {target}"
    assert decide(command) != "allow", command


@settings(max_examples=200, deadline=None)
@given(WRAPPERS, UNSETTLED, PUSH)
def test_an_unsettled_program_after_a_wrapper_is_never_allowed_git(
    wrapper: str, word: str, push: str
) -> None:
    command = f"{wrapper} {word.replace('{p}', 'git')} {push} origin main"
    assert decide(command) != "allow", command


@settings(max_examples=100, deadline=None)
@given(WRAPPERS, UNSETTLED, st.sampled_from(["-la", "--verbose", "status", "x.txt"]))
def test_words_no_rule_would_make_stay_allowed(wrapper: str, word: str, rest: str) -> None:
    command = f"{wrapper} {word.replace('{p}', 'ls')} {rest}"
    assert decide(command) == "allow", command
