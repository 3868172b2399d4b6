"""Where declarative hooks come from, and in which order they add up.

Sources, in the order their hooks run for one event:

1. the user's ``hooks.yaml`` in ``user_dir`` (default ``$AMPLIFIER_HOME``, else
   ``~/.amplifier``), then hook-shell's ``hooks.json`` files in ``<user_dir>/hooks/``
   (:mod:`.formats.hook_shell`; unless ``hook_shell: false``), unless ``include_user: false``;
2. the project's Claude Code settings ``.claude/settings.json`` and
   ``.claude/settings.local.json`` (their ``hooks`` key; unless ``claude_code: false``), then the
   project's ``.amplifier/hooks.yaml``, then hook-shell's ``.amplifier/hooks/hooks.json`` and
   ``.amplifier/hooks/<name>/hooks.json`` (unless ``hook_shell: false``), unless
   ``include_project: false``;
3. the bundle: the hooks files of each Claude Code plugin in the config's ``plugins``
   (:mod:`.formats.claude_code.plugins`; in order, a marketplace's in its order), each file
   in ``files`` (in order; a file at a format's place, ``.codex/hooks.json``,
   ``.github/hooks/guard.json``, is read as that format's: :func:`format_reader`), then the
   config's own ``hooks``.

The other tools' hook formats of the registry (:func:`~.format_plugins.hook_formats`, each a
:class:`~.source.HookFormat`) add their files: Claude Code's settings first in the project;
then Gemini CLI's ``settings.json`` and Cursor's, Codex's and Factory Droid's ``hooks.json``
(:mod:`.formats.gemini`, :mod:`.formats.cursor`, :mod:`.formats.codex`, :mod:`.formats.factory`;
unless ``gemini: false``, ``cursor: false``, ...), read in ``~/.gemini``, ``~/.cursor``,
``~/.codex`` and ``~/.factory`` after the user's files, and in the project's ``.gemini``,
``.cursor``, ``.codex`` and ``.factory`` after its Claude Code settings, then Windsurf's
``.windsurf/hooks.json`` (:mod:`.formats.windsurf`); then Gemini CLI's extensions, GitHub
Copilot's ``*.json`` files (``~/.copilot/hooks``, the project's ``.github/hooks``;
:mod:`.formats.copilot`, unless ``copilot: false``), Windsurf's system and user ``hooks.json``
(with the user's files) and Cline's hook executables (:mod:`.formats.cline`:
``~/Documents/Cline/Hooks``, ``.clinerules/hooks``).

The machine's managed policy (:mod:`.managed`) comes before all of these and is mounted apart
(:mod:`.managed_mount`); its ``policy`` settings may leave any of them out
(:func:`~.managed.policy_sources`, in :func:`load_sources`), each named in one warning.

The project directory is the session's ``session.working_dir`` capability, else the config's
``project_dir``, else the current directory. Missing user and project files are simply absent;
a file listed in ``files`` must exist. A file reached twice (the project is the home directory)
is read once. Every hook keeps a label naming its source and key path.

The project's sources run only in a project the user trusts
(:mod:`amplifier_module_hooks_declarative.trust`: ``amplifier-hooks trust PATH``, or
``AMPLIFIER_TRUST_PROJECT`` in CI); in a project never trusted they are named in one warning
and skipped. Every hooks file is read once (:func:`~amplifier_hooks_util.regular_file.
read_regular`: never a FIFO, a device or a socket, never more than 4 MiB), and a project's
files are parsed from the very bytes its trust check hashed.

A trusted project whose hook surface changed since it was trusted, or that brings a broken hooks
file (``.claude/settings*.json``, ``.amplifier/hooks.yaml``, ``.amplifier/hooks/**/hooks.json``,
``.gemini/settings.json``, ``.cursor/hooks.json``, ``.codex/hooks.json``, ``.factory/hooks.json``,
``.github/hooks/*.json``, ``.windsurf/hooks.json``), stops the mount with one error naming the file
(and line) and the ``trust`` command: a guard the user trusted never goes quietly. ``strict: false``
is the opt-out: a warning, and the session goes on without those hooks (failing open). A command
hook whose script file does not exist (see :mod:`.scripts`) is an error of its source, with the line
of its ``command``. The user's own files, the plugins, the files in ``files`` and the inline
``hooks`` always fail the mount. A plugin that is disabled is not a source at all;
:func:`~.survey.survey_sources` lists it, with every other hook found or skipped."""

