"""Reading hooks files, validated with file, line and key path: the module's own hooks files,
Claude Code's settings shape, and the helpers every format's reader builds on.

The helpers are public, and each format's reader (``formats/<name>/reader.py``) uses them
rather than anything private: :class:`Parser` walks one document and collects every problem
with its position (``fail``, ``unknown``, ``entry``, ``label``, ``raise_problems``, and
``event_map(..., claude=True)`` for a block in Claude Code's shape); :func:`json_object` and
:func:`compose_yaml` read a file's text with positions; :func:`read_claude_hooks` reads a JSON
file in Claude Code's settings shape; :func:`foreign_tool_matcher` turns another tool's tool
matcher into one on our tool names.

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
``timeout`` is in seconds; its matcher groups run their hooks in parallel, as Claude Code does,
unless the group says ``parallel: false`` (hook-shell's key): then one after the other.

Every problem is reported in one :class:`HooksConfigError` naming the file, the line, the key
path and what was expected::

    hooks-declarative: .amplifier/hooks.yaml:7: hooks.PreToolUse[0].timout_ms: unknown key
    'timout_ms' (did you mean 'timeout_ms'?); expected one of: type, command, timeout_ms, ...
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import logging
import re
import shutil
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Final

from amplifier_hooks_util.config_errors import describe_value as _describe
from amplifier_hooks_util.config_errors import key_path, validation_problems
from amplifier_hooks_util.config_errors import unknown_key_message as _unknown_key
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

if TYPE_CHECKING:  # PyYAML is imported with the first file read, not by a mount with none
    from amplifier_hooks_util.yaml_locations import YamlDocument

from .config import MODULE_ID
from .document import (
    EventHooks,
    HookEntry,
    HookGroup,
    HooksConfigError,
    HooksDocument,
    Problem,
    Step,
)
from .mapping import CLAUDE_EVENTS, ERROR_PATTERN, KNOWN_EVENTS, PASCAL_EVENTS
from .patterns import (
    compile_arg_pattern,
    compile_claude_matcher,
    compile_tool_pattern,
    tool_names,
)
from .permission_rules import compile_permission_rule
from .specs import (
    AgentHookSpec,
    CommandHookSpec,
    HookSpec,
    HttpHookSpec,
    LlmHookSpec,
    MatcherHookSpec,
    McpToolHookSpec,
    PromptHookSpec,
    UnreadableHookSpec,
)
from .tool_matchers import composed_matcher
from .types import OnFailure

__all__ = [
    "Loc",
    "Parser",
    "compose_json",
    "compose_yaml",
    "duplicate_keys",
    "foreign_tool_matcher",
    "json_object",
    "parse_hooks_data",
    "parse_hooks_text",
    "read_claude_hooks",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

Loc = tuple[str | int, ...]
_SPEC_TYPE: Final[Any] = Annotated[
    CommandHookSpec | MatcherHookSpec | LlmHookSpec, Field(discriminator="type")
]
_SPEC_ADAPTER: Final[TypeAdapter[HookSpec]] = TypeAdapter(_SPEC_TYPE)
_SPEC_MODELS: Final[dict[str, type[BaseModel]]] = {
    "command": CommandHookSpec,
    "matcher": MatcherHookSpec,
    "llm": LlmHookSpec,
}


def _plugin_spec(kind: str) -> type[BaseModel] | None:
    """The spec model of the hook type ``kind`` of another distribution that the module's own
    hooks files accept (:mod:`.runner_plugins`), or ``None``."""
    from .runner_plugins import runner_plugin

    plugin = runner_plugin(kind)
    return plugin.spec if plugin is not None and plugin.in_hooks_files else None


def _plugin_type_names() -> list[str]:
    """The hook types of other distributions (not loaded: for an error message)."""
    from .registry import DISTRIBUTION, RUNNERS_GROUP, plugins

    return [p.name for p in plugins(RUNNERS_GROUP) if p.distribution != DISTRIBUTION]


_DOCUMENT_KEYS: Final = ("hooks", "claude_code")
_GROUP_KEYS: Final = ("hooks", "parallel", "matcher")
_CLAUDE_GROUP_KEYS: Final = ("matcher", "hooks", "parallel")
_CLAUDE_COMMON_KEYS: Final = ("type", "if", "timeout", "onFailure", "statusMessage", "once")
"""Keys of every Claude Code hook: ``if`` (a permission rule, :mod:`.permission_rules`),
``timeout`` (seconds), ``onFailure`` (``block``: a hook that cannot run, times out or fails
blocks), ``statusMessage`` (a spinner text, accepted and not shown) and ``once`` (accepted;
Claude Code honours it in skills only)."""
_CLAUDE_TYPE_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "command": (*_CLAUDE_COMMON_KEYS, "command", "args", "shell", "async", "asyncRewake"),
    "http": (*_CLAUDE_COMMON_KEYS, "url", "headers", "allowedEnvVars"),
    "prompt": (*_CLAUDE_COMMON_KEYS, "prompt", "model"),
    "agent": (*_CLAUDE_COMMON_KEYS, "prompt", "model"),
    "mcp_tool": (*_CLAUDE_COMMON_KEYS, "server", "tool", "input"),
}
"""The keys of each Claude Code hook type. A key or a ``type`` not listed here makes the hook
that carries it unreadable (:class:`~.specs.UnreadableHookSpec`), never its siblings."""
_CLAUDE_VALUES: Final[dict[str, tuple[str, ...]]] = {
    "shell": ("bash", "powershell"),
    "onFailure": ("block", "continue", "warn", "ignore"),
}
"""The values Claude Code's enumerated keys may take; another value is unknown, as a key is."""
_ON_FAILURE: Final[dict[str, OnFailure]] = {
    "block": "block",
    "continue": "warn",
    "warn": "warn",
    "ignore": "ignore",
}
_POWERSHELLS: Final = ("pwsh", "powershell")
_CLAUDE_EVENT_NAME: Final = re.compile(r"[A-Z][A-Za-z0-9]*")
"""A name Claude Code could give a newer event (PascalCase)."""
_EVENT_NAME: Final = re.compile(r"[a-z][a-z0-9_-]*(?::[a-z0-9_-]+)+")


