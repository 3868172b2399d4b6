"""The managed policy: hooks and rules an administrator sets for every session of a machine.

The policy file (:mod:`amplifier_hooks_util.managed_file`: ``/etc/amplifier-hooks/managed.yaml``
on Linux, ``/Library/Application Support/amplifier-hooks/managed.yaml`` on macOS) is a hooks
file with one more key, ``policy``::

    hooks:
      PreToolUse:
        - type: matcher
          match: {tool: bash, args: {command: "rm -rf *"}}
          action: block
          message: recursive deletes are refused on this machine
    policy:
      managed_hooks_only: false       # true: no other declarative hook runs
      allowed_formats: [amplifier, claude-code]   # the other formats' files are not read
      allowed_sources: [user, bundle]             # nor the project's, nor plugins

It is trusted by ownership, never by the user's trust record: an administrator owns it and
every directory above it, and the user cannot write any of them. It is read and checked at
every session start (:func:`load_managed_policy`). Its hooks run before every other hook of
the session (:mod:`.managed_mount`), and no key of a bundle or of the module's config reaches
them: not ``observe_sources``, ``strict``, ``disabled_plugins``, the format switches or
``include_*``.

A policy file that exists and cannot be trusted or read (the user can write it, it is broken)
stops the session before its first turn with a :class:`ManagedPolicyError` saying why; no
config key turns that into a warning (a guard that cannot load never fails open silently).
No file at all is no policy.

``policy`` restricts the module's other sources (:func:`apply_policy`):
``managed_hooks_only`` leaves every one of them out; ``allowed_formats`` keeps the sources of
the formats named (``amplifier``: ``hooks.yaml`` files, ``files`` and the inline ``hooks``;
``hook-shell``; ``claude-code``: settings files and plugins; and each other format of the
registry by its name: ``gemini``, ``cursor``); ``allowed_sources`` keeps the sources of the
origins named (``user``: the home directory's files; ``project``: what the project brings;
``plugin``: Claude Code plugins; ``bundle``: ``files`` and the inline ``hooks``). A source of a
kind no name covers is left out whenever a list is given. Each source left out is named in one
warning.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from amplifier_hooks_util.config_errors import validation_problems
from amplifier_hooks_util.managed_file import (
    OwnershipError,
    PolicyLocation,
    locate_policy,
    read_owned,
)
from pydantic import BaseModel, ConfigDict, ValidationError

from .config import MODULE_ID
from .document import HooksConfigError, HooksDocument, Problem
from .parsing import Parser, compose_yaml, duplicate_keys

if TYPE_CHECKING:
    from .source import Source

__all__ = [
    "MANAGED_KIND",
    "ORIGINS",
    "ManagedPolicy",
    "ManagedPolicyError",
    "PolicySettings",
    "apply_policy",
    "format_of",
    "load_managed_policy",
    "origins_of",
    "parse_policy",
    "policy_sources",
    "read_policy",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

MANAGED_KIND: Final = "managed"
"""The source kind of the policy's hooks."""

ORIGINS: Final = ("user", "project", "plugin", "bundle")
"""What ``allowed_sources`` may name."""

OWN_FORMATS: Final[Mapping[str, str]] = {
    "user": "amplifier",
    "project": "amplifier",
    "file": "amplifier",
    "config": "amplifier",
    "user-hook-shell": "hook-shell",
    "hook-shell": "hook-shell",
    "plugin": "claude-code",
    "project-plugin": "claude-code",
}
"""The format of this module's own source kinds (the formats of the registry add theirs)."""

_FAIL_CLOSED: Final = (
    "the session does not start: a managed policy that cannot be trusted is never skipped, "
    "and no user or project setting changes that; an administrator must fix the file"
)


class ManagedPolicyError(HooksConfigError):
    """The policy file exists and cannot be used: not trusted by ownership, unreadable or
    invalid. Raised whatever the config says (``strict: false`` included)."""


class PolicySettings(BaseModel):
    """The ``policy`` key of the managed file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    managed_hooks_only: bool = False
    """Only the policy's hooks run: every other declarative source is left out."""
    allowed_formats: list[str] | None = None
    """The hook formats whose sources are read (``None``: every format)."""
    allowed_sources: list[Literal["user", "project", "plugin", "bundle"]] | None = None
    """The origins whose sources are read (``None``: every origin)."""


@dataclass(frozen=True, slots=True)
class ManagedPolicy:
    """A policy file that was trusted and parsed."""

    path: Path
    document: HooksDocument
    settings: PolicySettings = field(default_factory=PolicySettings)

    @property
    def label(self) -> str:
        """How its hooks' labels name it: ``managed <path>``."""
        return f"managed {self.path}"


def known_formats() -> tuple[str, ...]:
    """Every name ``allowed_formats`` may hold: this module's own and the registry's."""
    from .registry import FORMATS_GROUP, plugins

    return tuple(dict.fromkeys([*OWN_FORMATS.values(), *(p.name for p in plugins(FORMATS_GROUP))]))


def format_of(kind: str) -> str | None:
    """The hook format of a source kind (``None``: not known, left out by any list)."""
    if kind in OWN_FORMATS:
        return OWN_FORMATS[kind]
    from .format_plugins import hook_format as load_format
    from .registry import FORMATS_GROUP, plugins

    for plugin in plugins(FORMATS_GROUP):
        hook_format = load_format(plugin)
        kinds = {*hook_format.project_kinds, *(f"user-{k}" for k in hook_format.more_kinds)}
        kinds.update(hook_format.outside_kinds)
        kinds.update(h.user_kind for h in hook_format.files if h.user_kind is not None)
        if kind in kinds:
            return hook_format.name
    return None


