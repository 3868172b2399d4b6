"""Drive one ``_emit_worker.py`` process: start it, send requests, read its JSON replies."""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["WorkerClient", "WorkerError"]

STARTUP_TIMEOUT_S = 120.0


class WorkerError(RuntimeError):
    """A worker could not start, answered with an error, or died; the message says which."""


class WorkerClient:
    """One running worker. ``info`` is what it reported about the implementation it imported."""

    def __init__(self, name: str, command: list[str], cwd: Path) -> None:
        self.name = name
        # Kept open for the worker's lifetime and closed in close(), not in a with block.
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        try:
            self._process = subprocess.Popen(
                command,
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
                encoding="utf-8",
            )
        except OSError as err:
            self._stderr.close()
            raise WorkerError(f"{name}: cannot start {command[0]}: {err}") from err
        self.info: dict[str, Any] = self._read()

    def request(self, **payload: Any) -> dict[str, Any]:
        """Send one request and return its reply; raise :class:`WorkerError` on any failure."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(payload) + "\n")
            stdin.flush()
        except OSError as err:
            raise WorkerError(f"{self.name}: worker gone ({err}); {self._stderr_tail()}") from err
        return self._read()

    def _read(self) -> dict[str, Any]:
        stdout = self._process.stdout
        assert stdout is not None
        line = stdout.readline()
        if not line:
            self._process.wait(timeout=STARTUP_TIMEOUT_S)
            raise WorkerError(
                f"{self.name}: worker exited with code {self._process.returncode}; "
                f"{self._stderr_tail()}"
            )
        try:
            reply: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError as err:
            raise WorkerError(f"{self.name}: worker wrote {line.strip()[:200]!r}") from err
        if "error" in reply:
            raise WorkerError(f"{self.name}: {reply['error']}")
        return reply

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        lines = [line.rstrip() for line in self._stderr.read().splitlines() if line.strip()]
        return "stderr: " + (" | ".join(lines[-5:]) if lines else "(empty)")

    def close(self) -> None:
        """Close its stdin (the worker exits at end of input) and wait for it."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()