from __future__ import annotations

import dataclasses
import logging
import os
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.config_errors import key_path
from amplifier_hooks_util.regular_file import read_regular

from amplifier_module_hooks_declarative.trust import Surface, TrustStatus, trust_status

from . import managed
from .config import MODULE_ID, DeclarativeConfig
from .document import HooksConfigError, HooksDocument, Problem
from .format_plugins import hook_format as load_format
from .format_plugins import hook_formats, is_project_kind
from .formats.claude_code.plugins import (
    PLUGIN_DATA_VARIABLE,
    PLUGIN_ROOT_VARIABLE,
    Plugin,
    discover_plugins,
    plugin_data_dir,
)
from .formats.claude_code.reader import parse_claude_plugin_hooks
from .formats.hook_shell.reader import (
    HOOKS_DIR_VARIABLE,
    PROJECT_HOOKS_DIR,
    hook_shell_files,
    parse_hook_shell_file,
)
from .parsing import parse_hooks_data, parse_hooks_text
from .protocols import command_protocol
from .registry import FORMATS_GROUP, plugins
from .scripts import script_problem
from .source import Reader, Source, SourceKind
from .specs import CommandHookSpec
from .types import HookContext
from .variables import with_variables

__all__ = [
    "HOOKS_FILE",
    "PROJECT_HOOKS_FILE",
    "SOURCE_READERS",
    "Loaded",
    "RefusedPluginsError",
    "Source",
    "SourceKind",
    "TrustDecision",
    "check_scripts",
    "decide_trust",
    "display_path",
    "find_sources",
    "format_reader",
    "is_project_kind",
    "load_documents",
    "load_source",
    "load_sources",
    "partition_trusted",
    "plugin_sources",
    "read_source",
    "resolve_project_dir",
    "resolve_user_dir",
    "trusted_sources",
]

HOOKS_FILE: Final = "hooks.yaml"
"""The user's hooks file, in the user directory."""

PROJECT_HOOKS_FILE: Final = ".amplifier/hooks.yaml"
"""The project's hooks file, relative to the project directory."""

SOURCE_READERS: Final[dict[SourceKind, Reader]] = {
    "user-hook-shell": parse_hook_shell_file,
    "hook-shell": parse_hook_shell_file,
    "plugin": parse_claude_plugin_hooks,
    "project-plugin": parse_claude_plugin_hooks,
}
"""The parser of each kind of file that is neither a hooks file nor a format's (whose
:class:`~.source.Source` names its own ``reader``): ``reader(text, label)``."""

logger = logging.getLogger("amplifier_module_hooks_declarative")


def format_reader(path: Path) -> Reader | None:
    """The parser of the format whose file ``path`` is, by where it lies
    (``.../.codex/hooks.json``, ``.../.github/hooks/guard.json``); ``None``: the module's own
    hooks file format."""
    text = path.as_posix()
    for plugin in plugins(FORMATS_GROUP):
        hook_format = load_format(plugin)
        for hooks in hook_format.files:
            if text.endswith("/" + hooks.path):
                return hooks.read
        for pattern, read in hook_format.patterns:
            depth = pattern.count("/") + 1
            if fnmatchcase("/".join(path.parts[-depth:]), pattern):
                return read
    return None


def resolve_user_dir(settings: DeclarativeConfig) -> Path:
    """``user_dir``, else ``$AMPLIFIER_HOME``, else ``~/.amplifier``."""
    raw = settings.user_dir or os.environ.get("AMPLIFIER_HOME") or "~/.amplifier"
    return Path(raw).expanduser().resolve()


def resolve_project_dir(coordinator: Any, settings: DeclarativeConfig) -> Path:
    """The session's ``session.working_dir``, else ``project_dir``, else the current directory."""
    working_dir: Any = None
    get_capability = getattr(coordinator, "get_capability", None)
    if callable(get_capability):
        try:
            working_dir = get_capability("session.working_dir")
        except Exception:  # a coordinator without capabilities is not an error
            working_dir = None
    raw = str(working_dir) if working_dir else settings.project_dir or os.getcwd()
    return Path(raw).expanduser().resolve()


