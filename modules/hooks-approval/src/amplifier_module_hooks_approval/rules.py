"""Rules and the decision for one tool call: allow, ask or deny, and which rule said so.

Precedence is **strictest wins: deny > ask > allow**, whatever the order of the rules. Every
rule that applies to a call is considered; if any denies, the call is denied (the first such
rule is named); else if any asks, the human is asked; else if any allows, it runs without
asking. When no rule applies, ``default_action`` decides for the tools listed in ``tools``
(``ask``) and ``other_tools_action`` for every other tool (``allow``). So an allow rule can
never override a deny or an ask, and adding an allow rule can only ever stop a question.

A rule applies when the tool name matches one of its ``tools`` globs and every condition it
has holds (``command`` / ``command_regex``: one of the patterns matches the command;
``path`` / ``path_regex``: one of them matches the file). A rule with a condition never
applies to a call without that argument. Command patterns are tried against the command as
written and after quote removal (:func:`~.shell.canonical`):

* an **allow** rule needs both forms to match, and the command must be one simple command:
  a shell control operator (``;``, ``&&``, ``||``, ``|``, ``&``, ``>``, ``<``, ``$(``, a
  backtick, ``(``, ``)``, a newline) or an unterminated quote stops it from applying unless
  the rule lists that operator in ``allow_operators`` (``true`` allows them all). The
  operator check applies to every allow rule deciding a call that has a command, with or
  without command conditions;
* a **deny** or **ask** rule applies when either form of the whole command, or of any simple
  command inside it (``ls; rm -rf /`` contains ``rm -rf /``), matches.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Final, Literal

from .config import Action, ApprovalConfig, RuleConfig
from .deadline import spend
from .embedded import commands_in, literal_words
from .flags import writing_flags
from .invocation import Invocation, invocations, runs_commands
from .options import Parsed
from .patterns import (
    PathPattern,
    compile_command_glob,
    compile_path_glob,
    compile_path_regex,
    compile_regex,
    resolve_target,
)
from .reads import UNKNOWN, expand_braces, named_paths
from .shapes import Shape, renderings, shape_of
from .subject import Subject, canonical_tool

__all__ = ["BUILTIN_RULES", "Decision", "NearMiss", "Rule", "RuleSet"]

# Quoted or escaped text, variables, globs and braces would let bash turn a harmless-looking
# argument into another one; the built-in git rule therefore only takes plain words, and no
# option that writes a file (--output) or runs a configured program (--ext-diff, --textconv).
# Nor ``--no-index`` (or a path outside the repository, which git diff reads as ``--no-index``
# where the directory is not a repository): that makes git diff a reader of any file.
_GIT_WORD: Final = (
    r"(?!--ou|--ext|--textconv|--no-i|/|~|\.\.(?:/|$)|\S*/\.\.(?:/|$))[^\s{}$*?\[\]\\'\"]+"
)

BUILTIN_RULES: Final = (
    RuleConfig(
        name="builtin:list-files",
        action="allow",
        tools=("bash",),
        command=("ls", "ls *", "pwd", "pwd -L", "pwd -P"),
        reason="lists files or prints the working directory",
    ),
    RuleConfig(
        name="builtin:git-read",
        action="allow",
        tools=("bash",),
        command_regex=(
            rf"git (?:status|diff|log|show)(?: +{_GIT_WORD})* *",
            r"git branch(?: --show-current| --list)? *",
        ),
        reason="reads the git repository's state",
    ),
)
"""Read-only commands allowed without asking unless ``builtin_rules`` is false."""

Source = Literal["rule", "default_action", "other_tools_action", "decision_timeout"]

_EMBEDDED_WORDS: Final = 64  # the words of a command searched for a rule's program
_NOTHING: Final = Parsed((), ())
_CODE_DEPTH: Final = 2  # code that runs code that runs code, searched for a rule's command
_UNSETTLED: Final = re.compile(r"[$`*?\[{]")  # a word an expansion or a glob decides


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule compiled for matching."""

    name: str
    action: Action
    tools: tuple[str, ...]
    commands: tuple[re.Pattern[str], ...]  # globs are translated to regexes
    paths: tuple[PathPattern, ...]
    operators: frozenset[str]
    reason: str | None
    flags: frozenset[str] | None = frozenset()  # None: every writing option allowed
    shapes: tuple[Shape, ...] = ()

    @classmethod
    def compile(cls, config: RuleConfig, default_name: str) -> Rule:
        commands = [compile_command_glob(glob) for glob in config.command]
        commands += [compile_regex(regex) for regex in config.command_regex]
        paths = [compile_path_glob(glob) for glob in config.path]
        paths += [compile_path_regex(regex) for regex in config.path_regex]
        shapes: list[Shape] = []
        if config.action != "allow":
            shapes = [s for glob in config.command if (s := shape_of(glob)) is not None]
        return cls(
            shapes=tuple(shapes),
            name=config.name or default_name,
            action=config.action,
            tools=tuple(canonical_tool(glob) for glob in config.tools),
            commands=tuple(commands),
            paths=tuple(paths),
            operators=config.allowed_operators(),
            reason=config.reason,
            flags=config.allowed_flags(),
        )

    def covers(self, tool: str) -> bool:
        """True when this rule is about ``tool`` (one of its ``tools`` globs matches)."""
        return any(fnmatchcase(tool, pattern) for pattern in self.tools)

    def _command_matches(self, text: str) -> bool:
        return any(regex.fullmatch(text) is not None for regex in self.commands)

    def conditions_hold(self, subject: Subject) -> bool:
        """The rule's command and path conditions, as its action reads them."""
        if self.paths:
            if subject.target is None:
                return False
            if not any(pattern.matches(subject.target) for pattern in self.paths):
                return False
        if not self.commands:
            return True
        if subject.command is None or subject.scan is None:
            return False
        raw = subject.command.strip()
        if self.action == "allow":
            return self._command_matches(raw) and self._command_matches(subject.scan.canonical)
        if self._command_matches(raw) or self._command_matches(subject.scan.canonical):
            return True
        if any(self._command_matches(part) for part in subject.scan.parts):
            return True
        return any(
            self.runs_as_rule(run)
            or self._embeds_rule(run, exactly=True)
            or self._code_runs_rule(run)
            for run in subject.runs
        )

    def _code_runs_rule(self, run: Invocation, depth: int = 0) -> bool:
        """A deny or ask rule: ``run`` is a program given code (an interpreter's inline
        program, a here-string it reads) that names a command the rule names
        (:func:`~.embedded.commands_in`), through further code to a bounded depth."""
        if not run.code or depth > _CODE_DEPTH:
            return False
        for body in run.code[:_EMBEDDED_WORDS]:
            words = literal_words(body)  # searched from each word naming a program
            if self._embeds_rule(Invocation("", words, Parsed((), words)), exactly=True):
                return True
            for text in commands_in(body):
                for found in invocations(text):
                    if (
                        self.runs_as_rule(found)
                        or self._embeds_rule(found, exactly=True)
                        or self._code_runs_rule(found, depth + 1)
                    ):
                        return True
            # a literal that is code again (exec("os.system('rm -rf x')")): the literals are
            # disjoint parts of the body, so each level reads at most the body's length
            inner = tuple(word for word in words if any(q in word for q in "\"'`"))
            if inner and self._code_runs_rule(Invocation("", (), _NOTHING, code=inner), depth + 1):
                return True
        return False

    def runs_as_rule(self, run: Invocation) -> bool:
        """A deny or ask rule: ``run`` executes what the rule's patterns name (its shapes,
        or a pattern matching the invocation rendered canonically)."""
        if any(shape.matches(run) for shape in self.shapes):
            return True
        return any(self._command_matches(text) for text in renderings(run))

    def may_run_as_rule(
        self, run: Invocation, depth: int = 0, seen: dict[tuple[str, ...], int] | None = None
    ) -> bool:
        """A deny or ask rule: ``run`` runs the rule's program and something outside its words
        (an alias, configuration, arguments read from input) may make it what the rule
        names. ``seen``: the argument lists already searched in this call, with the least
        depth each was searched at (a list is searched again only from a shallower depth:
        the words after a word naming the rule's program are searched from each such word
        anyway, so ``w rm rm rm ...`` is not searched again from every suffix, which took
        time exponential in its words)."""
        if any(shape.may_match(run) for shape in self.shapes):
            return True
        if self._embeds_rule(run, depth=depth, seen={} if seen is None else seen):
            return True
        if run.uncertain is None or not run.name:
            return False
        return self._names(run.name)

    def _names(self, program: str) -> bool:
        """True when one of the rule's patterns names ``program`` as a word."""
        word = re.compile(rf"(?<![\w-]){re.escape(program)}(?![\w-])")
        return any(shape.program.split(" ", 1)[0] == program for shape in self.shapes) or any(
            word.search(regex.pattern) for regex in self.commands
        )

    def _embeds_rule(
        self,
        run: Invocation,
        *,
        exactly: bool = False,
        depth: int = 0,
        seen: dict[tuple[str, ...], int] | None = None,
    ) -> bool:
        """True when ``run``'s arguments, from a word naming the rule's program on, are a
        command the rule names: a program that runs its arguments as a command, known here or
        not (``setarch x86_64 rm -rf x``, ``mywrapper git push -f``); and so from the first
        word naming a program that runs others (``./w find x -delete``, ``./w python3 -c
        ...``), to a bounded depth. ``exactly``: only a command the rule names (a deny rule
        denies it); else also one that may be (asked)."""
        if seen is not None:  # searched before, as deep or shallower: nothing new to find
            if seen.get(run.arguments, depth + 1) <= depth:
                return False
            seen[run.arguments] = depth
        runner = depth < _CODE_DEPTH  # the first word naming a program that runs others
        unsettled = not exactly and depth < _CODE_DEPTH  # the first word known only when run
        for k, word in enumerate(run.arguments[:_EMBEDDED_WORDS]):
            if unsettled and _UNSETTLED.search(word):
                if self._may_be_program(run, k, depth):
                    return True
                unsettled = False
            name = word.rsplit("/", 1)[-1]
            if not name:
                continue
            named = self._names(name)
            if not named and not (runner and runs_commands(name)):
                continue
            runner = runner and named
            inner = invocations(shlex.join(run.arguments[k:]))
            if any(self.runs_as_rule(found) or self._code_runs_rule(found) for found in inner):
                return True
            if exactly:
                continue
            if any(
                (named and found.opaque) or self.may_run_as_rule(found, depth + 1, seen)
                for found in inner
            ):
                return True
        return False

    def _may_be_program(self, run: Invocation, k: int, depth: int) -> bool:
        """``run``'s word ``k`` is only known when it runs (an expansion, a glob): whether,
        were it the rule's program, the words from it on would be a command the rule names
        (``./w ${X:-rm} -r -f x`` under a ``rm -rf`` rule), or, a brace expansion, were it
        the words it expands to (``./w {rm,-rf,x}``)."""
        rest = run.arguments[k + 1 :]
        programs = dict.fromkeys(shape.program.split(" ", 1)[0] for shape in self.shapes)
        words = [[program, *rest] for program in programs]
        expanded = expand_braces(run.arguments[k])  # {rm,-rf,x} is the words rm -rf x
        if len(expanded) > 1:
            words.append([*expanded, *rest])
        for command in words:
            inner = invocations(shlex.join(command))
            if any(
                self.runs_as_rule(found) or self._embeds_rule(found, exactly=True)
                for found in inner
            ):
                return True
        return False

    def protects(self, subject: Subject) -> str | None:
        """A deny rule with a path condition and no command condition: the path a shell
        command names that the rule protects (:func:`~.reads.named_paths`); else one of
        :data:`~.reads.UNKNOWN` when the command opens files it does not name (a list read
        from a file, a directory too large to walk), which may be protected; else ``None``."""
        if not self.paths or self.commands or self.action != "deny" or not subject.runs:
            return None
        workspace = subject.workspace or "/"
        unknown: str | None = None
        for path in named_paths(subject.runs, workspace):
            if path in UNKNOWN:
                unknown = unknown or path
                continue
            target = resolve_target(path, workspace)
            if any(pattern.matches(target) for pattern in self.paths):
                return path
        return unknown

    def blocking_operators(self, subject: Subject, flags: tuple[str, ...] = ()) -> tuple[str, ...]:
        """For an allow rule: what in the command it does not allow (empty = nothing): shell
        operators, an unterminated quote, and the writing options ``flags`` the command holds
        (:func:`~.flags.writing_flags`) that the rule's ``allow_flags`` does not list."""
        scan = subject.scan
        if scan is None:
            return ()
        blocking = tuple(op for op in scan.operators if op not in self.operators)
        if scan.unterminated:
            blocking += ("unterminated quote",)
        if self.flags is not None:
            blocking += tuple(f"option {flag}" for flag in flags if flag not in self.flags)
        return blocking