# --------------------------------------------------------------------------- reading


def _valid_rule(rule: Any) -> str | None:
    """``rule`` when it is a permission rule that compiles (a hook's ``if``), else ``None``."""
    if not isinstance(rule, str):
        return None
    try:
        compile_permission_rule(rule)
    except ValueError:
        return None
    return rule


def parse_hooks_text(text: str, source: str, *, json_text: bool = False) -> HooksDocument:
    """Parse a hooks file's text (YAML, or JSON with ``json_text``); ``source`` names the file
    in labels and errors.

    :raises HooksConfigError: invalid YAML/JSON, an unknown key, a wrong type; every problem
        with its line and key path.
    """
    document = compose_json(text, source) if json_text else compose_yaml(text, source)
    parser = Parser(source, document)
    parser.problems.extend(duplicate_keys(document))
    return parser.document(document.data)


def parse_hooks_data(
    data: Any, source: str, *, lines: Mapping[str, int] | None = None
) -> HooksDocument:
    """Parse an already-loaded hooks document (a mapping with ``hooks`` / ``claude_code``),
    such as the module config's inline ``hooks`` (``source`` is then ``config``); ``lines``:
    the line of each key path in the file it was written in (``hooks_origin``), for the
    line of each entry."""
    parser = Parser(source, None)
    if lines:
        parser.entry_lines = _KeyLines(lines)
    return parser.document(data)


class _KeyLines:
    """The lines of key paths (``hooks.PreToolUse[0]``), read as a document's positions: a
    path not listed has the line of the nearest enclosing one."""

    def __init__(self, lines: Mapping[str, int]) -> None:
        self.lines = lines

    def line_of(self, path: Loc, *, key: bool = False) -> int | None:
        for end in range(len(path), 0, -1):
            found = self.lines.get(key_path(path[:end]))
            if found is not None:
                return found
        return None


