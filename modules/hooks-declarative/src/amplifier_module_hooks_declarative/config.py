"""The module's config and the hooks files it reads, validated with file, line and key path.

A hooks file (``~/.amplifier/hooks.yaml``, ``.amplifier/hooks.yaml``, a file listed in
``files``, or the ``hooks`` key of the module's config) maps event names to lists::

    hooks:
      PreToolUse:                      # or tool:pre, or a Claude Code name
        - type: matcher                # a hook: command | matcher | llm (see specs.py)
          match: {tool: Bash, args: {command: "rm *"}}
          action: block
        - parallel: true               # a group: its hooks run concurrently
          matcher: "Write|Edit"        # optional tool-name filter (Claude Code rules)
          hooks:
            - {type: command, command: ./check.sh}
    claude_code:                       # Claude Code's settings shape, run unchanged
      PreToolUse:
        - matcher: Bash
          hooks: [{type: command, command: ./guard.sh, timeout: 30}]

``.claude/settings.json`` and ``.claude/settings.local.json`` are read for their ``hooks`` key,
in Claude Code's shape. Hooks from a Claude Code block get ``protocol: claude-code``; its
``timeout`` is in seconds; its matcher groups run their hooks in parallel, as Claude Code does.

Every problem is reported in one :class:`HooksConfigError` naming the file, the line, the key
path and what was expected::

    hooks-declarative: .amplifier/hooks.yaml:7: hooks.PreToolUse[0].timout_ms: unknown key
    'timout_ms' (did you mean 'timeout_ms'?); expected one of: type, command, timeout_ms, ...
"""

from __future__ import annotations

import difflib
import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .mapping import CLAUDE_EVENTS, ERROR_PATTERN, KNOWN_EVENTS, PASCAL_EVENTS
from .matcher import compile_arg_pattern, compile_claude_matcher, compile_tool_pattern
from .specs import CommandHookSpec, HookSpec, LlmHookSpec, MatcherHookSpec, MatchSpec

__all__ = [
    "MODULE_ID",
    "DeclarativeConfig",
    "EventHooks",
    "HookEntry",
    "HookGroup",
    "HooksConfigError",
    "HooksDocument",
    "Problem",
    "Step",
    "parse_claude_settings",
    "parse_config",
    "parse_hooks_data",
    "parse_hooks_text",
]

MODULE_ID: Final = "hooks-declarative"
logger = logging.getLogger("amplifier_module_hooks_declarative")

Loc = tuple[str | int, ...]
_SPEC_ADAPTER: Final[TypeAdapter[HookSpec]] = TypeAdapter(
    Annotated[CommandHookSpec | MatcherHookSpec | LlmHookSpec, Field(discriminator="type")]
)
_SPEC_MODELS: Final[dict[str, type[BaseModel]]] = {
    "command": CommandHookSpec,
    "matcher": MatcherHookSpec,
    "llm": LlmHookSpec,
}
_DOCUMENT_KEYS: Final = ("hooks", "claude_code")
_GROUP_KEYS: Final = ("hooks", "parallel", "matcher")
_CLAUDE_GROUP_KEYS: Final = ("matcher", "hooks")
_CLAUDE_HOOK_KEYS: Final = ("type", "command", "timeout")
_EVENT_NAME: Final = re.compile(r"[a-z][a-z0-9_-]*(?::[a-z0-9_-]+)+")
_EXPECTED: Final = {
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "string_type": "a string",
    "string_too_short": "a non-empty string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "greater_than": "a number greater than 0",
}


# --------------------------------------------------------------------------- module config