def display_path(path: Path, project_dir: Path | None = None) -> str:
    """``path`` as labels show it: project-relative, else ``~/...``, else absolute."""
    if project_dir is not None and path.is_relative_to(project_dir):
        return path.relative_to(project_dir).as_posix()
    home = Path.home()
    if path.is_relative_to(home):
        return "~/" + path.relative_to(home).as_posix()
    return path.as_posix()


def _format_sources(
    settings: DeclarativeConfig, root: Path, project_dir: Path, *, user: bool
) -> list[Source]:
    """The hooks files of every format of the registry under ``root`` (the home directory,
    ``user``, or the project's), then each format's further sources, as their config keys
    allow."""
    formats = hook_formats(settings)
    found: list[Source] = []
    for hook_format in formats:
        for hooks in hook_format.files:
            kind = hooks.user_kind if user else hooks.kind
            if kind is None:
                continue
            path = root / hooks.path
            label = display_path(path, None) if user else hooks.path
            read = (hooks.read_user or hooks.read) if user else hooks.read
            found.append(Source(kind, label, path, reader=read))
    for hook_format in formats:
        if hook_format.more_sources is not None:
            found.extend(hook_format.more_sources(settings, project_dir, user=user))
    return found


def find_sources(settings: DeclarativeConfig, *, project_dir: Path, user_dir: Path) -> list[Source]:
    """Every source the config asks for, in order (see the module docstring)."""
    found: list[Source] = []
    if settings.include_user:
        path = user_dir / HOOKS_FILE
        found.append(Source("user", display_path(path, None), path))
        if settings.hook_shell:
            found.extend(_hook_shell_sources("user-hook-shell", user_dir / "hooks", None))
        found.extend(_format_sources(settings, Path.home(), project_dir, user=True))
    if settings.include_project:
        found.extend(_format_sources(settings, project_dir, project_dir, user=False))
        found.append(Source("project", PROJECT_HOOKS_FILE, project_dir / PROJECT_HOOKS_FILE))
        if settings.hook_shell:
            hooks_dir = project_dir / PROJECT_HOOKS_DIR
            found.extend(_hook_shell_sources("hook-shell", hooks_dir, project_dir))
    for plugin in discover_plugins(settings, project_dir=project_dir):
        found.extend(plugin_sources(plugin, project_dir))
    for raw in settings.files:
        path = Path(raw).expanduser()
        path = (path if path.is_absolute() else project_dir / path).resolve()
        label = display_path(path, project_dir)
        found.append(Source("file", label, path, required=True, reader=format_reader(path)))
    if settings.hooks is not None:
        found.append(Source("config", "config"))
    return _unique(found)


def plugin_sources(plugin: Plugin, project_dir: Path) -> list[Source]:
    """The sources of one plugin: its hooks files with ``CLAUDE_PLUGIN_ROOT`` and
    ``CLAUDE_PLUGIN_DATA`` set and written into their commands; one that reports why it cannot
    be read; none when it is skipped. A plugin inside ``project_dir`` comes with the project:
    it runs only in a trusted one."""
    if plugin.skipped is not None:
        logger.warning("%s: %s is skipped: %s", MODULE_ID, plugin.label, plugin.skipped)
        return []
    places = _plugin_places(plugin)
    inside = any(place.is_relative_to(project_dir) for place in places)
    kind: SourceKind = "project-plugin" if inside else "plugin"
    found: list[Source] = []
    if plugin.error is not None:  # the bundle names a plugin that cannot be read: its error
        found.append(Source("plugin", plugin.label, None, True, error=plugin.error))
    variables: tuple[tuple[str, str], ...] = ((PLUGIN_ROOT_VARIABLE, str(plugin.root)),)
    if plugin.files:
        data = plugin_data_dir(plugin.id)
        try:
            data.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as err:  # the hooks still run; a script that writes there will say so
            logger.warning("%s: %s: cannot make %s: %s", MODULE_ID, plugin.label, data, err)
        variables += ((PLUGIN_DATA_VARIABLE, str(data)),)
    for hooks in plugin.files:
        covers = _plugin_cover(places, hooks.path, project_dir) if inside else None
        found.append(Source(kind, hooks.label, hooks.path, True, variables, True, covers=covers))
    return found