def read_claude_hooks(text: str, source: str, what: str) -> HooksDocument:
    """The ``hooks`` of a JSON file in Claude Code's settings shape (``{"hooks": {<Claude Code
    event>: [matcher groups]}}``; every other key is ignored); ``what`` names the format in
    errors. A key or value of a hook (or of its matcher group) that this version does not know
    makes that hook alone unreadable (:class:`~.specs.UnreadableHookSpec`); its siblings run.

    :raises HooksConfigError: invalid JSON or hooks, every problem with its line and key path.
    """
    read = json_object(text, source, what)
    if read is None:
        return HooksDocument(source, ())
    parser, data = read
    events = parser.event_map(data.get("hooks"), ("hooks",), claude=True)
    parser.raise_problems()
    return HooksDocument(source, tuple(events))


def compose_yaml(text: str, source: str) -> YamlDocument:
    """The YAML document of ``text``, with its positions.

    :raises HooksConfigError: the text is not YAML, with the line.
    """
    import yaml
    from amplifier_hooks_util.yaml_locations import YamlDocument, describe_yaml_error

    try:
        return YamlDocument.parse(text)
    except yaml.YAMLError as err:
        message, line, _ = describe_yaml_error(err)
        raise HooksConfigError(source, [Problem(f"invalid YAML: {message}", line=line)]) from err


def json_object(text: str, source: str, what: str) -> tuple[Parser, dict[Any, Any]] | None:
    """The parser of a JSON file that must hold an object (``what`` names the format), and
    that object; ``None`` for an empty file.

    :raises HooksConfigError: the text is not JSON, or not an object.
    """
    document = compose_json(text, source)
    parser = Parser(source, document)
    data = document.data
    if data is None:
        return None
    if not isinstance(data, dict):
        parser.fail((), f"expected a JSON object ({what}), got {_describe(data)}")
        parser.raise_problems()
    return parser, data


def compose_json(text: str, source: str) -> YamlDocument:
    """The JSON data, with the positions of its YAML reading (JSON is YAML once tabs, never
    inside JSON strings, are spaces)."""
    import yaml
    from amplifier_hooks_util.yaml_locations import YamlDocument

    try:
        data = json.loads(text) if text.strip() else None
    except json.JSONDecodeError as err:
        problem = Problem(f"invalid JSON: {err.msg} (column {err.colno})", line=err.lineno)
        raise HooksConfigError(source, [problem]) from err
    except RecursionError as err:
        raise HooksConfigError(source, [Problem("invalid JSON: nested too deeply")]) from err
    try:
        positions = YamlDocument.positions(text.replace("\t", " "))
    except yaml.YAMLError:
        positions = YamlDocument(None)
    return YamlDocument(positions.root, data)


def duplicate_keys(document: YamlDocument) -> Iterator[Problem]:
    """YAML and JSON keep the last of two equal keys; a hooks file must say it once."""
    for dup in document.duplicate_keys():
        yield Problem(
            f"duplicate key {dup.key!r} (first at line {dup.first_line}); only one would be kept",
            key_path=key_path(dup.path),
            line=dup.line,
            loc=tuple(dup.path),
        )


def foreign_tool_matcher(pattern: str, theirs: Mapping[str, str]) -> str | None:
    """A matcher string (Claude Code rules, see :func:`~.patterns.compile_claude_matcher`)
    that accepts our tools exactly when ``pattern``, a regular expression searched in the
    other tool's names (``theirs``: our name -> theirs), accepts their name; a tool not in
    ``theirs`` is matched under its own name. An invalid expression is an exact name.
    ``None``: every tool."""
    if pattern.strip() in ("", "*"):
        return None
    try:
        compiled = re.compile(pattern)
    except re.error:
        pattern = f"^{re.escape(pattern)}$"
        compiled = re.compile(pattern)
    accepted = [ours for ours, name in theirs.items() if compiled.search(name)]
    known = sorted({alias for ours in theirs for alias in tool_names(ours)})
    return composed_matcher(accepted, known, f".*?(?:{pattern})")


# --------------------------------------------------------------------------- the parser


