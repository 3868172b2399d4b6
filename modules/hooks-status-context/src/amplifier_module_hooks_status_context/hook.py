"""The handlers and the cache between them.

Before each provider request the hook returns an ephemeral ``inject_context`` with the block.
The block comes from a cached snapshot; a new snapshot is taken (git runs) only when:

- there is none yet, or ``cache`` is off;
- the working directory is another one than the snapshot's;
- a watched file changed (see :mod:`.fingerprint`);
- a tool named in ``refresh_after_tools`` finished (``tool:post`` or ``tool:error``) since;
- ``refresh_interval`` seconds have passed since it was taken.

Otherwise the request costs a handful of ``stat`` calls, and the injected text is the very
same string as before, byte for byte, until the date changes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import time as dt_time
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amplifier_core.models import HookResult

from .config import MODULE_ID, StatusContextConfig
from .fingerprint import Fingerprint, fingerprint, is_dir
from .gitrun import GitRunner
from .listing import StatusPolicy

if TYPE_CHECKING:  # imported with the first snapshot: git's state and the block's text
    from .render import Environment
    from .snapshot import GitFacts

__all__ = ["HANDLER_NAME", "StatusContextHook", "describe_platform"]

logger = logging.getLogger(__name__)

HANDLER_NAME = MODULE_ID
WORKING_DIR_CAPABILITY = "session.working_dir"


def describe_platform() -> str:
    """``Linux 6.1.0-28-amd64 (x86_64)``: the system, its release and the machine."""
    uname = platform.uname()
    parts = [uname.system or os.name, uname.release]
    text = " ".join(part for part in parts if part)
    return f"{text} ({uname.machine})" if uname.machine else text


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One look at the workspace, and what is needed to tell whether it is still true."""

    working_dir: str
    env: Environment
    facts: GitFacts | None
    marks: Fingerprint
    taken_at: float
    writes: int = 0