def _plugin_places(plugin: Plugin) -> tuple[Path, ...]:
    """Where a plugin is, as the session reaches it: the path the bundle wrote with its parent
    directories resolved (``vendor/../plugins/guard`` where ``vendor`` is a link), the same
    path read literally (``plugins/guard`` even when it links elsewhere), and its resolved
    directory. In any of them it comes with the project."""
    declared = plugin.declared
    if declared is None:
        return (plugin.root,)
    physical = (
        Path(os.path.realpath(declared.parent)) / declared.name
        if declared.name not in ("", ".", "..")
        else Path(os.path.realpath(declared))
    )
    return (physical, Path(os.path.normpath(declared)), plugin.root)


def _plugin_cover(places: tuple[Path, ...], hooks: Path, project_dir: Path) -> Path:
    """What a trust record must cover for a plugin's ``hooks`` file: the first of the plugin's
    places (a directory the bundle names, with any plugins of a marketplace in it) that lies
    in the project; for a project that is itself the plugin, the hooks file."""
    for directory in places:
        if directory != project_dir and directory.is_relative_to(project_dir):
            return directory
    return hooks


def _hook_shell_sources(
    kind: SourceKind, hooks_dir: Path, project_dir: Path | None
) -> Iterator[Source]:
    variables = ((HOOKS_DIR_VARIABLE, str(hooks_dir)),)
    for path in hook_shell_files(hooks_dir):
        yield Source(kind, display_path(path, project_dir), path, variables=variables)


def _unique(sources: Iterable[Source]) -> list[Source]:
    seen: set[Path] = set()
    kept: list[Source] = []
    for source in sources:
        if source.path is not None:
            key = source.path.resolve()
            if key in seen:
                continue
            seen.add(key)
        kept.append(source)
    return kept


def _problem(source: Source, message: str) -> HooksConfigError:
    return HooksConfigError(source.label, [Problem(message, key_path=None)])


def _raw_bytes(source: Source, snapshot: Surface | None) -> bytes | None:
    """The bytes of ``source``'s file, read once; for a project's file, the bytes its trust
    check hashed (``snapshot``). ``None``: an optional file that does not exist."""
    assert source.path is not None
    if snapshot is not None and is_project_kind(source.kind):
        real = os.path.realpath(source.path)
        if real in snapshot.contents:
            return snapshot.contents[real]
        error = snapshot.errors.get(real)
        if error is None and not os.path.lexists(source.path) and not source.required:
            return None
        if error is None:  # it appeared, or its link moved, after the check: not what was hashed
            raise _problem(source, "changed while its trust was checked; not read")
    else:
        try:
            return read_regular(source.path)
        except OSError as err:
            error = err
    if isinstance(error, FileNotFoundError):
        if not source.required:
            return None
        raise _problem(source, f"no such file ({source.path})") from error
    reason = str(error) if error.strerror is None else error.strerror
    raise _problem(source, f"cannot read the file: {reason}") from error


def read_source(
    source: Source, settings: DeclarativeConfig, snapshot: Surface | None = None
) -> HooksDocument | None:
    """Read and parse one source; ``None`` when an optional file does not exist.

    ``snapshot``: the trust check's surface of the project, whose bytes a project's file is
    parsed from (nothing reads it a second time).

    :raises HooksConfigError: the file is unreadable, not a regular file, too large or
        invalid (with file, line, key path).
    """
    if source.error is not None:
        raise source.error
    if source.kind == "config":
        origin = settings.hooks_origin
        lines = origin.lines if origin is not None else None
        return parse_hooks_data({"hooks": settings.hooks}, source.label, lines=lines)
    assert source.path is not None
    raw = _raw_bytes(source, snapshot)
    if raw is None:
        return None
    try:
        text = "" if source.opaque else raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        problem = Problem(f"not UTF-8 text: byte {err.object[err.start]:#04x}", line=line)
        raise HooksConfigError(source.label, [problem]) from err
    reader = source.reader or SOURCE_READERS.get(source.kind)
    if reader is not None:
        document = reader(text, source.label)
    else:
        document = parse_hooks_text(text, source.label, json_text=source.path.suffix == ".json")
    if source.variables:
        document = with_variables(document, dict(source.variables), textual=source.textual)
    return document


