"""Hook files changed during a session are read again before the next event they concern.

At mount, every file the module read (each source's path: hooks files, Claude Code settings,
hook-shell files, plugins' hooks files and manifests, Gemini and Cursor settings) and the
directories that hold them are fingerprinted (modification time, size, inode; a missing file
counts too, so one created later is seen). Before each event the loaded hooks handle, and at
every ``prompt:submit`` (so that hooks of events nothing handled before are in place before
the turn's other events), the fingerprint is taken again: a few ``stat`` calls. When it
differs, the sources are found and read again exactly as at mount (:func:`.discovery.load_sources`:
the project's trust is checked again, and a project whose hooks changed since it was trusted
is refused as at mount), the new hooks are planned, and, before they take over, Claude Code's
``ConfigChange`` hooks of the configuration in force run on ``config:change`` (``source``,
``file_path``); a deny keeps the configuration in force (Claude Code's block), with a warning.
Otherwise the new handlers replace the old ones on the registry and the event being
dispatched is handled by the new hooks.

A new configuration that cannot be loaded (a broken file, a refused plugin, a project whose
hooks changed since it was trusted) does not stop the session, and nothing runs unguarded:
the hooks in force stay in force, and the located error (file, line, key path) is shown to
the user as an error and logged; the same files are not read again until they change again.
This is the mount's failure rule applied mid-session: the mount would have refused the
session with that error; a running session keeps the last configuration that loaded.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from amplifier_hooks_util.kernel import Kernel

from .config import MODULE_ID
from .formats.hook_shell.reader import HOOKS_FILE_NAME, PROJECT_HOOKS_DIR

if TYPE_CHECKING:
    from .discovery import Source
    from .dispatch import Dispatcher

__all__ = [
    "CONFIG_CHANGE_EVENT",
    "Built",
    "Reloader",
    "config_source",
    "fingerprint",
    "watched_keys",
    "watched_roots",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

CONFIG_CHANGE_EVENT: Final = "config:change"
"""The canonical name of Claude Code's ``ConfigChange`` here (fired by this module only)."""

WATCH_EVENT: Final = "prompt:submit"
_CLAUDE_SOURCES: Final = {
    "settings.json": "project_settings",
    "settings.local.json": "local_settings",
}

Fingerprint = dict[str, tuple[int, int, int] | None]
Built = tuple["Dispatcher", Callable[[], None], "Sequence[Source]"]
"""A planned configuration: its dispatcher, what closes its trust guard, its sources."""


def watched_keys(paths: Sequence[Path]) -> tuple[str, ...]:
    """``paths`` and the directories holding them, once each, as the strings ``stat`` takes."""
    return tuple(dict.fromkeys(str(item) for path in paths for item in (path, path.parent)))


def fingerprint(keys: Sequence[str]) -> Fingerprint:
    """The state (modification time, size, inode; ``None``: missing) of each of ``keys``."""
    seen: Fingerprint = {}
    for key in keys:
        try:
            found = os.stat(key)
        except OSError:
            seen[key] = None
            continue
        seen[key] = (found.st_mtime_ns, found.st_size, found.st_ino)
    return seen


def config_source(path: Path, kind: str) -> str:
    """Claude Code's ``ConfigChange`` ``source`` for a changed file of source ``kind``."""
    if kind == "claude-settings":
        return _CLAUDE_SOURCES.get(path.name, "project_settings")
    if kind in ("user", "user-hook-shell"):
        return "user_settings"
    return "project_settings"


def watched_roots(
    project_dir: Path, user_dir: Path, *, project: bool, user: bool
) -> Callable[[], list[Path]]:
    """What tells a new hook-shell file apart: each read hook-shell directory's ``hooks.json``
    and ``<name>/hooks.json`` of each of its directories (a file created in a new directory is
    seen once the directory is); ``project`` / ``user``: whether those directories are read."""
    roots = [
        *([project_dir / PROJECT_HOOKS_DIR] if project else []),
        *([user_dir / "hooks"] if user else []),
    ]

    def find() -> list[Path]:
        found: list[Path] = []
        for root in roots:
            found.append(root / HOOKS_FILE_NAME)
            try:
                found.extend(d / HOOKS_FILE_NAME for d in sorted(root.iterdir()) if d.is_dir())
            except OSError:
                continue
        return found

    return find


