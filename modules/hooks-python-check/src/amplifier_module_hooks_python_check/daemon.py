"""mypy through its daemon (``dmypy``): a warm check of a changed file in milliseconds instead of
a new mypy process each time (its start-up alone is over 100 ms).

One daemon runs per working directory and mypy arguments, started on the first check with the
same arguments as the plain ``mypy`` run (``--follow-imports=silent``, which the daemon does not
support, becomes ``normal``; errors outside the checked file are dropped anyway). Requests go
through mypy's own client, imported in this process, on a worker thread, so the event loop
never waits. The daemon stops when the module is cleaned up, and by itself after
``IDLE_TIMEOUT_S`` without a request, so a session that dies leaves nothing running for long.

When mypy cannot be imported here (a ``commands.mypy`` of another environment, say) or the
daemon cannot start or answer, the caller runs plain ``mypy`` instead and says why once.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
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
    """Whether mypy's daemon client can be imported in this interpreter."""
    try:
        return importlib.util.find_spec("mypy.dmypy.client") is not None
    except (ImportError, ValueError):
        return False


def daemon_args(args: Sequence[str]) -> list[str]:
    """``args`` as the daemon accepts them (``--follow-imports=silent`` -> ``normal``)."""
    fixed: list[str] = []
    for arg in args:
        if arg in ("--follow-imports=silent", "--follow-imports=skip"):
            arg = "--follow-imports=normal"
        fixed.append(arg)
    return fixed


@dataclass(slots=True)
class _Daemon:
    status_file: Path
    args: tuple[str, ...]
    started: bool = False


_STARTED: Final[set[Path]] = set()
"""Status files of the daemons this process started and has not stopped yet."""


@atexit.register
def _stop_all() -> None:
    """At interpreter exit, stop the daemons of modules that were never cleaned up."""
    for status_file in list(_STARTED):
        with contextlib.suppress(Exception):
            _stop(status_file)


class MypyDaemons:
    """The daemons of one mounted module, one per (working directory, arguments)."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._daemons: dict[tuple[str, tuple[str, ...]], _Daemon] = {}
        self._locks: dict[tuple[str, tuple[str, ...]], asyncio.Lock] = {}

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
            if not daemon.started:
                await self._start(daemon, cwd, seconds)
            response = await self._request(daemon, [*fixed, str(path)], seconds)
            if "restart" in response or "error" in response:
                # stopped by its idle timeout, or its options changed: start it again once
                daemon.started = False
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

    async def _start(self, daemon: _Daemon, cwd: Path, seconds: float) -> None:
        argv = [
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
        try:
            done = await run_command(argv, cwd=cwd, seconds=seconds)
        except (CommandMissing, CommandTimeout) as err:
            raise DaemonUnavailable(f"dmypy could not start: {err}") from err
        if done.returncode != 0:
            text = (done.stderr or done.stdout).strip().splitlines()
            raise DaemonUnavailable(
                f"dmypy could not start (exit {done.returncode}): {text[-1] if text else ''}"
            )
        daemon.started = True
        _STARTED.add(daemon.status_file)

    async def _request(self, daemon: _Daemon, args: list[str], seconds: float) -> dict[str, Any]:
        from mypy.dmypy import client
        from mypy.version import __version__

        def call() -> dict[str, Any]:
            return client.request(
                str(daemon.status_file),
                "run",
                version=__version__,
                args=args,
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
        """Stop every daemon (a few milliseconds each) and remove their status files."""
        daemons, self._daemons = list(self._daemons.values()), {}
        for daemon in daemons:
            if daemon.started:
                _stop(daemon.status_file)
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None


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