class StatusContextHook:
    """Handlers for one mounted config.

    :param config: the validated config.
    :param coordinator: where the ``session.working_dir`` capability, the session ids and the
        injection size limit are read from (optional).
    :param clock: seconds from a monotonic clock, for ``refresh_interval``.
    """

    def __init__(
        self,
        config: StatusContextConfig,
        coordinator: Any = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.coordinator = coordinator
        self.clock = clock
        self.runner = GitRunner(config.git_path, config.git_timeout)
        self.policy = StatusPolicy(config)
        #: How many snapshots were taken (each one runs git when ``include_git`` is on).
        self.snapshots_taken = 0
        self._platform = describe_platform() if config.include_platform else None
        self._max_bytes = config.max_bytes
        limit = getattr(coordinator, "injection_size_limit", None)
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
            self._max_bytes = min(self._max_bytes, limit)
        self._tool_patterns = tuple(p.lower() for p in config.refresh_after_tools)
        self._tool_match: dict[str, bool] = {}
        self._snapshot: Snapshot | None = None
        self._writes = 0  # writing tools seen so far; a snapshot records the count it saw
        self._lock = asyncio.Lock()
        self._rendered: tuple[Snapshot, str | None, str] | None = None
        self._dir_key: tuple[object, str] | None = None
        self._dir: Path = Path.cwd()
        self._day: str | None = None
        self._day_ends = 0.0

    # -- where ----------------------------------------------------------------------------

    def working_dir(self) -> Path:
        """The capability ``session.working_dir``, else config ``working_dir``, else the
        process's current directory; relative paths are taken from the current directory."""
        raw: object = None
        get_capability = getattr(self.coordinator, "get_capability", None)
        if get_capability is not None:
            raw = get_capability(WORKING_DIR_CAPABILITY)
        chosen: str | None = self.config.working_dir
        if isinstance(raw, os.PathLike):
            raw = os.fspath(raw)
        if isinstance(raw, str) and raw:
            chosen = raw
        cwd = os.getcwd()
        key = (chosen, cwd)
        if key != self._dir_key:
            path = Path(cwd if chosen is None else chosen).expanduser()
            self._dir = (Path(cwd) / path).resolve()  # an absolute path stays itself
            self._dir_key = key
        return self._dir

    # -- the snapshot ---------------------------------------------------------------------

    def mark_stale(self) -> None:
        """Take a new snapshot before the next request."""
        self._writes += 1

    def _fresh(self, snapshot: Snapshot, working_dir: str) -> bool:
        if snapshot.writes != self._writes or not self.config.cache:
            return False
        if snapshot.working_dir != working_dir:
            return False
        interval = self.config.refresh_interval
        if interval is not None and self.clock() - snapshot.taken_at >= interval:
            return False
        return fingerprint(self._watch(snapshot)) == snapshot.marks

    @staticmethod
    def _watch(snapshot: Snapshot) -> tuple[str, ...]:
        return snapshot.facts.watch if snapshot.facts is not None else (snapshot.working_dir,)

    async def snapshot(self) -> Snapshot:
        """The current snapshot: the cached one while it is fresh, else a new one."""
        working_dir = self.working_dir()
        key = str(working_dir)
        current = self._snapshot
        if current is not None and self._fresh(current, key):
            return current
        async with self._lock:
            latest = self._snapshot
            if latest is not None and latest is not current and self._fresh(latest, key):
                return latest  # taken by a concurrent request while this one waited
            return await self._take(working_dir, key, latest)

    async def _take(self, working_dir: Path, key: str, previous: Snapshot | None) -> Snapshot:
        writes = self._writes  # a write seen while git runs makes this snapshot stale
        started = self.clock()
        watched = self._watch(previous) if previous and previous.working_dir == key else None
        before = fingerprint(watched) if watched is not None else None
        from .render import Environment
        from .snapshot import GitFacts, take_git_facts

        facts: GitFacts | None = None
        if self.config.include_git:
            try:
                facts = await take_git_facts(self.runner, working_dir, self.config, self.policy)
            except (asyncio.CancelledError, KeyboardInterrupt):
                raise
            except Exception as err:  # a bug must not cost the session its context
                logger.exception("%s: reading git state in %s failed", MODULE_ID, working_dir)
                detail = f"internal error: {type(err).__name__}: {err}"
                facts = GitFacts("error", detail, watch=(key,))
        watch = facts.watch if facts is not None else (key,)
        # Marks from before git ran when the watch list is the same: a change made while git
        # was running then shows up as a difference at the next request.
        marks = before if before is not None and watch == watched else fingerprint(watch)
        env = Environment(
            working_dir=key,
            exists=is_dir(working_dir),
            platform=self._platform,
            session_id=self._session_attr("session_id"),
            parent_id=self._session_attr("parent_id"),
        )
        snapshot = Snapshot(key, env, facts, marks, started, writes)
        self._snapshot = snapshot
        self.snapshots_taken += 1
        return snapshot

    def _session_attr(self, name: str) -> str | None:
        if not self.config.include_session:
            return None
        value = getattr(self.coordinator, name, None)
        return str(value) if value else None

    # -- the block ------------------------------------------------------------------------

    def today(self) -> str | None:
        """Today's local date (``2025-11-22``), with the time zone when configured.

        Worked out again at the next local midnight, and at least hourly (a change of
        daylight saving time moves midnight); in between the same string is returned.
        """
        if not self.config.include_datetime:
            return None
        if time.time() < self._day_ends:
            return self._day
        now = datetime.now().astimezone()
        day = now.date().isoformat()
        if self.config.datetime_include_timezone:
            offset = now.strftime("%z")
            day = f"{day} ({now.tzname()}, UTC{offset[:3]}:{offset[3:]})"
        midnight = datetime.combine(now.date() + timedelta(days=1), dt_time(), now.tzinfo)
        self._day, self._day_ends = day, min(midnight.timestamp(), time.time() + 3600)
        return day

    async def block(self) -> str:
        """The text injected before the next provider request."""
        snapshot = await self.snapshot()
        today = self.today()
        rendered = self._rendered
        if rendered is not None and rendered[0] is snapshot and rendered[1] == today:
            return rendered[2]
        from .render import render_block

        text = render_block(snapshot.env, today, snapshot.facts, self.config, self._max_bytes)
        if rendered is not None and rendered[2] == text:
            text = rendered[2]  # the very same string object: nothing changed
        self._rendered = (snapshot, today, text)
        return text

    # -- handlers -------------------------------------------------------------------------

    async def on_provider_request(self, event: str, data: dict[str, Any]) -> HookResult:
        """``provider:request``: inject the block, for this request only."""
        text = await self.block()
        return HookResult(
            action="inject_context",
            context_injection=text,
            context_injection_role=self.config.injection_role,
            ephemeral=True,
            suppress_output=True,
        )

    def _tool_writes(self, name: str) -> bool:
        known = self._tool_match.get(name)
        if known is None:
            lowered = name.lower()
            known = any(fnmatchcase(lowered, p) for p in self._tool_patterns)
            if len(self._tool_match) < 1024:
                self._tool_match[name] = known
        return known

    async def on_tool_event(self, event: str, data: dict[str, Any]) -> HookResult:
        """``tool:post`` / ``tool:error``: a tool that may have written marks the snapshot
        stale."""
        name = data.get("tool_name") or data.get("tool")
        if isinstance(name, str) and self._tool_writes(name):
            self._writes += 1
        return HookResult()
