"""Deciding a command takes time linear in its length, on the shell's grammar at its worst.

Each unit repeats what makes one part of the reading work hardest: comments holding quotes,
arithmetic openings without their closings, array subscripts, ``let``, ``[[`` with globs,
``declare -i``, sed scripts, code-taking options, wrappers, runners and the words of a deny
rule. A command made of the unit is decided at a size and at twice that size, in a workspace
of a few files; the time may grow at most :data:`GROWTH` times (a reading that rescans the
text from each unit grows four times). CPU time, sizes grown until a run dwarfs the clock's
grain, the least ratio of several rounds (as ``redact/tests/test_linear_time.py``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from amplifier_module_hooks_approval.config import parse_config
from amplifier_module_hooks_approval.rules import RuleSet
from amplifier_module_hooks_approval.subject import subject_of

from .support import readme_rules

pytestmark = pytest.mark.cpu_timing  # compares CPU times: run alone (noxfile.py)

GROWTH = 2.5
FLOOR = 0.04
SMALLEST = 4_096
LARGEST = 1_048_576
RUNS = 9

RULES = RuleSet(
    parse_config(
        {"rules": [*readme_rules(), {"name": "rmrf", "action": "deny", "command": "rm -rf *"},
                   {"name": "force", "action": "deny", "command": "git push --force"}],
         "default_action": "allow"}
    )
)  # fmt: skip

UNITS = {
    "comment with a quote": "# it's\n",
    "comment with a carriage return": "# x\r",
    "comment continued": "echo x # a \\\n",
    "arithmetic opening": "$((",
    "arithmetic on a name": "$((x+",
    "array subscript": "a[",
    "element assignment": "x=a[b]=1 ",
    "let": "let ",
    "double bracket with a glob": "[[ x ",
    "declare -i": "declare -i ",
    "expansion with an offset": "${x:",
    "sed script": "sed -n 's/x/y/;1p' f; ",
    "python -c": "python3 -c x; ",
    "interpreter options": "python3 -W ",
    "unknown wrapper with the rule's words": "w rm -rf x ",
    "wrapper chain": "setpriv nice env ",
    "coproc and function": "coproc function ",
    "trap text": "trap 'rm -rf x' EXIT; ",
    "alias": "alias a='rm -rf x'; ",
    "forced pushes": "git push -f o m; ",
    "code naming commands": 'python3 -c \'os.system("rm -r x"); run(["git", "push"])\'; ',
    "code in code": 'python3 -c "exec(\'os.system(\\"rm -r x\\")\')"; ',
    "here-string to a shell": "bash <<< 'rm -r x'; ",
    "runner after an unknown wrapper": "w find x -delete ",
    "interpreter after an unknown wrapper": "w python3 -c x ",
    "wrappers in a row": "nice ",
    "runners in a row": "uv run ",
    "brace lists": "cat {a,b}{c,d}{e,f}{g,h}{i,j} ",
    "brace openings": "cat {a,{b,{c,",
    "plumbing pushes": "git send-pack --for o m; /usr/lib/git-core/git-push o; ",
}


def _seconds(command: str, run: int, workspace: str) -> float:
    fresh = f"{command} {run}"
    started = time.process_time()
    RULES.decide(subject_of({"tool_name": "bash", "tool_input": {"command": fresh}}, workspace))
    return time.process_time() - started


def _growth(unit: str, workspace: str) -> tuple[float, int]:
    size = SMALLEST
    while True:
        text = unit * (size // len(unit) + 1)
        first = _seconds(text, 0, workspace)
        if first >= FLOOR or size >= LARGEST:
            break
        size *= 4 if first < FLOOR / 8 else 2
    double = text + text
    ratios = []
    for run in range(1, RUNS + 1):
        small = _seconds(text, run, workspace)
        ratios.append(_seconds(double, run, workspace) / max(small, 1e-9))
        if ratios[-1] <= GROWTH:
            break
    return min(ratios), size


@pytest.mark.parametrize("name", list(UNITS))
def test_deciding_a_command_takes_linear_time(name: str, tmp_path: Path) -> None:
    for file in ("a", "b", ".env", "notes.md"):
        (tmp_path / file).write_text("x")
    ratio, size = _growth(UNITS[name], str(tmp_path))
    assert ratio <= GROWTH, f"{name}: twice {size} characters took {ratio:.2f} times as long"