@dataclass(frozen=True, slots=True)
class NearMiss:
    """An allow rule whose patterns match but which the command's operators stop."""

    rule: Rule
    operators: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a call, and why."""

    action: Action
    source: Source
    rule: Rule | None = None
    near_miss: NearMiss | None = None
    gated: bool = False

    @property
    def rule_name(self) -> str:
        """The deciding rule's name, or the config key whose default applied."""
        return self.rule.name if self.rule is not None else self.source


class RuleSet:
    """Every rule of one config (built-ins after the user's), and the defaults."""

    def __init__(self, config: ApprovalConfig) -> None:
        rules = [Rule.compile(rule, f"rules[{i}]") for i, rule in enumerate(config.rules)]
        if config.builtin_rules:
            rules += [Rule.compile(rule, rule.name or "builtin") for rule in BUILTIN_RULES]
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.gated_tools = tuple(canonical_tool(glob) for glob in config.tools)
        self.default_action: Action = config.default_action
        self.other_tools_action: Action = config.other_tools_action
        self._by_tool: dict[str, tuple[Rule, ...]] = {}
        self._gated: dict[str, bool] = {}

    def rules_for(self, tool: str) -> tuple[Rule, ...]:
        """The rules about ``tool`` (cached per tool name)."""
        found = self._by_tool.get(tool)
        if found is None:
            found = tuple(rule for rule in self.rules if rule.covers(tool))
            if len(self._by_tool) < 1024:
                self._by_tool[tool] = found
        return found

    def is_gated(self, tool: str) -> bool:
        """True when ``tool`` needs approval (it matches one of the ``tools`` globs)."""
        gated = self._gated.get(tool)
        if gated is None:
            gated = any(fnmatchcase(tool, pattern) for pattern in self.gated_tools)
            if len(self._gated) < 1024:
                self._gated[tool] = gated
        return gated

    def trivially_allowed(self, tool: str) -> bool:
        """True when no rule is about ``tool`` and it runs without approval: nothing to do."""
        return (
            not self.is_gated(tool)
            and self.other_tools_action == "allow"
            and not self.rules_for(tool)
        )

    def decide(self, subject: Subject) -> Decision:
        """Apply the precedence deny > ask > allow, then the defaults."""
        gated = self.is_gated(subject.tool)
        ask: Rule | None = None
        allow: Rule | None = None
        near_miss: NearMiss | None = None
        flags: tuple[str, ...] | None = None
        unknown = _unknowable(subject)
        for rule in self.rules_for(subject.tool):
            spend(len(subject.runs) + 1)
            if rule.action == "allow" and allow is not None:
                continue
            if rule.action == "ask" and ask is not None:
                continue
            verdict = _path_verdict(rule, subject)
            if verdict == "deny":
                return Decision("deny", "rule", rule, gated=gated)
            if verdict == "ask":  # it opens files it does not name: they may be protected
                ask = ask or rule
            if not rule.conditions_hold(subject):
                ask = ask or (rule if _may_apply(rule, subject) else None)
                continue
            if rule.action == "deny":
                return Decision("deny", "rule", rule, gated=gated)
            if rule.action == "ask":
                ask = rule
                continue
            if flags is None:
                flags = _writing_flags(subject)
            blocking = rule.blocking_operators(subject, flags) + unknown
            if blocking:
                near_miss = near_miss or NearMiss(rule, blocking)
                continue
            allow = rule
        if ask is not None:
            return Decision("ask", "rule", ask, near_miss, gated)
        if allow is not None:
            guard = self._protecting(subject)
            if guard is not None:  # a path another tool's deny rule protects: never allowed
                return Decision("ask", "rule", guard, NearMiss(allow, ("a protected path",)), gated)
            return Decision("allow", "rule", allow, gated=gated)
        source: Source = "default_action" if gated else "other_tools_action"
        action = self.default_action if gated else self.other_tools_action
        if unknown and action == "allow":  # what runs is only known when it runs
            action = "ask"
        return Decision(action, source, None, near_miss, gated)

    def _protecting(self, subject: Subject) -> Rule | None:
        """For a shell command: a deny rule about other tools whose path condition protects a
        file the command names (a rule about the shell itself has denied it already)."""
        if subject.command is None:
            return None
        for rule in self.rules:
            if not rule.covers(subject.tool) and rule.protects(subject):
                return rule
        return None


