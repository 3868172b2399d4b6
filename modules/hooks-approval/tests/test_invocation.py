"""What a command executes, read through wrappers, runners and spellings (no sandbox).

Generated chains of wrappers and runners around a command leave the program and its options
unchanged; a program known only when it runs is never allowed, whatever the allow rules.
"""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_module_hooks_approval.config import parse_config
from amplifier_module_hooks_approval.invocation import invocations
from amplifier_module_hooks_approval.rules import RuleSet
from amplifier_module_hooks_approval.subject import subject_of

WRAPPERS = [
    "env",
    "env -i",
    "env -u HOME",
    "env A=1",
    "command",
    "builtin",
    "exec",
    "nice",
    "nice -n 5",
    "nice -5",
    "nohup",
    "timeout 5",
    "timeout -s KILL 5",
    "timeout --signal=TERM -k 1 5",
    "stdbuf -oL",
    "setsid",
    "time",
    "time -p",
    "sudo",
    "sudo -u root",
    "doas",
    "busybox",
    "A=1",
]
RUNNERS = ["sh -c", "bash -c", "bash -ec", "dash -c", "eval", "su -c", "watch -n 1"]


def wrap(command: str, layers: list[tuple[str, str]]) -> str:
    for kind, layer in layers:
        command = f"{layer} {command}" if kind == "w" else f"{layer} {shlex.quote(command)}"
    return command


LAYERS = st.lists(
    st.one_of(
        st.tuples(st.just("w"), st.sampled_from(WRAPPERS)),
        st.tuples(st.just("r"), st.sampled_from(RUNNERS)),
    ),
    max_size=4,
)
BASES = st.sampled_from(
    [
        ("rm -rf victim", "rm", {"recursive", "force"}),
        ("rm victim --rec -f", "rm", {"recursive", "force"}),
        ("/usr/bin/git -C . --no-pager push -f origin main", "git push", {"force"}),
        ("git push --mirror origin", "git push", {"force", "mirror"}),
        ("sed -n --in s/a/b/ f", "sed", {"quiet", "in-place"}),
        ("sort --o=f g", "sort", {"output"}),
    ]
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(base=BASES, layers=LAYERS)
def test_wrappers_and_runners_leave_the_program_and_its_options(
    base: tuple[str, str, set[str]], layers: list[tuple[str, str]]
) -> None:
    command, program, options = base
    (run,) = [r for r in invocations(wrap(command, layers)) if r.program]
    assert run.program == program
    assert options <= run.parsed.names


UNKNOWABLE = st.sampled_from(
    ["{rm,-rf,x}", "/bin/r?", "/usr/bin/[r]m", "$X", "${X:-rm}", "$(echo rm)", "`echo rm`",
     "r*", "~user/rm", '"$X"', "bash", "sh script.sh", "bash <<< x"]
)  # fmt: skip


@settings(max_examples=300, derandomize=True, deadline=None)
@given(word=UNKNOWABLE, layers=LAYERS, args=st.sampled_from(["", "-rf x", "status"]))
def test_a_program_known_only_when_it_runs_is_never_allowed(
    word: str, layers: list[tuple[str, str]], args: str
) -> None:
    rules = RuleSet(
        parse_config(
            {
                "rules": [{"action": "allow", "command": "*", "allow_operators": True}],
                "default_action": "allow",
            }
        )
    )
    command = wrap(f"{word} {args}".strip(), layers)
    subject = subject_of({"tool_name": "bash", "tool_input": {"command": command}}, "/")
    assert rules.decide(subject).action == "ask", command


def test_a_path_protected_for_other_tools_is_never_read_by_an_allowed_command(
    tmp_path: object,
) -> None:
    rules = RuleSet(
        parse_config(
            {
                "rules": [
                    {"action": "deny", "tools": ["read_file"], "path": [".env"]},
                    {"action": "allow", "command": "cat *"},
                ]
            }
        )
    )
    for command, expected in (("cat .env", "ask"), ("cat notes.txt", "allow")):
        subject = subject_of({"tool_name": "bash", "tool_input": {"command": command}}, "/w")
        assert rules.decide(subject).action == expected, command


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    spelling=st.sampled_from(["/", "/.", "/usr/..", "/./", "/tmp/../"]),
    flags=st.permutations(["-r", "-f"]),
    layers=LAYERS,
)
def test_a_deny_rule_naming_an_operand_covers_its_spellings(
    spelling: str, flags: list[str], layers: list[tuple[str, str]]
) -> None:
    rules = RuleSet(
        parse_config(
            {"rules": [{"action": "deny", "command": "rm -rf /"}], "default_action": "allow"}
        )
    )
    command = wrap(f"rm {' '.join(flags)} {spelling}", layers)
    subject = subject_of({"tool_name": "bash", "tool_input": {"command": command}}, "/w")
    assert rules.decide(subject).action == "deny", command
