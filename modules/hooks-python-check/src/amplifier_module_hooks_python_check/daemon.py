"""mypy through its daemon (``dmypy``): a warm check of a changed file in milliseconds instead of
a new mypy process each time (its start-up alone is over 100 ms).

One daemon runs per working directory and mypy arguments, with the same arguments as the plain
``mypy`` run (``--follow-imports=silent``, which the daemon does not support, becomes
``normal``; errors outside the checked file are dropped anyway). :meth:`MypyDaemons.warm`
starts it at mount, on a thread of its own, and has it check a small file that imports the
most used standard modules, so that the first real check finds their stubs loaded; a check
that comes first waits for that start instead of making its own. Requests go through mypy's
own client, imported in this process, on a worker thread, so the event loop never waits. The
daemon stops when the module is cleaned up (which first waits for a start under way, so no
daemon is left behind), at interpreter exit, and by itself after ``IDLE_TIMEOUT_S`` without a
request, so a session that dies leaves nothing running for long.

When mypy cannot be imported here (a ``commands.mypy`` of another environment, say) or the
daemon cannot start or answer, the caller runs plain ``mypy`` instead and says why once.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import importlib.machinery
import importlib.util
import json
import logging
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .runner import CommandMissing, CommandTimeout, Completed, run_command

__all__ = ["IDLE_TIMEOUT_S", "DaemonUnavailable", "MypyDaemons", "daemon_available"]

logger = logging.getLogger(__name__)

IDLE_TIMEOUT_S: Final = 900
"""The daemon exits after this many seconds without a request."""


class DaemonUnavailable(Exception):
    """The daemon could not be started or did not answer; the message says why."""


def daemon_available() -> bool:
    """Whether mypy's daemon client can be imported in this interpreter.

    Found without importing anything: ``importlib.util.find_spec("mypy.dmypy.client")``
    would import ``mypy`` and ``mypy.dmypy`` (their compiled extension, about 30 ms) to look
    in them; the path finder looks in their folders instead."""
    try:
        top = importlib.util.find_spec("mypy")
        if top is None or not top.submodule_search_locations:
            return False
        package = importlib.machinery.PathFinder.find_spec(
            "mypy.dmypy", list(top.submodule_search_locations)
        )
        if package is None or not package.submodule_search_locations:
            return False
        client = importlib.machinery.PathFinder.find_spec(
            "mypy.dmypy.client", list(package.submodule_search_locations)
        )
    except (ImportError, ValueError):
        return False
    return client is not None


def daemon_args(args: Sequence[str]) -> list[str]:
    """``args`` as the daemon accepts them (``--follow-imports=silent`` -> ``normal``)."""
    fixed: list[str] = []
    for arg in args:
        if arg in ("--follow-imports=silent", "--follow-imports=skip"):
            arg = "--follow-imports=normal"
        fixed.append(arg)
    return fixed


WARM_SOURCE: Final = (
    '"""Loads the stubs of the most used standard modules before the first check."""\n\n'
    "import collections, dataclasses, enum, functools, itertools, json, logging, os, pathlib\n"
    "import re, sys, typing\n"
)
"""What the daemon checks when it is warmed up at mount."""

_WARM_NAME: Final = "_python_check_warm_up.py"


@dataclass(slots=True)
class _Daemon:
    status_file: Path
    args: tuple[str, ...]
    started: bool = False
    warming: concurrent.futures.Future[None] | None = None
    """The start under way on a thread of its own (:meth:`MypyDaemons.warm`)."""
    kept: tuple[str, ...] = ()
    """Files every request names besides the checked one: the warm-up file, once checked
    (a daemon whose set of files loses one may fail on a later change; mypy 2.4)."""


_STARTED: Final[set[Path]] = set()
"""Status files of the daemons this process started and has not stopped yet."""

_LIVE: Final[weakref.WeakSet[MypyDaemons]] = weakref.WeakSet()
"""Every :class:`MypyDaemons` not closed yet."""


@atexit.register
def _stop_all() -> None:
    """At interpreter exit, stop the daemons of modules that were never cleaned up (after
    any start under way has finished, so that none is left running)."""
    for daemons in list(_LIVE):
        with contextlib.suppress(Exception):
            daemons.close()
    for status_file in list(_STARTED):
        with contextlib.suppress(Exception):
            _stop(status_file)


class MypyDaemons:
    """The daemons of one mounted module, one per (working directory, arguments)."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._daemons: dict[tuple[str, tuple[str, ...]], _Daemon] = {}
        self._locks: dict[tuple[str, tuple[str, ...]], asyncio.Lock] = {}
        self._closed = False
        _LIVE.add(self)

    def _daemon(self, cwd: Path, args: tuple[str, ...]) -> tuple[_Daemon, asyncio.Lock]:
        key = (str(cwd), args)
        daemon = self._daemons.get(key)
        if daemon is None:
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="python-check-dmypy-"))
            status = self._root / f"dmypy-{len(self._daemons)}.json"
            daemon = self._daemons[key] = _Daemon(status, args)
            self._locks[key] = asyncio.Lock()
        return daemon, self._locks[key]

    async def check(
        self, path: Path, *, cwd: Path, args: Sequence[str], seconds: float
    ) -> Completed:
        """mypy's output for ``path`` as a finished run (exit 0, 1 or 2 as plain mypy).

        :raises DaemonUnavailable: it could not start or answer (the caller falls back).
        :raises CommandTimeout: no answer within ``seconds``.
        """
        fixed = tuple(daemon_args(args))
        daemon, lock = self._daemon(cwd, fixed)
        async with lock:
            warming, daemon.warming = daemon.warming, None
            if warming is not None:  # started at mount: wait for it rather than start another
                try:
                    await asyncio.wrap_future(warming)
                except Exception as err:  # started below the ordinary way, or said why
                    logger.debug("dmypy: the start at mount failed: %s", err)
            if not daemon.started:
                await self._start(daemon, cwd, seconds)
            response = await self._request(daemon, [*fixed, str(path)], seconds, kept=daemon.kept)
            if "restart" in response or "error" in response:
                # stopped by its idle timeout, or its options changed: start it again once
                daemon.started = False
                daemon.kept = ()
                await self._start(daemon, cwd, seconds)
                response = await self._request(daemon, [*fixed, str(path)], seconds)
        if "error" in response:
            raise DaemonUnavailable(f"dmypy: {response['error']}")
        status = response.get("status")
        if not isinstance(status, int):
            raise DaemonUnavailable(f"dmypy gave no exit status: {str(response)[:200]}")
        return Completed(
            returncode=status,
            stdout=str(response.get("out", "")),
            stderr=str(response.get("err", "")),
        )

    def warm(self, cwd: Path, args: Sequence[str], seconds: float) -> None:
        """Start the daemon for ``cwd`` and ``args`` on a thread of its own and have it check
        :data:`WARM_SOURCE`; returns at once and never raises (a start that fails is made
        again, the ordinary way, by the first check)."""
        if self._closed:
            return
        daemon, _ = self._daemon(cwd, tuple(daemon_args(args)))
        if daemon.started or daemon.warming is not None:
            return
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        daemon.warming = future
        root = self._root
        assert root is not None  # made by _daemon
        worker = threading.Thread(
            target=_warm_up,
            args=(daemon, cwd, root / _WARM_NAME, seconds, future),
            name="python-check-dmypy-warm-up",
            daemon=True,
        )
        worker.start()

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait until every start :meth:`warm` began has ended (well or not); False when one
        is still under way after ``timeout`` seconds."""
        pending = [d.warming for d in self._daemons.values() if d.warming is not None]
        _, not_done = concurrent.futures.wait(pending, timeout)
        return not not_done

    async def _start(self, daemon: _Daemon, cwd: Path, seconds: float) -> None:
        try:
            done = await run_command(_start_argv(daemon), cwd=cwd, seconds=seconds)
        except (CommandMissing, CommandTimeout) as err:
            raise DaemonUnavailable(f"dmypy could not start: {err}") from err
        _started(daemon, done)

    async def _request(
        self, daemon: _Daemon, args: list[str], seconds: float, *, kept: Sequence[str] = ()
    ) -> dict[str, Any]:
        """Ask the daemon to check ``args``' files, with those of ``kept`` that still exist
        placed before the last one."""
        from mypy.dmypy import client
        from mypy.version import __version__

        def call() -> dict[str, Any]:
            present = [name for name in kept if os.path.exists(name)]
            return client.request(
                str(daemon.status_file),
                "run",
                version=__version__,
                args=[*args[:-1], *present, *args[-1:]],
                export_types=False,
                is_tty=False,
                terminal_width=80,
            )

        try:
            async with asyncio.timeout(seconds):
                return await asyncio.to_thread(call)
        except TimeoutError:
            raise CommandTimeout(f"dmypy timed out after {seconds:g}s") from None
        except client.BadStatus as err:  # type: ignore[attr-defined]  # the daemon is gone
            return {"restart": str(err)}
        except OSError as err:
            return {"error": f"{type(err).__name__}: {err}"}

    async def aclose(self) -> None:
        """:meth:`close` on a worker thread."""
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop every daemon (a few milliseconds each) and remove their status files. A start
        under way is waited for first (it ends within its deadline), so none is left behind."""
        self._closed = True
        _LIVE.discard(self)
        daemons, self._daemons = list(self._daemons.values()), {}
        for daemon in daemons:
            warming, daemon.warming = daemon.warming, None
            if warming is not None:
                with contextlib.suppress(Exception):
                    warming.result()
            if daemon.started or daemon.status_file.exists():
                _stop(daemon.status_file)
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None