class DeclarativeConfig(BaseModel):
    """The module's config keys (the README's config table documents each one)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    hooks: Any = None
    """Hooks declared inline: an event-keyed mapping, as in a hooks file's ``hooks:``."""

    files: list[str] = Field(default_factory=list)
    """More hooks files, read after the project's (relative paths: from the project dir)."""

    project_dir: str | None = None
    """The project directory when the session offers no ``session.working_dir``."""

    user_dir: str | None = None
    """Where the user's ``hooks.yaml`` lives (default ``$AMPLIFIER_HOME`` or ``~/.amplifier``)."""

    include_user: bool = True
    """Read the user's ``hooks.yaml``."""

    include_project: bool = True
    """Read the project's ``.amplifier/hooks.yaml`` (and its Claude Code settings)."""

    claude_code: bool = True
    """Read the ``hooks`` of the project's ``.claude/settings.json`` and ``settings.local.json``."""

    priority: int = 0
    """Priority of the module's handlers in the kernel's chain (lower runs first)."""

    async_grace_s: float = Field(default=5.0, ge=0)
    """At cleanup, how long running ``async: true`` hooks may finish before they are cancelled."""


def _key_path(loc: Loc) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"bool {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def parse_config(raw: Mapping[str, Any] | None) -> DeclarativeConfig:
    """Validate the module config; a bad key raises :class:`ValueError` starting with
    ``hooks-declarative: config`` and naming the key path and what was expected."""
    if raw is None:
        return DeclarativeConfig()
    if not isinstance(raw, Mapping):
        raise ValueError(f"{MODULE_ID}: config: expected a mapping of keys, got {_describe(raw)}")
    try:
        return DeclarativeConfig.model_validate(dict(raw))
    except ValidationError as err:
        problems: list[str] = []
        for error in err.errors(include_url=False):
            where = _key_path(tuple(error["loc"])) or "(root)"
            if error["type"] == "extra_forbidden":
                problems.append(
                    f"{where}: {_unknown_key(where, list(DeclarativeConfig.model_fields))}"
                )
            else:
                problems.append(f"{where}: {_expectation(error)}")
        raise ValueError(f"{MODULE_ID}: config: " + "; ".join(problems)) from err


def _unknown_key(key: str, allowed: list[str]) -> str:
    message = f"unknown key {key!r}"
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    return f"{message}; expected one of: {', '.join(allowed)}"