def origins_of(source: Source) -> frozenset[str]:
    """Where a source comes from, as ``allowed_sources`` names it (a plugin kept in the
    project is both ``plugin`` and ``project``; it needs both)."""
    from .format_plugins import is_project_kind

    kind = source.kind
    found: set[str] = set()
    if is_project_kind(kind):
        found.add("project")
    if kind in ("plugin", "project-plugin"):
        found.add("plugin")
    if kind in ("file", "config"):
        found.add("bundle")
    if kind.startswith(("user", "system-")):  # a tool's system-level file counts as the user's
        found.add("user")
    return frozenset(found)


def _why_left_out(source: Source, settings: PolicySettings) -> str | None:
    if settings.managed_hooks_only:
        return "managed_hooks_only: only the managed hooks run"
    if settings.allowed_formats is not None:
        hook_format = format_of(source.kind)
        if hook_format not in settings.allowed_formats:
            return f"its format ({hook_format or source.kind}) is not in allowed_formats"
    if settings.allowed_sources is not None:
        origins = origins_of(source)
        missing = sorted(origins.difference(settings.allowed_sources)) or (
            [] if origins else [source.kind]
        )
        if missing:
            return f"its origin ({', '.join(missing)}) is not in allowed_sources"
    return None


def apply_policy(
    sources: Sequence[Source], policy: ManagedPolicy | None
) -> tuple[list[Source], list[tuple[Source, str]]]:
    """``(kept, left_out)``: the sources ``policy`` lets run, and each one it leaves out with
    why; everything is kept without a policy."""
    if policy is None:
        return list(sources), []
    kept: list[Source] = []
    left_out: list[tuple[Source, str]] = []
    for source in sources:
        why = _why_left_out(source, policy.settings)
        if why is None:
            kept.append(source)
        else:
            left_out.append((source, f"left out by the managed policy {policy.path}: {why}"))
    return kept, left_out


def _refused(path: Path, problems: Sequence[str]) -> ManagedPolicyError:
    message = f"the managed policy is refused: {'; '.join(problems)}; {_FAIL_CLOSED}"
    return ManagedPolicyError(str(path), [Problem(message, key_path=None)])


@functools.lru_cache(maxsize=4)
def parse_policy(text: str, label: str) -> tuple[HooksDocument, PolicySettings]:
    """The hooks and the ``policy`` settings of a policy file's text (the last few texts
    parsed are kept: a session reads the file at its start and again where its hooks are
    loaded; every read checks the file's ownership again, only the parse is kept).

    :raises HooksConfigError: invalid YAML, hooks or settings, each with line and key path.
    """
    document = compose_yaml(text, label)
    parser = Parser(label, document)
    parser.problems.extend(duplicate_keys(document))
    data: Any = document.data
    raw: Any = None
    if isinstance(data, dict) and "policy" in data:
        raw = data["policy"]
        data = {key: value for key, value in data.items() if key != "policy"}
    settings = PolicySettings()
    try:
        settings = PolicySettings.model_validate(raw or {})
    except ValidationError as err:
        for problem in validation_problems(err, schema=PolicySettings):
            parser.fail(("policy", *problem.loc), problem.message, key=problem.key)
    formats = known_formats()
    for index, name in enumerate(settings.allowed_formats or ()):
        if name not in formats:
            parser.fail(
                ("policy", "allowed_formats", index),
                f"unknown format {name!r}; known: {', '.join(formats)}",
            )
    hooks = parser.document(data)  # raises every problem collected
    return hooks, settings


def load_managed_policy(
    environ: Mapping[str, str] | None = None, *, uid: int | None = None
) -> ManagedPolicy | None:
    """The machine's managed policy, checked by ownership and parsed; ``None``: there is none.

    :raises ManagedPolicyError: the file exists and cannot be trusted, read or parsed.
    """
    try:
        location = locate_policy(environ)
    except ValueError as err:
        raise ManagedPolicyError("managed policy", [Problem(str(err), key_path=None)]) from err
    return read_policy(location, uid=uid)


def read_policy(location: PolicyLocation, *, uid: int | None = None) -> ManagedPolicy | None:
    """The policy at ``location`` (see :func:`load_managed_policy`)."""
    if location.ignored is not None:
        logger.warning("%s: %s", MODULE_ID, location.ignored)
    if not location.exists():
        return None
    path = location.path
    try:
        raw = read_owned(location, uid=uid)
    except OwnershipError as err:
        raise _refused(path, err.problems) from err
    except OSError as err:
        raise _refused(path, [f"it cannot be read: {err.strerror or err}"]) from err
    label = f"managed {path}"
    try:
        text = raw.decode("utf-8-sig")
        document, settings = parse_policy(text, label)
    except UnicodeDecodeError as err:
        raise _refused(path, ["it is not UTF-8 text"]) from err
    except HooksConfigError as err:
        problems = [*err.problems[:-1]]
        last = err.problems[-1]
        problems.append(Problem(f"{last.message} ({_FAIL_CLOSED})", last.key_path, last.line))
        raise ManagedPolicyError(err.source, problems) from err
    return ManagedPolicy(path, document, settings)


def policy_sources(
    sources: Sequence[Source], environ: Mapping[str, str] | None = None
) -> list[Source]:
    """``sources`` as the machine's managed policy lets them run; one warning names each one
    it leaves out that holds anything (a file that exists, the inline hooks, a plugin).

    :raises ManagedPolicyError: the policy file exists and cannot be trusted, read or parsed.
    """
    kept, left_out = apply_policy(sources, load_managed_policy(environ))
    shown = [
        (source, why)
        for source, why in left_out
        if source.path is None or os.path.lexists(source.path)
    ]
    for source, why in shown:
        logger.warning("%s: the hooks in %s did not run: %s", MODULE_ID, source.label, why)
    return kept
