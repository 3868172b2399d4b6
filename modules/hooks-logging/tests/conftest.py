"""Shared fixtures: a small coordinator stand-in, a registry, and a JSONL reader."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry


class Coordinator:
    """The part of a coordinator hooks-logging uses: ``hooks``, ``session_id`` and
    (optionally) capabilities."""

    def __init__(
        self,
        hooks: Any = None,
        session_id: str | None = "session-1",
        capabilities: dict[str, Any] | None = None,
    ) -> None:
        self.hooks = hooks if hooks is not None else HookRegistry()
        self.session_id = session_id
        self._capabilities = dict(capabilities or {})

    def get_capability(self, name: str) -> Any:
        return self._capabilities.get(name)

    def register_capability(self, name: str, value: Any) -> None:
        self._capabilities[name] = value


def read_records(path: Path | str) -> list[dict[str, Any]]:
    """Every line of a JSONL file, parsed; fails on a line that is not whole JSON."""
    text = Path(path).read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), f"{path} ends in an unterminated line"
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def coordinator() -> Coordinator:
    return Coordinator()


@pytest.fixture
def make_coordinator() -> Callable[..., Coordinator]:
    return Coordinator


@pytest.fixture
def read_jsonl() -> Callable[[Path | str], list[dict[str, Any]]]:
    return read_records


@pytest.fixture
def log_path(tmp_path: Path) -> str:
    """A path template under the test's own directory."""
    return str(tmp_path / "logs" / "{session_id}" / "events.jsonl")