def _start_argv(daemon: _Daemon) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mypy.dmypy",
        "--status-file",
        str(daemon.status_file),
        "start",
        "--timeout",
        str(IDLE_TIMEOUT_S),
        "--",
        *daemon.args,
    ]


def _started(daemon: _Daemon, done: Completed) -> None:
    """Record a finished ``dmypy start``; raise :class:`DaemonUnavailable` when it failed."""
    if done.returncode != 0:
        text = (done.stderr or done.stdout).strip().splitlines()
        raise DaemonUnavailable(
            f"dmypy could not start (exit {done.returncode}): {text[-1] if text else ''}"
        )
    daemon.started = True
    _STARTED.add(daemon.status_file)


def _warm_up(
    daemon: _Daemon,
    cwd: Path,
    source: Path,
    seconds: float,
    future: concurrent.futures.Future[None],
) -> None:
    """:meth:`MypyDaemons.warm`'s thread: start the daemon, check ``source``, report."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        try:
            done = subprocess.run(
                _start_argv(daemon),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=seconds,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            raise DaemonUnavailable(f"dmypy could not start: {err}") from err
        _started(
            daemon,
            Completed(
                done.returncode,
                done.stdout.decode("utf-8", "replace"),
                done.stderr.decode("utf-8", "replace"),
            ),
        )
        from mypy.dmypy import client
        from mypy.version import __version__

        source.write_text(WARM_SOURCE, encoding="utf-8")
        client.request(
            str(daemon.status_file),
            "run",
            timeout=max(1, math.ceil(seconds)),
            version=__version__,
            args=[*daemon.args, str(source)],
            export_types=False,
            is_tty=False,
            terminal_width=80,
        )
        daemon.kept = (str(source),)
    except BaseException as err:
        future.set_exception(err)
    else:
        future.set_result(None)


def _stop(status_file: Path) -> None:
    """Ask the daemon to stop; kill it if it is still there (it hung, or did not answer)."""
    from mypy.dmypy import client

    bad_status: type[Exception] = client.BadStatus  # type: ignore[attr-defined]
    _STARTED.discard(status_file)
    pid = _pid_of(status_file)
    with contextlib.suppress(bad_status, OSError):
        client.request(str(status_file), "stop", timeout=5)
    if pid is not None:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)  # gone already after "stop", unless it hung


def _pid_of(status_file: Path) -> int | None:
    try:
        pid = json.loads(status_file.read_text()).get("pid")
    except (OSError, ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None
