"""What a config's sources hold, read without mounting: every hook found, and every source or
hook left out with the reason. ``amplifier-hooks hooks list`` shows it.

The sources are :func:`~.discovery.find_sources`' and are read the way mounting reads them
(:func:`~.discovery.load_source`), so the survey and a session agree: a project source of an
untrusted project, a disabled plugin, a plugin from a remote source, a broken file (with its
error, and whether it would stop the session) and each hook the reader skips with a warning
(a Claude Code ``prompt`` hook, an event without a counterpart) are listed as skipped, and so
is each source the machine's managed policy leaves out (:mod:`.managed`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .config import MODULE_ID, DeclarativeConfig
from .discovery import decide_trust, display_path, find_sources, is_project_kind, load_source
from .document import HookGroup, HooksConfigError, HooksDocument
from .formats.claude_code.plugins import discover_plugins
from .managed import MANAGED_KIND, ManagedPolicy, policy_sources
from .source import Source, SourceKind
from .specs import (
    CommandHookSpec,
    HookSpec,
    HttpHookSpec,
    LlmHookSpec,
    MatcherHookSpec,
    McpToolHookSpec,
    UnreadableHookSpec,
)

__all__ = [
    "FoundHook",
    "SkippedItem",
    "Survey",
    "describe_spec",
    "found_hooks",
    "managed_hooks",
    "survey_sources",
]

_LOGGER = "amplifier_module_hooks_declarative"


@dataclass(frozen=True, slots=True)
class FoundHook:
    """One hook that would run, for one event."""

    source: str
    """The source's label (``.claude/settings.json``, ``plugin guard: hooks/hooks.json``)."""
    kind: SourceKind
    name: str
    """The event as written (``PreToolUse``)."""
    event: str
    """The canonical event (``tool:pre``), or ``*:error``."""
    matcher: str | None
    type: str
    detail: str
    """The command, the matcher rule or the model and prompt."""
    label: str
    """The hook's label, as blocks, messages and logs name it."""
    tool: str | None = None
    """A matcher hook's ``match.tool`` rule (its group's ``matcher`` is :attr:`matcher`)."""
    required: bool = False
    """The entry says ``required: true``."""


@dataclass(frozen=True, slots=True)
class SkippedItem:
    """A source or hook that does not run, and why."""

    what: str
    reason: str
    fatal: bool = False
    """It stops the session instead (a broken source the bundle or the user names, a trusted
    project's broken source or changed hooks, unless ``strict: false``)."""


@dataclass(frozen=True, slots=True)
class Survey:
    """Every hook found and every item skipped, in source order."""

    project_dir: Path
    user_dir: Path
    hooks: tuple[FoundHook, ...]
    skipped: tuple[SkippedItem, ...]

    def as_json(self) -> dict[str, Any]:
        """The survey as JSON-ready data."""
        return {
            "project_dir": str(self.project_dir),
            "user_dir": str(self.user_dir),
            "hooks": [asdict(h) for h in self.hooks],
            "skipped": [asdict(s) for s in self.skipped],
        }


def describe_spec(spec: HookSpec | Any) -> str:
    """What a hook does, in one line: its command, its rule or its model and prompt."""
    if isinstance(spec, CommandHookSpec):
        return spec.command
    if isinstance(spec, MatcherHookSpec):
        args = ", ".join(f"{k}={v!r}" for k, v in spec.match.args.items())
        where = f"tool={spec.match.tool or '*'}" + (f" {args}" if args else "")
        return f"{spec.action} when {where}" + (f": {spec.message}" if spec.message else "")
    if isinstance(spec, LlmHookSpec):
        return f"{spec.model}: {spec.prompt}"
    if isinstance(spec, HttpHookSpec):
        return f"POST {spec.url}"
    if isinstance(spec, McpToolHookSpec):
        return f"MCP tool {spec.tool} of server {spec.server}"
    if isinstance(spec, UnreadableHookSpec):
        return f"unreadable: {spec.problem}"
    return str(getattr(spec, "command", None) or getattr(spec, "prompt", None) or spec)