def _expectation(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    value = error.get("input")
    expected = _EXPECTED.get(kind)
    if kind == "literal_error":
        expected = f"one of {error.get('ctx', {}).get('expected', '')}"
    elif kind in ("greater_than", "greater_than_equal"):
        bound = error.get("ctx", {}).get("gt", error.get("ctx", {}).get("ge"))
        word = "greater than" if kind == "greater_than" else "at least"
        expected = f"a number {word} {bound}"
    if expected is None:
        return str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"expected {expected}, got {_describe(value)}"


# --------------------------------------------------------------------------- parsed hooks


@dataclass(frozen=True, slots=True)
class HookEntry:
    """One hook as declared, with the label naming where it came from
    (``~/.amplifier/hooks.yaml:hooks.PreToolUse[1]``)."""

    spec: HookSpec
    label: str


@dataclass(frozen=True, slots=True)
class HookGroup:
    """Hooks that run as one step: concurrently when ``parallel``; only for tools matching
    ``matcher`` (Claude Code's rules) when it is set."""

    hooks: tuple[HookEntry, ...]
    parallel: bool
    matcher: str | None
    label: str


Step = HookEntry | HookGroup


@dataclass(frozen=True, slots=True)
class EventHooks:
    """The steps declared for one event key in one source, in declaration order.

    ``name`` is the key as written (``PreToolUse``, ``Stop``, ``tool:pre``); ``event`` the
    canonical event or ``*:error``.
    """

    name: str
    event: str
    steps: tuple[Step, ...]
    source: str


@dataclass(frozen=True, slots=True)
class HooksDocument:
    """Everything one source declares, in declaration order."""

    source: str
    events: tuple[EventHooks, ...]

    def entries(self) -> Iterator[HookEntry]:
        """Every hook of the document, groups flattened."""
        for block in self.events:
            for step in block.steps:
                yield from (step.hooks if isinstance(step, HookGroup) else (step,))


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a hooks source."""

    message: str
    key_path: str | None = None
    line: int | None = None


class HooksConfigError(ValueError):
    """A hooks source is unreadable or invalid; the message names file, line and key path."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = sorted(problems, key=lambda p: p.line or 0)
        super().__init__(self._render())

    def _render(self) -> str:
        lines = [self._one(p) for p in self.problems]
        if len(lines) == 1:
            return f"{MODULE_ID}: {lines[0]}"
        return f"{MODULE_ID}: {self.source}: {len(lines)} problems:\n  " + "\n  ".join(lines)

    def _one(self, problem: Problem) -> str:
        where = self.source if problem.line is None else f"{self.source}:{problem.line}"
        if problem.key_path:
            where += f": {problem.key_path}"
        return f"{where}: {problem.message}"


# --------------------------------------------------------------------------- reading


def parse_hooks_text(text: str, source: str, *, json_text: bool = False) -> HooksDocument:
    """Parse a hooks file's text (YAML, or JSON with ``json_text``); ``source`` names the file
    in labels and errors.

    :raises HooksConfigError: invalid YAML/JSON, an unknown key, a wrong type; every problem
        with its line and key path.
    """
    root, data = _compose_json(text, source) if json_text else _compose_yaml(text, source)
    parser = _Parser(source, root)
    parser.problems.extend(_duplicate_keys(root))
    return parser.document(data)


def parse_hooks_data(data: Any, source: str) -> HooksDocument:
    """Parse an already-loaded hooks document (a mapping with ``hooks`` / ``claude_code``),
    such as the module config's inline ``hooks`` (``source`` is then ``config``)."""
    return _Parser(source, None).document(data)


def parse_claude_settings(text: str, source: str) -> HooksDocument:
    """The ``hooks`` of a Claude Code settings file (JSON); every other key is ignored."""
    root, data = _compose_json(text, source)
    parser = _Parser(source, root)
    if data is None:
        return HooksDocument(source, ())
    if not isinstance(data, dict):
        parser.fail((), f"expected a JSON object (Claude Code settings), got {_describe(data)}")
        parser.raise_problems()
    events = parser.event_map(data.get("hooks"), ("hooks",), claude=True)
    parser.raise_problems()
    return HooksDocument(source, tuple(events))


def _compose_yaml(text: str, source: str) -> tuple[Node | None, Any]:
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        what = ", ".join(p for p in (err.context, err.problem) if p) or "syntax error"
        line = mark.line + 1 if mark is not None else None
        raise HooksConfigError(source, [Problem(f"invalid YAML: {what}", line=line)]) from err
    except yaml.YAMLError as err:
        raise HooksConfigError(source, [Problem(f"invalid YAML: {err}")]) from err
    finally:
        loader.dispose()
    return root, data


def _compose_json(text: str, source: str) -> tuple[Node | None, Any]:
    try:
        data = json.loads(text) if text.strip() else None
    except json.JSONDecodeError as err:
        problem = Problem(f"invalid JSON: {err.msg} (column {err.colno})", line=err.lineno)
        raise HooksConfigError(source, [problem]) from err
    try:  # JSON is YAML once tabs (never inside JSON strings) are spaces: positions for free
        root = yaml.compose(text.replace("\t", " "), Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        root = None
    return root, data


def _pairs(node: MappingNode) -> Iterator[tuple[str | None, Node, Node]]:
    for key, value in node.value:
        yield (key.value if isinstance(key, ScalarNode) else None), key, value


def _find(root: Node | None, loc: Loc, *, key: bool = False) -> Node | None:
    """The deepest node along ``loc``; with ``key``, the key node of the last step."""
    node = root
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        if isinstance(node, MappingNode):
            found = next(((k, v) for name, k, v in _pairs(node) if name == str(part)), None)
            if found is None:
                return node
            node = found[0] if key and last else found[1]
        elif isinstance(node, SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return node
    return node


def _duplicate_keys(root: Node | None) -> Iterator[Problem]:
    """YAML and JSON keep the last of two equal keys; a hooks file must say it once."""
    stack: list[tuple[Node, Loc]] = [(root, ())] if root is not None else []
    while stack:
        node, loc = stack.pop()
        if isinstance(node, MappingNode):
            seen: dict[str, Node] = {}
            for name, key, value in _pairs(node):
                if name is not None and name != "<<":
                    if name in seen:
                        yield Problem(
                            f"duplicate key {name!r} (first at line "
                            f"{seen[name].start_mark.line + 1}); only one would be kept",
                            key_path=_key_path((*loc, name)),
                            line=key.start_mark.line + 1,
                        )
                    else:
                        seen[name] = key
                stack.append((value, (*loc, name if name is not None else "?")))
        elif isinstance(node, SequenceNode):
            stack.extend((item, (*loc, i)) for i, item in enumerate(node.value))


# --------------------------------------------------------------------------- the parser


class _Parser:
    """Walks one document, collecting every problem with its position, then raises once."""

    def __init__(self, source: str, root: Node | None) -> None:
        self.source = source
        self.root = root
        self.problems: list[Problem] = []

    # -- problems

    def fail(self, loc: Loc, message: str, *, key: bool = False) -> None:
        node = _find(self.root, loc, key=key)
        line = node.start_mark.line + 1 if node is not None else None
        self.problems.append(Problem(message, _key_path(loc) or None, line))

    def raise_problems(self) -> None:
        if self.problems:
            raise HooksConfigError(self.source, self.problems)

    def label(self, loc: Loc) -> str:
        return f"{self.source}:{_key_path(loc)}"

    # -- structure

    def document(self, data: Any) -> HooksDocument:
        events: list[EventHooks] = []
        if data is not None and not isinstance(data, dict):
            self.fail((), f"expected a mapping with 'hooks:', got {_describe(data)}")
        elif data:
            for key in data:
                if key not in _DOCUMENT_KEYS:
                    self.fail((str(key),), _unknown_key(str(key), list(_DOCUMENT_KEYS)), key=True)
            if "hooks" in data:
                events.extend(self.event_map(data["hooks"], ("hooks",), claude=False))
            if "claude_code" in data:
                block = data["claude_code"]
                loc: Loc = ("claude_code",)
                if isinstance(block, dict) and set(block) == {"hooks"}:
                    block, loc = block["hooks"], ("claude_code", "hooks")
                events.extend(self.event_map(block, loc, claude=True))
        self.raise_problems()
        return HooksDocument(self.source, tuple(events))

    def event_map(self, value: Any, loc: Loc, *, claude: bool) -> list[EventHooks]:
        if value is None:
            return []
        if not isinstance(value, dict):
            self.fail(
                loc, f"expected a mapping of event name to a list of hooks, got {_describe(value)}"
            )
            return []
        events: list[EventHooks] = []
        for name, items in value.items():
            here = (*loc, str(name))
            event = self.event_name(name, here, claude=claude)
            if event is None:
                continue
            if items is None:
                continue
            if not isinstance(items, list):
                self.fail(here, f"expected a list of hooks, got {_describe(items)}")
                continue
            steps: list[Step] = []
            for index, item in enumerate(items):
                step = (
                    self.claude_group(item, (*here, index))
                    if claude
                    else self.item(item, (*here, index))
                )
                if step is not None:
                    steps.append(step)
            if claude and name == "SessionStart":
                events.extend(self.session_start(steps))
            else:
                events.append(EventHooks(str(name), event, tuple(steps), self.source))
        return events

    def session_start(self, steps: list[Step]) -> Iterator[EventHooks]:
        """Claude Code's SessionStart fires at startup and at resume; its matcher picks which."""
        for event, origin in (("session:start", "startup"), ("session:resume", "resume")):
            kept: list[Step] = []
            for step in steps:
                matcher = step.matcher if isinstance(step, HookGroup) else None
                try:
                    if compile_claude_matcher(matcher)(origin):
                        kept.append(step)
                except re.error:  # already reported
                    continue
            if kept:
                yield EventHooks("SessionStart", event, tuple(kept), self.source)

    def event_name(self, name: Any, loc: Loc, *, claude: bool) -> str | None:
        if not isinstance(name, str):
            self.fail(loc, f"expected an event name, got {_describe(name)}", key=True)
            return None
        if claude:
            if name not in CLAUDE_EVENTS:
                known = ", ".join(CLAUDE_EVENTS)
                self.fail(
                    loc, f"unknown Claude Code event {name!r}; expected one of: {known}", key=True
                )
                return None
            event = CLAUDE_EVENTS[name]
            if event is None:
                logger.warning(
                    "%s: %s: Claude Code event %r has no counterpart here; its hooks are skipped",
                    self.source,
                    _key_path(loc),
                    name,
                )
            return event
        if name in PASCAL_EVENTS:
            return PASCAL_EVENTS[name]
        if name in CLAUDE_EVENTS:
            event = CLAUDE_EVENTS[name]
            if event is None:
                self.fail(loc, f"event {name!r} (Claude Code) has no counterpart here", key=True)
            return event
        if name == ERROR_PATTERN or name in KNOWN_EVENTS:
            return name
        names = sorted({*PASCAL_EVENTS, *CLAUDE_EVENTS, *KNOWN_EVENTS})
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
        if _EVENT_NAME.fullmatch(name) and not close:
            return name  # an event of a third-party module
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        self.fail(
            loc,
            f"unknown event {name!r}{hint}; expected a PascalCase name "
            f"({', '.join(PASCAL_EVENTS)}), a Claude Code name or a canonical name such as "
            "'tool:pre'",
            key=True,
        )
        return None

    def item(self, item: Any, loc: Loc) -> Step | None:
        if isinstance(item, dict) and "type" in item:
            return self.hook(item, loc)
        if isinstance(item, dict) and "hooks" in item:
            return self.group(item, loc)
        self.fail(
            loc,
            "expected a hook (a mapping with 'type: command | matcher | llm') or a group "
            f"(a mapping with 'hooks:'), got {_describe(item)}",
        )
        return None

    def group(self, item: dict[str, Any], loc: Loc) -> HookGroup | None:
        for key in item:
            if key not in _GROUP_KEYS:
                self.fail((*loc, str(key)), _unknown_key(str(key), list(_GROUP_KEYS)), key=True)
        parallel = item.get("parallel", False)
        if not isinstance(parallel, bool):
            self.fail((*loc, "parallel"), f"expected true or false, got {_describe(parallel)}")
        matcher = self.matcher_string(item.get("matcher"), (*loc, "matcher"))
        hooks = item.get("hooks")
        if not isinstance(hooks, list):
            self.fail((*loc, "hooks"), f"expected a list of hooks, got {_describe(hooks)}")
            return None
        entries: list[HookEntry] = []
        for index, hook in enumerate(hooks):
            here = (*loc, "hooks", index)
            if isinstance(hook, dict) and "type" in hook:
                entry = self.hook(hook, here)
                if entry is not None:
                    entries.append(entry)
            elif isinstance(hook, dict) and "hooks" in hook:
                self.fail(here, "groups cannot be nested; list the hooks in one group")
            else:
                self.fail(
                    here,
                    "expected a hook (a mapping with 'type: command | matcher | "
                    f"llm'), got {_describe(hook)}",
                )
        return HookGroup(tuple(entries), parallel is True, matcher, self.label(loc))

    def matcher_string(self, value: Any, loc: Loc) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(loc, f"expected a tool-name matcher string, got {_describe(value)}")
            return None
        try:
            compile_claude_matcher(value)
        except re.error as err:
            self.fail(loc, f"invalid regular expression {value!r}: {err}")
        return value

    def hook(self, item: dict[str, Any], loc: Loc) -> HookEntry | None:
        kind = item.get("type")
        if kind not in _SPEC_MODELS:
            self.fail(
                (*loc, "type"),
                f"unknown hook type {kind!r}; expected one of: {', '.join(_SPEC_MODELS)}",
            )
            return None
        try:
            spec = _SPEC_ADAPTER.validate_python(item)
        except ValidationError as err:
            model = _SPEC_MODELS[str(kind)]
            for error in err.errors(include_url=False):
                sub: Loc = tuple(error["loc"])[1:]  # drop the union tag
                self.spec_problem(model, error, (*loc, *sub))
            return None
        if isinstance(spec, MatcherHookSpec):
            self.check_patterns(spec, loc)
        return HookEntry(spec, self.label(loc))

    def spec_problem(self, model: type[BaseModel], error: Mapping[str, Any], loc: Loc) -> None:
        kind = error["type"]
        if kind == "extra_forbidden":
            allowed = _allowed_keys(model, loc)
            self.fail(loc, _unknown_key(str(loc[-1]), allowed), key=True)
        elif kind == "missing":
            self.fail(loc[:-1], f"missing required key {loc[-1]!r}")
        else:
            self.fail(loc, _expectation(error))

    def check_patterns(self, spec: MatcherHookSpec, loc: Loc) -> None:
        match = spec.match
        if match.tool is not None:
            try:
                compile_tool_pattern(match.tool, regex=match.regex)
            except re.error as err:
                self.fail((*loc, "match", "tool"), f"invalid regular expression: {err}")
        for key, pattern in match.args.items():
            try:
                compile_arg_pattern(key, pattern, regex=match.regex)
            except re.error as err:
                self.fail((*loc, "match", "args", key), f"invalid regular expression: {err}")

    def claude_group(self, item: Any, loc: Loc) -> HookGroup | None:
        if not isinstance(item, dict):
            self.fail(
                loc,
                f"expected a Claude Code matcher group {{matcher, hooks}}, got {_describe(item)}",
            )
            return None
        for key in item:
            if key not in _CLAUDE_GROUP_KEYS:
                self.fail(
                    (*loc, str(key)), _unknown_key(str(key), list(_CLAUDE_GROUP_KEYS)), key=True
                )
        matcher = self.matcher_string(item.get("matcher"), (*loc, "matcher"))
        hooks = item.get("hooks")
        if not isinstance(hooks, list):
            self.fail((*loc, "hooks"), f"expected a list of hooks, got {_describe(hooks)}")
            return None
        entries = [
            entry
            for index, hook in enumerate(hooks)
            if (entry := self.claude_hook(hook, (*loc, "hooks", index))) is not None
        ]
        return HookGroup(tuple(entries), True, matcher, self.label(loc))

    def claude_hook(self, hook: Any, loc: Loc) -> HookEntry | None:
        if not isinstance(hook, dict):
            self.fail(loc, f"expected a hook {{type, command, timeout}}, got {_describe(hook)}")
            return None
        kind = hook.get("type")
        if kind == "prompt":
            logger.warning("%s: Claude Code prompt hooks are not run; skipped", self.label(loc))
            return None
        if kind != "command":
            self.fail((*loc, "type"), f"expected 'command', got {_describe(kind)}")
            return None
        for key in hook:
            if key not in _CLAUDE_HOOK_KEYS:
                self.fail(
                    (*loc, str(key)), _unknown_key(str(key), list(_CLAUDE_HOOK_KEYS)), key=True
                )
        command = hook.get("command")
        if not isinstance(command, str) or not command.strip():
            self.fail(
                (*loc, "command"), f"expected a non-empty command string, got {_describe(command)}"
            )
            return None
        timeout = hook.get("timeout", 60)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            self.fail(
                (*loc, "timeout"),
                f"expected a number of seconds greater than 0, got {_describe(timeout)}",
            )
            return None
        spec = CommandHookSpec(
            type="command",
            command=command,
            timeout_ms=max(1, round(timeout * 1000)),
            protocol="claude-code",
        )
        return HookEntry(spec, self.label(loc))


def _allowed_keys(model: type[BaseModel], loc: Loc) -> list[str]:
    if len(loc) >= 2 and loc[-2] == "match" and model is MatcherHookSpec:
        model = MatchSpec
    return [field.alias or name for name, field in model.model_fields.items()]