def check_scripts(
    document: HooksDocument, *, project_dir: Path, environ: Mapping[str, str] | None = None
) -> list[Problem]:
    """A problem for each command hook of ``document`` whose script file cannot run, with the
    variables the hook runs with (the environment, its ``env``, ``AMPLIFIER_PROJECT_DIR`` and
    the project-dir variables of its protocol)."""
    base = dict(os.environ if environ is None else environ)
    problems: list[Problem] = []
    for entry in document.entries():
        spec = entry.spec
        if not isinstance(spec, CommandHookSpec):
            continue
        directory = str(project_dir)
        checking = HookContext(event="", alias="", data={}, session_id="", project_dir=directory)
        env = {
            **base,
            **spec.env,
            "AMPLIFIER_PROJECT_DIR": directory,
            **command_protocol(spec.protocol).environment(checking, directory),
        }
        found = script_problem(spec.command, cwd=directory, env=env)
        if found is not None:
            loc = (*entry.loc, "command")
            problems.append(
                Problem(
                    f"{found}; the hook would fail on every event", key_path(loc), entry.line, loc
                )
            )
    return problems


def load_source(
    source: Source,
    settings: DeclarativeConfig,
    *,
    project_dir: Path,
    snapshot: Surface | None = None,
) -> HooksDocument | None:
    """:func:`read_source`, then :func:`check_scripts`.

    :raises HooksConfigError: the source is invalid or names a script that cannot run.
    """
    document = read_source(source, settings, snapshot)
    if document is None:
        return None
    problems = check_scripts(document, project_dir=project_dir)
    if problems:
        raise HooksConfigError(source.label, problems)
    return document


@dataclass(frozen=True, slots=True)
class TrustDecision:
    """What the project's trust lets run: ``kept`` sources, the project's ``left_out`` ones
    and ``why``; ``status``: the check, when the project brings files (its ``surface`` holds
    the bytes hashed); ``stop``: the project was trusted and its hooks changed since, or can no
    longer be checked: a guard the user trusted is gone, which stops the session unless
    ``strict: false``."""

    kept: list[Source]
    left_out: list[Source]
    why: str | None
    status: TrustStatus | None = None
    stop: bool = False


def decide_trust(sources: list[Source], project_dir: Path) -> TrustDecision:
    """Check the project's trust once, for every source it brings (a hooks file that is a
    FIFO or a link to a device counts as brought: it is never read in a project not
    trusted)."""
    brought = [
        s
        for s in sources
        if is_project_kind(s.kind) and s.path is not None and os.path.lexists(s.path)
    ]
    if not brought:
        return TrustDecision(sources, [], None)
    covers = [s.covers for s in brought if s.covers is not None]
    keep = [s.path for s in brought if s.path is not None]
    status = trust_status(project_dir, include=covers, keep=keep)
    if status.trusted:
        return TrustDecision(sources, [], None, status)
    kept = [s for s in sources if not is_project_kind(s.kind)]
    stop = status.known and bool(status.changed or status.problem)
    return TrustDecision(kept, brought, status.why_not(), status, stop)


def partition_trusted(
    sources: list[Source], project_dir: Path
) -> tuple[list[Source], list[Source], str | None]:
    """``(kept, left_out, why)``: ``sources`` without the project's existing files unless the
    project is trusted; ``why`` says why they are left out and how to trust the project."""
    decision = decide_trust(sources, project_dir)
    return decision.kept, decision.left_out, decision.why


def trusted_sources(sources: list[Source], project_dir: Path) -> list[Source]:
    """``sources`` without the project's, unless the project is trusted; when some are left
    out, one warning names them and says how to trust the project."""
    kept, left_out, why = partition_trusted(sources, project_dir)
    if left_out:
        logger.warning(
            "%s: the hooks in %s did not run: %s",
            MODULE_ID,
            ", ".join(s.label for s in left_out),
            why,
        )
    return kept


_OPT_OUT: Final = "set strict: false in the {module} config to go on without them, failing open"