class Reloader:
    """Keeps the module's handlers on the registry those of the hook files as they are now.

    :param build: plans the configuration from the files as they are (raises the located
        ``HooksConfigError`` or ``ValueError`` when it cannot).
    :param extra: the paths watched besides the sources' own, found again at each reload
        (:func:`watched_roots`).
    """

    def __init__(
        self,
        build: Callable[[], Built],
        kernel: Kernel,
        *,
        priority: int,
        extra: Callable[[], Sequence[Path]] = tuple,
    ) -> None:
        self._build = build
        self._find_extra = extra
        self._extra: tuple[Path, ...] = ()
        self._keys: tuple[str, ...] = ()
        self._kernel = kernel
        self._priority = priority
        self.current: Dispatcher | None = None
        self._close_guard: Callable[[], None] = lambda: None
        self._unregisters: list[Callable[[], Any]] = []
        self._retired: list[tuple[Dispatcher, Callable[[], None]]] = []
        self._sources: Sequence[Source] = ()
        self._seen: Fingerprint = {}
        self._watch: Callable[[], Any] | None = None
        self.reloads = 0
        """How many times a changed configuration took over."""

    def start(self, built: Built) -> None:
        """Put ``built`` (the mount's configuration) in force and start watching."""
        self._install(built)
        self._seen = self._fingerprint()
        if not self._keys:  # hooks from the config alone: no file to watch, no handler
            return

        async def watch(event: str, data: dict[str, Any]) -> None:
            await self.check(event)

        self._watch = self._kernel.register(
            WATCH_EVENT, watch, priority=self._priority - 1, name=f"{MODULE_ID}:reload"
        )

    def _paths(self) -> list[Path]:
        return [*(s.path for s in self._sources if s.path is not None), *self._extra]

    def _fingerprint(self) -> Fingerprint:
        return fingerprint(self._keys)

    def _install(self, built: Built) -> None:
        dispatcher, close_guard, sources = built
        for unregister in self._unregisters:
            try:
                unregister()
            except Exception:
                logger.warning("%s: unregistering a handler failed", MODULE_ID, exc_info=True)
        if self.current is not None:
            self._retired.append((self.current, self._close_guard))
        self.current, self._close_guard, self._sources = dispatcher, close_guard, sources
        self._extra = tuple(self._find_extra())
        self._keys = watched_keys(self._paths())
        self._unregisters = dispatcher.register(priority=self._priority, route=self.check)

    async def check(self, event: str) -> Dispatcher | None:
        """Reload when the watched files changed; the dispatcher in force afterwards."""
        now = self._fingerprint()
        if now == self._seen:
            return self.current
        changed = sorted(k for k in set(now) | set(self._seen) if now.get(k) != self._seen.get(k))
        self._seen = now
        try:
            built = self._build()
        except ValueError as err:  # HooksConfigError is a ValueError
            await self._refused(err, changed)
            return self.current
        if await self._blocked(changed):
            built[1]()  # the refused configuration's trust guard
            return self.current
        self._install(built)
        self.reloads += 1
        logger.info(
            "%s: hook files changed (%s); the hooks now in force are read again before %s",
            MODULE_ID,
            ", ".join(changed),
            event,
        )
        return self.current

    async def _blocked(self, changed: Sequence[str]) -> bool:
        """Run the ``ConfigChange`` hooks in force; True when one blocks the change."""
        current = self.current
        if current is None or not current.steps_for(CONFIG_CHANGE_EVENT):
            return False
        kinds = {str(s.path): s.kind for s in self._sources if s.path is not None}
        files = [c for c in changed if c in kinds] or list(changed)
        for path in files:
            data = {
                "source": config_source(Path(path), kinds.get(path, "project")),
                "file_path": path,
            }
            result = await current.dispatch(CONFIG_CHANGE_EVENT, data)
            if result is not None and result.action == "deny":
                await self._notify(
                    f"{MODULE_ID}: the change to {path} is not applied: blocked by hook "
                    f"{getattr(result, 'source', None) or 'ConfigChange'}: {result.reason}",
                    "warning",
                )
                return True
        return False

    async def _refused(self, err: Exception, changed: Sequence[str]) -> None:
        await self._notify(
            f"{MODULE_ID}: the changed hook files ({', '.join(changed)}) were not loaded, the "
            f"hooks loaded before stay in force: {err}",
            "error",
        )

    async def _notify(self, message: str, level: str) -> None:
        logger.log(logging.ERROR if level == "error" else logging.WARNING, "%s", message)
        emit: Callable[[str, dict[str, Any]], Awaitable[Any]] | None = getattr(
            self._kernel.registry, "emit", None
        )
        if emit is None:
            return
        try:
            await emit(
                "user:notification", {"message": message, "level": level, "source": MODULE_ID}
            )
        except Exception:
            logger.warning("%s: could not show the reload message", MODULE_ID, exc_info=True)

    async def close(self, grace_s: float) -> None:
        """Unregister every handler; settle and close every configuration that was in force."""
        if self._watch is not None:
            try:
                self._watch()
            except Exception:
                logger.warning("%s: unregistering a handler failed", MODULE_ID, exc_info=True)
            self._watch = None
        for unregister in self._unregisters:
            try:
                unregister()
            except Exception:
                logger.warning("%s: unregistering a handler failed", MODULE_ID, exc_info=True)
        self._unregisters = []
        everything = [*self._retired]
        if self.current is not None:
            everything.append((self.current, self._close_guard))
        self._retired, self.current = [], None
        for dispatcher, close_guard in everything:
            await dispatcher.settle(grace_s)
            await dispatcher.aclose()
            close_guard()