def _may_apply(rule: Rule, subject: Subject) -> bool:
    """A deny or ask rule whose conditions do not hold: something outside the command's words
    (an alias, configuration, arguments from input) may still make it what the rule names."""
    return rule.action != "allow" and any(rule.may_run_as_rule(run) for run in subject.runs)


def _path_verdict(rule: Rule, subject: Subject) -> Action | None:
    """A deny rule's ``path`` condition for a shell command: ``deny`` when the command names a
    file it protects, ``ask`` when it opens files it does not name, else ``None``."""
    if rule.action != "deny" or subject.command is None:
        return None
    protected = rule.protects(subject)
    if protected is None:
        return None
    return "ask" if protected in UNKNOWN else "deny"


def _unknowable(subject: Subject) -> tuple[str, ...]:
    """Why what the command runs cannot be known before it runs (an expansion or a glob as
    the program, a wrapper option not understood, a shell reading a file), each once."""
    return tuple(
        dict.fromkeys(
            f"a program known only when it runs ({run.opaque})"
            for run in subject.runs
            if run.opaque is not None
        )
    )


def _writing_flags(subject: Subject) -> tuple[str, ...]:
    """The writing options of every simple command in the call's command, each once."""
    if subject.scan is None:
        return ()
    found: dict[str, None] = {}
    for segment in subject.scan.segments:
        spend()
        found.update(dict.fromkeys(writing_flags(segment)))
    for run in subject.runs:  # and what each program runs, wrappers and runners removed
        if run.program and run.via:
            argv = [*run.program.split(" ", 1), *run.arguments]
            found.update(dict.fromkeys(writing_flags(shlex.join(argv))))
    return tuple(found)