def _stopping(err: HooksConfigError, status: TrustStatus | None) -> HooksConfigError:
    """``err`` of a project's broken hooks file, with what to do: the fixed file is a change
    to trust again, and ``strict: false`` is the way to go on without it."""
    *head, last = err.problems
    trust = ""
    if status is not None and status.how == "record":
        trust = f"fix it, then run `amplifier-hooks trust {shlex.quote(str(status.project))}`; "
    hint = f" ({trust}{_OPT_OUT.format(module=MODULE_ID)})"
    return HooksConfigError(
        err.source, [*head, dataclasses.replace(last, message=last.message + hint)]
    )


class RefusedPluginsError(HooksConfigError):
    """Plugins that cannot be loaded: each one's own error, then one line naming them all and
    how to go on without them (``disabled_plugins``)."""

    def __init__(self, refused: Sequence[tuple[Source, HooksConfigError]]) -> None:
        labels = (source.label.split(":")[0].removeprefix("plugin ") for source, _err in refused)
        self.plugins = list(dict.fromkeys(labels))
        quoted = ", ".join(repr(name) for name in self.plugins)
        self.advice = (
            f"{MODULE_ID}: {len(self.plugins)} plugin(s) refused: {quoted}; fix them, or add "
            f"them to disabled_plugins in the {MODULE_ID} config to run without them "
            f"(disabled_plugins: [{quoted}])"
        )
        self.errors = [err for _source, err in refused]
        super().__init__(refused[0][1].source, [p for e in self.errors for p in e.problems])

    def _render(self) -> str:
        return "\n".join([*(str(err) for err in self.errors), self.advice])


@dataclass(frozen=True, slots=True)
class Loaded:
    """Every source's hooks, in order, each with the source it came from; ``status``: the
    project's trust check when its sources run by a record (what a per-run guard keeps)."""

    documents: list[tuple[HooksDocument, Source]]
    status: TrustStatus | None = None


def load_sources(settings: DeclarativeConfig, *, project_dir: Path, user_dir: Path) -> Loaded:
    """Every source's hooks, in order, with the project's trust decided once.

    :raises HooksConfigError: the first invalid source; the project's hooks changed since it
        was trusted (naming the changed files and the ``trust`` command). With
        ``strict: false`` a project's broken or changed files are a warning instead, and the
        session goes on without them.
    """
    found = find_sources(settings, project_dir=project_dir, user_dir=user_dir)
    decision = decide_trust(managed.policy_sources(found), project_dir)
    if decision.left_out:
        names = ", ".join(s.label for s in decision.left_out)
        status = decision.status
        if decision.stop and settings.strict and status is not None:
            first = (status.changed or (decision.left_out[0].label,))[0]
            message = (
                f"the hooks in {names} did not run: {decision.why} "
                f"({_OPT_OUT.format(module=MODULE_ID)})"
            )
            raise HooksConfigError(first, [Problem(message, key_path=None)])
        logger.warning("%s: the hooks in %s did not run: %s", MODULE_ID, names, decision.why)
    snapshot = decision.status.surface if decision.status is not None else None
    documents: list[tuple[HooksDocument, Source]] = []
    refused: list[tuple[Source, HooksConfigError]] = []
    for source in decision.kept:
        try:
            document = load_source(source, settings, project_dir=project_dir, snapshot=snapshot)
        except HooksConfigError as err:
            if not is_project_kind(source.kind):
                if source.kind != "plugin" or err.source == "config":
                    raise
                refused.append((source, err))
                continue
            if settings.strict:
                if source.kind == "project-plugin":
                    refused.append((source, _stopping(err, decision.status)))
                    continue
                raise _stopping(err, decision.status) from err
            logger.warning(
                "%s; the hooks of %s are skipped and the guard they hold is off (strict: false "
                "in the %s config)",
                err,
                source.label,
                MODULE_ID,
            )
            continue
        if document is not None and document.events:
            documents.append((document, source))
    if refused:
        raise RefusedPluginsError(refused)
    status = decision.status
    by_record = status is not None and status.trusted and status.how == "record"
    return Loaded(documents, status if by_record else None)


def load_documents(
    settings: DeclarativeConfig, *, project_dir: Path, user_dir: Path
) -> list[HooksDocument]:
    """Every source's hooks, in order (:func:`load_sources`).

    :raises HooksConfigError: see :func:`load_sources`.
    """
    loaded = load_sources(settings, project_dir=project_dir, user_dir=user_dir)
    return [document for document, _source in loaded.documents]
