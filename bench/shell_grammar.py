"""hooks-approval: the hand scanner against tree-sitter-bash, on generated spellings.

    pip install tree-sitter tree-sitter-bash   # measurement only; not a dependency
    python bench/shell_grammar.py [--spellings 400] [--rounds 5]

The corpus is the four rule families of ``tests/test_executed_spellings.py`` (forced pushes,
``rm -rf``, ``sed``/``sort`` options, reads of a protected file), drawn by hypothesis. For each
command both front ends yield the programs it runs, then the same resolution (wrappers,
options, nested ``sh -c``) is applied to each simple command's words:

* **hand**: :func:`amplifier_module_hooks_approval.invocation.invocations` (scanner,
  substitutions lifted out, segments split at operators);
* **tree-sitter**: every ``command`` node of the tree-sitter-bash parse, its words
  quote-removed, resolved by the same code.

Reported: microseconds per command for each (best of ``--rounds``), how many commands the two
read into different program lists, and examples of each kind of difference.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "modules" / "hooks-approval"))

from hypothesis import HealthCheck, Phase, given, settings

from amplifier_module_hooks_approval import invocation as inv
from amplifier_module_hooks_approval.shell import words

# Measurement-only: the grammar (`pip install tree-sitter tree-sitter-bash`, no dependency of any
# package) and hooks-approval's generated spellings (its tests folder, put on sys.path above).
tree_sitter: Any = importlib.import_module("tree_sitter")
tree_sitter_bash: Any = importlib.import_module("tree_sitter_bash")
families: Any = importlib.import_module("tests.test_executed_spellings")

PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _draw(strategy: Any, size: int) -> list[str]:
    drawn: list[str] = []

    @settings(
        max_examples=size * 3,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(spelling: str) -> None:
        if len(drawn) < size:
            drawn.append(spelling)

    draw()
    return drawn


def corpus(size: int) -> list[str]:
    found: dict[str, None] = {}
    for strategy in (
        families.push_spellings(),
        families.rm_spellings(),
        families.sed_sort_spellings(),
        families.read_spellings(),
    ):
        found.update(dict.fromkeys(_draw(strategy, size)))
    return list(found)


def hand(command: str) -> list[str]:
    return [run.program or "?" for run in inv.invocations(command)]


def _commands(node: Any, source: bytes, out: list[list[str]]) -> None:
    if node.type == "command":
        argv: list[str] = []
        for child in node.children:
            if child.type in ("variable_assignment", "file_redirect", "herestring_redirect"):
                continue
            text = source[child.start_byte : child.end_byte].decode("utf-8", "replace")
            argv.extend(words(text) or [text])
        out.append(argv)
    for child in node.children:
        _commands(child, source, out)


def grammar(command: str) -> list[str]:
    source = command.encode()
    tree = PARSER.parse(source)
    argvs: list[list[str]] = []
    _commands(tree.root_node, source, argvs)
    programs: list[str] = []
    for argv in argvs:
        programs += [run.program or "?" for run in inv._simple(argv, (), 0)]
    return programs


def best(function: Any, commands: list[str], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for command in commands:
            function(command)
        times.append(time.perf_counter() - start)
    return min(times) / len(commands) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spellings", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    commands = corpus(args.spellings)
    differences: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for command in commands:
        a, b = sorted(hand(command)), sorted(grammar(command))
        if a != b:
            kind = f"hand {sorted(set(a) - set(b))} / tree-sitter {sorted(set(b) - set(a))}"
            differences[kind] += 1
            examples.setdefault(kind, command)
    print(f"commands: {len(commands)}")
    print(f"hand scanner + resolution: {best(hand, commands, args.rounds):8.1f} us/command")
    print(f"tree-sitter + resolution:  {best(grammar, commands, args.rounds):8.1f} us/command")
    parse_only = best(lambda c: PARSER.parse(c.encode()), commands, args.rounds)
    print(f"tree-sitter parse alone:   {parse_only:8.1f} us/command")
    print(f"read differently: {sum(differences.values())}")
    for kind, count in differences.most_common(12):
        print(f"  {count:4}  {kind}   e.g. {examples[kind]!r}")


if __name__ == "__main__":
    main()