class Parser:
    """Walks one document, collecting every problem with its position, then raises once."""

    def __init__(self, source: str, document: YamlDocument | None) -> None:
        self.source = source
        self.positions = document
        self.entry_lines: _KeyLines | None = None
        """The lines of an inline document's entries (it has no positions of its own)."""
        self.problems: list[Problem] = []

    # -- problems

    def unknown(self, loc: Loc, known: Sequence[str]) -> None:
        """An unknown key at ``loc``: a problem."""
        self.fail(loc, _unknown_key(str(loc[-1]), list(known)), key=True)

    def where(self, loc: Loc, *, key: bool = False) -> str:
        """``<source>:<line>: <key path>`` of ``loc``."""
        line = self.positions.line_of(loc, key=key) if self.positions else None
        place = self.source if line is None else f"{self.source}:{line}"
        return f"{place}: {key_path(loc)}"

    def fail(self, loc: Loc, message: str, *, key: bool = False) -> None:
        """A problem at ``loc`` (``key``: the key there itself is wrong), with its line."""
        line = self.positions.line_of(loc, key=key) if self.positions else None
        self.problems.append(Problem(message, key_path(loc) or None, line, tuple(loc), key))

    def warn(self, loc: Loc, message: str) -> None:
        """Log what at ``loc`` is ignored or skipped (a warning, not a problem): the file and
        line of the key there, and its key path."""
        line = self.positions.line_of(loc, key=True) if self.positions else None
        where = self.source + (f":{line}" if line else "")
        logger.warning("%s: %s: %s", where, key_path(loc), message)

    def ignore_unknown_keys(
        self, item: Mapping[Any, Any], loc: Loc, known: Collection[Any]
    ) -> None:
        """Warn of each key of ``item`` (at ``loc``) that is not in ``known``: it is ignored."""
        for key in item:
            if key not in known:
                self.warn((*loc, str(key)), f"unknown key {key!r} ignored")

    def unknown_event(self, name: str, loc: Loc, known: Sequence[str], what: str) -> None:
        """Event ``name`` at ``loc`` is none of the ``known`` events (of a tool, ``what``:
        ``Cursor hook event``): a problem, with the closest known name as a hint."""
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        self.fail(
            loc,
            f"unknown {what} {name!r}{hint}; expected one of: {', '.join(known)}",
            key=True,
        )

    def hook_list(self, items: Any, loc: Loc) -> list[Any] | None:
        """``items`` when it is a list of hooks; else ``None``, with the problem at ``loc``."""
        if not isinstance(items, list):
            self.fail(loc, f"expected a list of hooks, got {_describe(items)}")
            return None
        return items

    def command_string(self, command: Any, loc: Loc) -> str | None:
        """``command`` when it is a non-empty string; else ``None``, with the problem at
        ``loc``'s ``command``."""
        if not isinstance(command, str) or not command.strip():
            self.fail(
                (*loc, "command"), f"expected a non-empty command string, got {_describe(command)}"
            )
            return None
        return command

    def tool_events(
        self, hooks: Any, read_event: Callable[[str, Any, Loc], list[EventHooks]]
    ) -> list[EventHooks]:
        """The events of another tool's ``hooks`` object (event name -> its hooks), each read
        by ``read_event(name, items, loc)``; anything but an object is a problem."""
        if hooks is not None and not isinstance(hooks, dict):
            self.fail(
                ("hooks",),
                f"expected an object of event -> list of hooks, got {_describe(hooks)}",
            )
            return []
        events: list[EventHooks] = []
        for name, items in (hooks or {}).items():
            events.extend(read_event(str(name), items, ("hooks", str(name))))
        return events

    def raise_problems(self) -> None:
        """Raise every problem collected so far as one :class:`HooksConfigError`."""
        if self.problems:
            raise HooksConfigError(self.source, self.problems)

    def label(self, loc: Loc) -> str:
        """How hooks at ``loc`` are named: ``<source>:<key path>``."""
        return f"{self.source}:{key_path(loc)}"

    def entry(self, spec: HookSpec, loc: Loc) -> HookEntry:
        """The :class:`HookEntry` of ``spec`` at ``loc``, with its label and line."""
        line = None
        positions = self.positions if self.positions is not None else self.entry_lines
        if positions is not None:
            field = (*loc, "command") if isinstance(spec, CommandHookSpec) else loc
            line = positions.line_of(field) or positions.line_of(loc)
        return HookEntry(spec, self.label(loc), loc, line)

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
                loc,
                f"expected a mapping of event name to a list of hooks, got {_describe(value)}",
            )
            return []
        events: list[EventHooks] = []
        for name, items in value.items():
            here = (*loc, str(name))
            event = self.event_name(name, here, claude=claude)
            if items is None:
                continue
            if self.hook_list(items, here) is None:
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
            if event is None:  # reported; its hooks were still checked
                continue
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
                close = difflib.get_close_matches(name, list(CLAUDE_EVENTS), n=1, cutoff=0.8)
                if close or not _CLAUDE_EVENT_NAME.fullmatch(name):
                    known = ", ".join(CLAUDE_EVENTS)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    self.fail(
                        loc,
                        f"unknown Claude Code event {name!r}{hint}; expected one of: {known}",
                        key=True,
                    )
                    return None
                logger.warning(  # a newer Claude Code's event: nothing here fires it
                    "%s: %s: Claude Code event %r is not known here and never fires; its hooks "
                    "are skipped",
                    MODULE_ID,
                    self.where(loc, key=True),
                    name,
                )
                return None
            event = CLAUDE_EVENTS[name]
            if event is None:
                logger.warning(
                    "%s: %s: Claude Code event %r is never fired here; its hooks are skipped",
                    self.source,
                    key_path(loc),
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
        hooks = self.hook_list(item.get("hooks"), (*loc, "hooks"))
        if hooks is None:
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
        model: Any = _SPEC_TYPE
        if isinstance(kind, str) and kind not in _SPEC_MODELS:
            model = _plugin_spec(kind)
        if not isinstance(kind, str) or model is None:
            shown = repr(kind) if isinstance(kind, str) else _describe(kind)
            known = ", ".join([*_SPEC_MODELS, *_plugin_type_names()])
            self.fail((*loc, "type"), f"unknown hook type {shown}; expected one of: {known}")
            return None
        try:
            spec = (
                _SPEC_ADAPTER.validate_python(item)
                if model is _SPEC_TYPE
                else model.model_validate(item)
            )
        except ValidationError as err:
            for problem in validation_problems(
                err, schema=model, base=loc, document=self.positions
            ):
                self.problems.append(
                    Problem(problem.message, problem.key_path, problem.line, tuple(problem.loc))
                )
            return None
        if isinstance(spec, MatcherHookSpec):
            self.check_patterns(spec, loc)
        return self.entry(spec, loc)

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
        unknown = [
            self.unknown_key((*loc, str(key)), _CLAUDE_GROUP_KEYS)
            for key in item
            if key not in _CLAUDE_GROUP_KEYS
        ]
        matcher = self.matcher_string(item.get("matcher"), (*loc, "matcher"))
        parallel = item.get("parallel", True)  # Claude Code runs a group's hooks in parallel
        if not isinstance(parallel, bool):
            self.fail((*loc, "parallel"), f"expected true or false, got {_describe(parallel)}")
        hooks = self.hook_list(item.get("hooks"), (*loc, "hooks"))
        if hooks is None:
            return None
        entries = [
            entry
            for index, hook in enumerate(hooks)
            if (entry := self.claude_hook(hook, (*loc, "hooks", index), unknown)) is not None
        ]
        together = parallel is not False
        return HookGroup(tuple(entries), together, matcher, self.label(loc), joint=together)

    def unknown_key(self, loc: Loc, known: Sequence[str]) -> str:
        """What is wrong with the unknown key at ``loc``, with its file, line and key path."""
        return f"{self.where(loc, key=True)}: {_unknown_key(str(loc[-1]), list(known))}"

    def claude_unknowns(self, hook: dict[str, Any], loc: Loc) -> list[str]:
        """The keys and values of a Claude Code hook this version does not know, each named
        with file, line and key path; an unknown ``type`` is the only one reported then."""
        kind = hook.get("type")
        if not isinstance(kind, str) or kind not in _CLAUDE_TYPE_KEYS:
            known = ", ".join(_CLAUDE_TYPE_KEYS)
            return [
                f"{self.where((*loc, 'type'))}: unknown hook type {_describe(kind)}; "
                f"expected one of: {known}"
            ]
        known_keys = _CLAUDE_TYPE_KEYS[kind]
        found = [
            self.unknown_key((*loc, str(key)), known_keys) for key in hook if key not in known_keys
        ]
        for key, values in _CLAUDE_VALUES.items():
            if key in hook and hook[key] not in values:
                found.append(
                    f"{self.where((*loc, key))}: unknown value {_describe(hook[key])}; "
                    f"expected one of: {', '.join(values)}"
                )
        if hook.get("shell") == "powershell" and not any(map(shutil.which, _POWERSHELLS)):
            found.append(
                f"{self.where((*loc, 'shell'))}: 'powershell': no PowerShell on this machine "
                f"(neither {' nor '.join(_POWERSHELLS)} is on PATH)"
            )
        if "if" in hook:
            rule = hook["if"]
            try:
                if not isinstance(rule, str):
                    raise ValueError(f"expected a permission rule string, got {_describe(rule)}")
                compile_permission_rule(rule)
            except ValueError as err:
                found.append(f"{self.where((*loc, 'if'))}: {err}")
        return found

    def claude_hook(self, hook: Any, loc: Loc, inherited: Sequence[str] = ()) -> HookEntry | None:
        """One Claude Code hook; ``inherited``: the unknown keys of its matcher group."""
        if not isinstance(hook, dict):
            self.fail(loc, f"expected a hook {{type, command, timeout}}, got {_describe(hook)}")
            return None
        unknown = [*inherited, *self.claude_unknowns(hook, loc)]
        condition = _valid_rule(hook.get("if"))
        if unknown:
            return self.unreadable_hook(loc, unknown, condition)
        kind = hook["type"]
        on_failure = _ON_FAILURE[hook.get("onFailure", "continue")]
        entry: HookEntry | None
        if kind in ("prompt", "agent"):
            entry = self.claude_prompt_hook(hook, loc)
        elif kind == "http":
            entry = self.claude_http_hook(hook, loc)
        elif kind == "mcp_tool":
            entry = self.claude_mcp_hook(hook, loc)
        else:
            entry = self.claude_command_hook(hook, loc)
        if entry is None:
            return None
        if "onFailure" in hook and not isinstance(
            entry.spec, MatcherHookSpec | LlmHookSpec | UnreadableHookSpec
        ):
            entry = dataclasses.replace(
                entry, spec=entry.spec.model_copy(update={"on_failure": on_failure})
            )
        return dataclasses.replace(entry, condition=condition) if condition else entry

    def unreadable_hook(self, loc: Loc, unknown: Sequence[str], condition: str | None) -> HookEntry:
        """The stand-in of a hook with keys or values this version does not know
        (:class:`~.specs.UnreadableHookSpec`): it fails closed alone, and says why."""
        problem = "; ".join(unknown) + "; this hook cannot run here"
        logger.warning(
            "%s: %s; it fails closed on the events it matches (strict: false lets them "
            "through), and the other hooks of %s run",
            MODULE_ID,
            problem,
            self.source,
        )
        spec = UnreadableHookSpec(type="unreadable", problem=problem)
        line = self.positions.line_of(loc) if self.positions else None
        return HookEntry(spec, self.label(loc), loc, line, condition)

    def claude_mcp_hook(self, hook: dict[str, Any], loc: Loc) -> HookEntry | None:
        """A Claude Code ``type: mcp_tool`` hook (see runners/mcp_tool.py): ``server``,
        ``tool``, ``input`` and ``timeout`` (seconds)."""
        names = {}
        for key in ("server", "tool"):
            value = hook.get(key)
            if not isinstance(value, str) or not value.strip():
                self.fail((*loc, key), f"expected a non-empty name, got {_describe(value)}")
                return None
            names[key] = value
        given = hook.get("input", {})
        if not isinstance(given, dict):
            self.fail((*loc, "input"), f"expected an object, got {_describe(given)}")
            return None
        timeout = self.claude_timeout(hook, loc, 60)
        if timeout is None:
            return None
        spec = McpToolHookSpec(
            type="mcp_tool",
            server=names["server"],
            tool=names["tool"],
            input=given,
            timeout_ms=timeout,
        )
        return self.entry(spec, loc)

    def claude_timeout(self, hook: dict[str, Any], loc: Loc, default: float) -> int | None:
        """The hook's ``timeout`` (seconds) in milliseconds; ``None`` when it is invalid."""
        timeout = hook.get("timeout", default)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            self.fail(
                (*loc, "timeout"),
                f"expected a number of seconds greater than 0, got {_describe(timeout)}",
            )
            return None
        return max(1, round(timeout * 1000))

    def claude_command_hook(self, hook: dict[str, Any], loc: Loc) -> HookEntry | None:
        command = self.command_string(hook.get("command"), loc)
        if command is None:
            return None
        timeout = self.claude_timeout(hook, loc, 60)
        if timeout is None:
            return None
        flags = {}
        for key in ("async", "asyncRewake", "once"):
            flag = hook.get(key, False)
            if not isinstance(flag, bool):
                self.fail((*loc, key), f"expected true or false, got {_describe(flag)}")
                return None
            flags[key] = flag
        args = hook.get("args")
        if args is not None and (
            not isinstance(args, list) or not all(isinstance(a, str) for a in args)
        ):
            self.fail((*loc, "args"), f"expected a list of strings, got {_describe(args)}")
            return None
        for key in ("statusMessage",):
            if key in hook and not isinstance(hook[key], str):
                self.fail((*loc, key), f"expected a string, got {_describe(hook[key])}")
        spec = CommandHookSpec.model_validate(
            {
                "type": "command",
                "command": command,
                "timeout_ms": timeout,
                "protocol": "claude-code",
                "async": flags["async"] or flags["asyncRewake"],
                "rewake": flags["asyncRewake"],
                "shell": hook.get("shell", "sh"),
                "args": None if args is None else tuple(args),
            }
        )
        return self.entry(spec, loc)

    def claude_http_hook(self, hook: dict[str, Any], loc: Loc) -> HookEntry | None:
        """A Claude Code ``type: http`` hook (see http_hook.py): ``url``, ``headers``,
        ``allowedEnvVars``, ``timeout`` (seconds)."""
        url = hook.get("url")
        if not isinstance(url, str) or not re.match(r"https?://", url):
            self.fail((*loc, "url"), f"expected an http:// or https:// URL, got {_describe(url)}")
            return None
        headers = hook.get("headers", {})
        if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            self.fail((*loc, "headers"), f"expected names to strings, got {_describe(headers)}")
            return None
        allowed = hook.get("allowedEnvVars", [])
        if not isinstance(allowed, list) or not all(isinstance(n, str) for n in allowed):
            self.fail(
                (*loc, "allowedEnvVars"), f"expected a list of names, got {_describe(allowed)}"
            )
            return None
        timeout = hook.get("timeout", 60)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            self.fail(
                (*loc, "timeout"),
                f"expected a number of seconds greater than 0, got {_describe(timeout)}",
            )
            return None
        spec = HttpHookSpec(
            type="http",
            url=url,
            headers=headers,
            allowed_env_vars=tuple(allowed),
            timeout_ms=max(1, round(timeout * 1000)),
        )
        return self.entry(spec, loc)

    def claude_prompt_hook(self, hook: dict[str, Any], loc: Loc) -> HookEntry | None:
        """A Claude Code ``type: prompt`` or ``type: agent`` hook (see prompt_hook.py): its
        ``prompt``, ``model``, ``timeout`` (seconds) and ``statusMessage`` (not shown here)."""
        kind = hook["type"]
        prompt = hook.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            self.fail(
                (*loc, "prompt"), f"expected a non-empty prompt string, got {_describe(prompt)}"
            )
            return None
        model = hook.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            self.fail((*loc, "model"), f"expected a model name, got {_describe(model)}")
            return None
        status = hook.get("statusMessage")
        if status is not None and not isinstance(status, str):
            self.fail((*loc, "statusMessage"), f"expected a string, got {_describe(status)}")
        timeout = hook.get("timeout", 30 if kind == "prompt" else 60)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            self.fail(
                (*loc, "timeout"),
                f"expected a number of seconds greater than 0, got {_describe(timeout)}",
            )
            return None
        timeout_ms = max(1, round(timeout * 1000))
        spec: PromptHookSpec | AgentHookSpec
        if kind == "prompt":
            spec = PromptHookSpec(type="prompt", prompt=prompt, model=model, timeout_ms=timeout_ms)
        else:
            spec = AgentHookSpec(type="agent", prompt=prompt, model=model, timeout_ms=timeout_ms)
        return self.entry(spec, loc)
