"""Reading Gemini CLI's ``settings.json`` (its ``hooks`` and ``hooksConfig`` keys) into a
:class:`~...document.HooksDocument` whose command hooks speak ``protocol: gemini``.

The file is read as Gemini CLI reads it: JSON with ``//`` and ``/* */`` comments; ``hooks``
maps an event name to a list of definitions ``{matcher, sequential, hooks: [{type: command,
command, name, description, timeout, env}]}`` (``timeout`` in milliseconds, default 60000);
``enabled``, ``disabled`` and ``notifications`` beside the events are settings, not events.
``hooksConfig.enabled: false`` turns every hook of the file off; a hook whose ``name`` (else
``command``) is listed in ``hooksConfig.disabled`` (or the older ``hooks.disabled``) is
skipped. Every other key of the file is ignored.

Matchers follow Gemini CLI: on ``BeforeTool`` / ``AfterTool`` a regular expression searched
in Gemini's tool name (an invalid one is an exact name), ``*`` or empty = every tool; on
``SessionStart`` the source (``startup``, ``resume``; ``clear`` never happens here), on
``SessionEnd`` the reason (always ``exit`` here), on ``PreCompress`` the trigger (always
``auto`` here); other events ignore the matcher. A group's hooks run in parallel, unless a
group of the same event in the file says ``sequential: true``: then every group of that event
runs its hooks one after the other, as Gemini CLI plans them.

Wrong types, unknown events and hooks that are not ``type: command`` are errors naming file,
line and key path; unknown keys in a definition or hook are warnings naming file, line and
key path, and are skipped. ``BeforeToolSelection`` hooks run on ``provider:request``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from amplifier_hooks_util.config_errors import describe_value

from ...document import EventHooks, HookEntry, HookGroup, HooksDocument
from ...parsing import Parser, foreign_tool_matcher, json_object
from ...specs import CommandHookSpec
from .protocol import EVENTS_FROM_GEMINI
from .tools import GEMINI_TOOLS

__all__ = [
    "parse_gemini_settings",
    "strip_json_comments",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

Loc = tuple[str | int, ...]
_SETTING_KEYS: Final = frozenset({"enabled", "disabled", "notifications"})
_GROUP_KEYS: Final = frozenset({"matcher", "sequential", "hooks"})
_HOOK_KEYS: Final = frozenset({"type", "command", "name", "description", "timeout", "env"})
_DEFAULT_TIMEOUT_MS: Final = 60_000
_TRIGGERS: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    "SessionStart": (("session:start", "startup"), ("session:resume", "resume")),
    "SessionEnd": (("session:end", "exit"),),
    "PreCompress": (("context:pre_compact", "auto"),),
}
_TOOL_EVENTS: Final = frozenset({"BeforeTool", "AfterTool"})
_COMMENT: Final = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


def strip_json_comments(text: str) -> str:
    """``text`` with ``//`` and ``/* */`` comments outside strings blanked out; lines and
    columns stay where they were, so errors point into the original file."""

    def blank(match: re.Match[str]) -> str:
        found = match.group(0)
        if found.startswith('"'):
            return found
        return re.sub(r"[^\n]", " ", found)

    return _COMMENT.sub(blank, text)


def parse_gemini_settings(text: str, source: str) -> HooksDocument:
    """The hooks of a Gemini CLI ``settings.json`` (see the module docstring).

    :raises HooksConfigError: invalid JSON or an invalid ``hooks`` block, every problem with
        its line and key path.
    """
    read = json_object(strip_json_comments(text), source, "Gemini CLI settings")
    if read is None:
        return HooksDocument(source, ())
    parser, data = read
    reader = _GeminiReader(parser)
    events = reader.read(data)
    parser.raise_problems()
    return HooksDocument(source, tuple(events))


class _GeminiReader:
    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.disabled: set[str] = set()

    def names(self, value: Any, loc: Loc) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.parser.fail(loc, f"expected a list of hook names, got {describe_value(value)}")
            return []
        return list(value)

    def flag(self, value: Any, loc: Loc) -> bool | None:
        if value is not None and not isinstance(value, bool):
            self.parser.fail(loc, f"expected true or false, got {describe_value(value)}")
            return None
        return value

    def read(self, data: dict[str, Any]) -> list[EventHooks]:
        config = data.get("hooksConfig")
        hooks = data.get("hooks")
        if config is not None and not isinstance(config, dict):
            self.parser.fail(("hooksConfig",), f"expected an object, got {describe_value(config)}")
            config = None
        if hooks is not None and not isinstance(hooks, dict):
            self.parser.fail(("hooks",), f"expected an object, got {describe_value(hooks)}")
            return []
        config, hooks = config or {}, hooks or {}
        enabled = self.flag(config.get("enabled"), ("hooksConfig", "enabled"))
        legacy = self.flag(hooks.get("enabled"), ("hooks", "enabled"))
        self.disabled.update(self.names(config.get("disabled"), ("hooksConfig", "disabled")))
        self.disabled.update(self.names(hooks.get("disabled"), ("hooks", "disabled")))
        events: list[EventHooks] = []
        for name, definitions in hooks.items():
            if name in _SETTING_KEYS:
                continue
            events.extend(self.event(str(name), definitions, ("hooks", str(name))))
        if False in (enabled, legacy) and events:
            logger.info(
                "%s: hooks are turned off (hooksConfig.enabled: false); none of its hooks run",
                self.parser.source,
            )
            return []
        return events

    def event(self, name: str, definitions: Any, loc: Loc) -> Iterable[EventHooks]:
        if name not in EVENTS_FROM_GEMINI:
            self.parser.unknown_event(name, loc, list(EVENTS_FROM_GEMINI), "Gemini CLI event")
            return ()
        if definitions is None:
            return ()
        if not isinstance(definitions, list):
            self.parser.fail(
                loc, f"expected a list of hook definitions, got {describe_value(definitions)}"
            )
            return ()
        sequential = any(isinstance(d, dict) and d.get("sequential") is True for d in definitions)
        groups = [
            group
            for index, definition in enumerate(definitions)
            if (group := self.group(name, definition, (*loc, index), sequential)) is not None
        ]
        event = EVENTS_FROM_GEMINI[name]
        if event is None:
            self.parser.warn(
                loc, f"Gemini CLI event {name!r} has no counterpart here; its hooks are skipped"
            )
            return ()
        if name not in _TRIGGERS:
            return (EventHooks(name, event, tuple(g for g, _ in groups), self.parser.source),)
        found: list[EventHooks] = []
        for canonical, trigger in _TRIGGERS[name]:
            kept = tuple(g for g, matcher in groups if matcher in (None, "", "*", trigger))
            if kept:
                found.append(EventHooks(name, canonical, kept, self.parser.source))
        return found

    def group(
        self, event: str, definition: Any, loc: Loc, sequential: bool
    ) -> tuple[HookGroup, str | None] | None:
        parser = self.parser
        if not isinstance(definition, dict):
            parser.fail(
                loc,
                f"expected a hook definition {{matcher, hooks}}, got {describe_value(definition)}",
            )
            return None
        parser.ignore_unknown_keys(definition, loc, _GROUP_KEYS)
        matcher = definition.get("matcher")
        if matcher is not None and not isinstance(matcher, str):
            parser.fail((*loc, "matcher"), f"expected a string, got {describe_value(matcher)}")
            matcher = None
        self.flag(definition.get("sequential"), (*loc, "sequential"))
        hooks = parser.hook_list(definition.get("hooks"), (*loc, "hooks"))
        if hooks is None:
            return None
        entries = [
            entry
            for index, hook in enumerate(hooks)
            if (entry := self.hook(hook, (*loc, "hooks", index))) is not None
        ]
        tool_matcher = None
        if event in _TOOL_EVENTS and matcher is not None:
            tool_matcher = foreign_tool_matcher(matcher, GEMINI_TOOLS)
        group = HookGroup(
            tuple(entries),
            not sequential,
            tool_matcher,
            parser.label(loc),
            written=matcher,
            joint=not sequential,
        )
        return group, (matcher.strip() if matcher is not None else None)

    def hook(self, hook: Any, loc: Loc) -> HookEntry | None:
        parser = self.parser
        if not isinstance(hook, dict):
            parser.fail(loc, f"expected a hook {{type, command}}, got {describe_value(hook)}")
            return None
        if hook.get("type") != "command":
            parser.fail(
                (*loc, "type"),
                f"expected 'command' (the only hook type of a settings file), got "
                f"{describe_value(hook.get('type'))}",
            )
            return None
        parser.ignore_unknown_keys(hook, loc, _HOOK_KEYS)
        command, name = parser.command_string(hook.get("command"), loc), hook.get("name")
        if command is None:
            return None
        for key in ("name", "description"):
            if hook.get(key) is not None and not isinstance(hook.get(key), str):
                parser.fail((*loc, key), f"expected a string, got {describe_value(hook.get(key))}")
        timeout = hook.get("timeout", _DEFAULT_TIMEOUT_MS)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            parser.fail(
                (*loc, "timeout"),
                f"expected milliseconds greater than 0, got {describe_value(timeout)}",
            )
            return None
        env = hook.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            parser.fail((*loc, "env"), f"expected an object of strings, got {describe_value(env)}")
            return None
        if (name if isinstance(name, str) and name else command) in self.disabled:
            logger.info("%s: disabled by hooksConfig.disabled; skipped", parser.label(loc))
            return None
        spec = CommandHookSpec(
            type="command",
            command=command,
            timeout_ms=max(1, round(timeout)),
            env={str(k): v for k, v in env.items()},
            protocol="gemini",
        )
        return parser.entry(spec, loc)