class _Notes(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _warnings() -> Iterator[list[str]]:
    """The warnings the package logs meanwhile, kept instead of shown."""
    logger = logging.getLogger(_LOGGER)
    notes = _Notes()
    level, propagate = logger.level, logger.propagate
    logger.addHandler(notes)
    logger.propagate = False
    if logger.getEffectiveLevel() > logging.WARNING:
        logger.setLevel(logging.WARNING)
    try:
        yield notes.messages
    finally:
        logger.removeHandler(notes)
        logger.setLevel(level)
        logger.propagate = propagate


def survey_sources(settings: DeclarativeConfig, *, project_dir: Path, user_dir: Path) -> Survey:
    """Read every source of ``settings`` as mounting would, without mounting."""
    with _warnings() as finding:
        found_sources = find_sources(settings, project_dir=project_dir, user_dir=user_dir)
        sources = policy_sources(found_sources)  # what the managed policy leaves out: a note
    decision = decide_trust(sources, project_dir)
    kept, left_out, why = decision.kept, decision.left_out, decision.why
    snapshot = decision.status.surface if decision.status is not None else None
    stops = decision.stop and settings.strict  # a trusted project that changed stops a session
    skipped = [SkippedItem(s.label, why or "the project is not trusted", stops) for s in left_out]
    listed: list[str] = []
    for plugin in discover_plugins(settings, project_dir=project_dir):
        if plugin.skipped is not None:
            where = display_path(plugin.root, project_dir)
            skipped.append(SkippedItem(f"{plugin.label} ({where})", plugin.skipped))
            listed.append(f"{plugin.label} is skipped")
    for note in finding:  # what finding the sources passed over (a symlinked directory ...)
        if not any(text in note for text in listed):
            skipped.append(SkippedItem("sources", note.removeprefix(f"{MODULE_ID}: ")))
    found: list[FoundHook] = []
    for source in kept:
        with _warnings() as notes:
            try:
                document = load_source(source, settings, project_dir=project_dir, snapshot=snapshot)
            except HooksConfigError as err:
                fatal = not is_project_kind(source.kind) or settings.strict
                reason = str(err).removeprefix(f"{MODULE_ID}: ")
                skipped.append(SkippedItem(source.label, reason, fatal))
                continue
        skipped.extend(SkippedItem(source.label, note) for note in notes)
        if document is not None:
            found.extend(found_hooks(document, source))
    return Survey(project_dir, user_dir, tuple(found), tuple(skipped))


def found_hooks(document: HooksDocument, source: Source) -> list[FoundHook]:
    """Every hook of ``document`` (read from ``source``), in order."""
    found: list[FoundHook] = []
    for block in document.events:
        for step in block.steps:
            group = step if isinstance(step, HookGroup) else None
            for entry in group.hooks if group else (step,):
                assert not isinstance(entry, HookGroup)
                found.append(
                    FoundHook(
                        source=source.label,
                        kind=source.kind,
                        name=block.name,
                        event=block.event,
                        matcher=(group.written or group.matcher) if group else None,
                        type=str(getattr(entry.spec, "type", "?")),
                        detail=describe_spec(entry.spec)
                        + (f" (if {entry.condition})" if entry.condition else ""),
                        label=entry.label,
                        tool=entry.spec.match.tool
                        if isinstance(entry.spec, MatcherHookSpec)
                        else None,
                        required=bool(getattr(entry.spec, "required", False)),
                    )
                )
    return found


def managed_hooks(policy: ManagedPolicy) -> list[FoundHook]:
    """Every hook of the machine's managed ``policy``, in order, its source named as the
    policy's handlers name it."""
    return found_hooks(policy.document, Source(MANAGED_KIND, policy.label, policy.path))
