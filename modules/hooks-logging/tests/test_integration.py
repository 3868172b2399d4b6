"""Mounted through a real HookRegistry: every event on disk, in order, with the documented
schema; each config key has its effect."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import events
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_module_hooks_logging import (
    HANDLER_NAME,
    MASK,
    RECORD_SCHEMA,
    LoggingHook,
    mount,
    on_session_ready,
    parse_config,
    project_slug,
)

Reader = Callable[[Path | str], list[dict[str, Any]]]


def file_of(template: str, session: str = "session-1") -> Path:
    return Path(template.format(session_id=session))


async def test_many_events_through_the_kernel(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    registry: HookRegistry = coordinator.hooks
    registry.set_default_fields(session_id="session-1")
    cleanup = await mount(coordinator, {"path": log_path})
    assert registry.list_handlers() == {"*": [HANDLER_NAME]}
    names = [*events.ALL_EVENTS, "my_plugin:something", "another:custom:event"]
    count = 20_000
    for n in range(count):
        await registry.emit(names[n % len(names)], {"n": n, "tool_name": "bash"})
    await registry.emit("PreToolUse", {"n": count})  # an alias resolves before dispatch
    await cleanup()

    records = read_jsonl(file_of(log_path))
    assert len(records) == count + 1
    assert [r["data"]["n"] for r in records] == list(range(count + 1))
    assert {r["event"] for r in records} == set(names)
    assert records[-1]["event"] == "tool:pre"
    first = records[0]
    assert list(first) == ["ts", "level", "event", "session_id", "data", "schema"]
    assert first["schema"] == {"name": "amplifier.hooks-logging.event", "version": 1}
    assert first["schema"] == RECORD_SCHEMA
    assert first["session_id"] == "session-1"
    assert first["data"]["session_id"] == "session-1"
    assert first["data"]["timestamp"].endswith("+00:00")
    assert first["ts"][:10] == first["data"]["timestamp"][:10]
    by_event = {r["event"]: r["level"] for r in records}
    assert by_event["tool:error"] == "error"
    assert by_event["provider:retry"] == "warning"
    assert by_event["my_plugin:something"] == "info"
    assert registry.list_handlers() == {}


async def test_on_the_kernels_own_coordinator(log_path: str, read_jsonl: Reader) -> None:
    from amplifier_core.testing import create_test_coordinator

    coordinator = create_test_coordinator(session_id="real-coordinator")
    cleanup = await mount(coordinator, {"path": log_path})
    await coordinator.hooks.emit("session:start", {"mount_plan": {}})
    await coordinator.hooks.emit("tool:pre", {"tool_name": "echo", "tool_input": {}})
    await cleanup()
    records = read_jsonl(file_of(log_path, "real-coordinator"))
    assert [r["event"] for r in records] == ["session:start", "tool:pre"]
    assert {r["session_id"] for r in records} == {"real-coordinator"}


async def test_cleanup_unsubscribes_and_later_events_are_not_written(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    cleanup = await mount(coordinator, {"path": log_path})
    await coordinator.hooks.emit("tool:pre", {"n": 1})
    await cleanup()
    await cleanup()  # idempotent
    await coordinator.hooks.emit("tool:pre", {"n": 2})
    assert [r["data"]["n"] for r in read_jsonl(file_of(log_path))] == [1]


async def test_session_id_from_data_else_from_the_coordinator(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator(session_id="parent")
    cleanup = await mount(coordinator, {"path": log_path})
    await coordinator.hooks.emit("session:start", {"session_id": "child/../../x"})
    await coordinator.hooks.emit("session:start", {})
    await cleanup()
    child = read_jsonl(file_of(log_path, "child_.._.._x"))
    assert [r["session_id"] for r in child] == ["child/../../x"]
    assert [r["session_id"] for r in read_jsonl(file_of(log_path, "parent"))] == ["parent"]


async def test_data_is_captured_at_emit_time(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    registry: HookRegistry = coordinator.hooks

    def vandal(event: str, data: dict[str, Any]) -> HookResult:
        data["tool_input"]["command"] = "changed later"
        data["added"] = True
        return HookResult(action="modify", data={"replaced": True})

    registry.register("tool:pre", vandal, priority=5, name="vandal")
    cleanup = await mount(coordinator, {"path": log_path})
    payload = {"tool_input": {"command": "ls"}}
    await registry.emit("tool:pre", payload)
    payload["tool_input"]["command"] = "changed by the caller"
    await cleanup()
    (record,) = read_jsonl(file_of(log_path))
    assert record["data"]["tool_input"] == {"command": "ls"}
    assert "added" not in record["data"]


async def test_a_denied_event_is_still_recorded(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    coordinator.hooks.register(
        "tool:pre", lambda e, d: HookResult(action="deny", reason="no"), priority=0, name="gate"
    )
    cleanup = await mount(coordinator, {"path": log_path})
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
    await cleanup()
    assert result.action == "deny"
    assert [r["event"] for r in read_jsonl(file_of(log_path))] == ["tool:pre"]


async def test_priority_key_orders_the_handler(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    coordinator.hooks.register(
        "tool:pre", lambda e, d: HookResult(action="deny", reason="no"), priority=0, name="gate"
    )
    cleanup = await mount(coordinator, {"path": log_path, "priority": 10})
    chain = coordinator.hooks.handlers_for("tool:pre")
    assert [(h.name, h.priority) for h in chain] == [("gate", 0), (HANDLER_NAME, 10)]
    await coordinator.hooks.emit("tool:pre", {})
    await coordinator.hooks.emit("tool:post", {})
    await cleanup()
    assert [r["event"] for r in read_jsonl(file_of(log_path))] == ["tool:post"]


async def test_the_logger_never_breaks_emit(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    # A kernel that hands handlers the emitter's objects (ours with json_data off): the logger
    # meets them itself.
    coordinator = make_coordinator(hooks=HookRegistry(json_data=False))
    cleanup = await mount(coordinator, {"path": log_path})

    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("nope")

    looped: dict[str, Any] = {"tool_input": {"api_key": "sk-123", "obj": Hostile()}}
    looped["self"] = looped
    result = await coordinator.hooks.emit("tool:pre", looped)
    await cleanup()
    assert result.action == "continue"
    (record,) = read_jsonl(file_of(log_path))
    assert record["data"]["tool_input"]["api_key"] == MASK
    assert record["data"]["tool_input"]["obj"]["__unserializable__"] == "Hostile"
    # The kernel hands handlers a copy of the data, so "self" may lead through a copy or two
    # before it reaches a dict already written and the cycle closes: the record stays finite,
    # and the secret is masked at every level.
    level = record["data"]
    for _ in range(4):
        assert level["tool_input"]["api_key"] == MASK
        level = level["self"]
        if level == {"__circular__": "dict"}:
            break
    assert level == {"__circular__": "dict"}


# ---------------------------------------------------------------------- config keys


async def test_path_key_placeholders(
    make_coordinator: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_jsonl: Reader
) -> None:
    home = tmp_path / "home"
    workdir = tmp_path / "my project"
    workdir.mkdir()
    monkeypatch.setenv("HOME", str(home))
    coordinator = make_coordinator(capabilities={"session.working_dir": str(workdir)})
    cleanup = await mount(coordinator, {"path": "{home}/logs/{project}/{session_id}.jsonl"})
    await coordinator.hooks.emit("session:start", {})
    await cleanup()
    slug = project_slug(workdir)
    assert slug == str(workdir).replace("/", "-")
    assert len(read_jsonl(home / "logs" / slug / "session-1.jsonl")) == 1


async def test_default_path_is_the_ecosystem_location(
    make_coordinator: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_jsonl: Reader
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("AMPLIFIER_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    cleanup = await mount(make_coordinator(), None)
    await cleanup()
    hook = LoggingHook(parse_config({}), session_id="abc")
    expected = tmp_path / ".amplifier" / "projects" / project_slug(tmp_path) / "sessions"
    assert hook.path_for("abc") == str(expected / "abc" / "events.jsonl")
    hook.close()
    monkeypatch.setenv("AMPLIFIER_HOME", str(tmp_path / "state"))
    hook = LoggingHook(parse_config({}), session_id="a/../b")
    expected = tmp_path / "state" / "projects" / project_slug(tmp_path) / "sessions"
    assert hook.path_for("a/../b") == str(expected / "a_.._b" / "events.jsonl")
    hook.close()


async def test_relative_and_tilde_paths(
    make_coordinator: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_jsonl: Reader
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    workdir = tmp_path / "w"
    workdir.mkdir()
    coordinator = make_coordinator(capabilities={"session.working_dir": str(workdir)})
    first = await mount(coordinator, {"path": "logs/{session_id}.jsonl"})
    second = await mount(coordinator, {"path": "~/{session_id}.jsonl"})
    await coordinator.hooks.emit("session:start", {})
    await first()
    await second()
    assert len(read_jsonl(workdir / "logs" / "session-1.jsonl")) == 1
    assert len(read_jsonl(tmp_path / "h" / "session-1.jsonl")) == 1


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("debug", ["llm:request:debug", "tool:pre", "provider:retry", "tool:error"]),
        ("info", ["tool:pre", "provider:retry", "tool:error"]),
        ("WARNING", ["provider:retry", "tool:error"]),
        ("error", ["tool:error"]),
    ],
)
async def test_level_key(
    make_coordinator: Any, log_path: str, read_jsonl: Reader, level: str, expected: list[str]
) -> None:
    coordinator = make_coordinator()
    cleanup = await mount(coordinator, {"path": log_path, "level": level})
    for name in ["llm:request:debug", "tool:pre", "provider:retry", "tool:error"]:
        await coordinator.hooks.emit(name, {})
    await cleanup()
    records = read_jsonl(file_of(log_path))
    assert [r["event"] for r in records] == expected
    if level == "debug":
        assert records[0]["level"] == "debug"


async def test_include_exclude_and_debug_events_keys(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    cleanup = await mount(
        coordinator,
        {
            "path": log_path,
            "include": ["tool:*", "content_block:*", "session:*"],
            "exclude": ["tool:error"],
            "debug_events": ["content_block:delta"],
        },
    )
    for name in [
        "session:start",
        "tool:pre",
        "tool:error",
        "prompt:submit",
        "content_block:delta",
        "content_block:end",
    ]:
        await coordinator.hooks.emit(name, {})
    await cleanup()
    events_written = [r["event"] for r in read_jsonl(file_of(log_path))]
    assert events_written == ["session:start", "tool:pre", "content_block:end"]


async def test_redact_keys_key(make_coordinator: Any, log_path: str, read_jsonl: Reader) -> None:
    coordinator = make_coordinator()
    cleanup = await mount(coordinator, {"path": log_path, "redact_keys": ["ssn", "dob"]})
    await coordinator.hooks.emit(
        "user:notification",
        {"user": {"ssn": "1", "DOB": "2", "name": "n"}, "headers": {"Authorization": "x"}},
    )
    await cleanup()
    (record,) = read_jsonl(file_of(log_path))
    assert record["data"]["user"] == {"ssn": MASK, "DOB": MASK, "name": "n"}
    assert record["data"]["headers"] == {"Authorization": MASK}


@pytest.mark.parametrize("bytes_format", ["utf8", "base64"])
async def test_bytes_format_key(
    make_coordinator: Any, log_path: str, read_jsonl: Reader, bytes_format: str
) -> None:
    coordinator = make_coordinator(hooks=HookRegistry(json_data=False))  # bytes reach us
    cleanup = await mount(coordinator, {"path": log_path, "bytes_format": bytes_format})
    await coordinator.hooks.emit("artifact:write", {"content": b"hi\xff"})
    await cleanup()
    (record,) = read_jsonl(file_of(log_path))
    if bytes_format == "utf8":
        assert record["data"]["content"] == "hi\\xff"
    else:
        assert base64.b64decode(record["data"]["content"]["__bytes__"]) == b"hi\xff"


async def test_max_bytes_and_backups_keys(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    cleanup = await mount(coordinator, {"path": log_path, "max_bytes": 4096, "backups": 2})
    for n in range(300):
        await coordinator.hooks.emit("tool:post", {"n": n, "pad": "p" * 50})
    await cleanup()
    kept = rotated_numbers(file_of(log_path), backups=2, max_bytes=4096, read_jsonl=read_jsonl)
    assert kept == list(range(300 - len(kept), 300))
    assert len(kept) > 25


def rotated_numbers(path: Path, *, backups: int, max_bytes: int, read_jsonl: Reader) -> list[int]:
    """The ``n`` of every record in ``path`` and its backups, oldest first."""
    files = [path, *(Path(f"{path}.{i}") for i in range(1, backups + 1))]
    assert not Path(f"{path}.{backups + 1}").exists()
    kept: list[int] = []
    for f in reversed(files):
        assert f.stat().st_size <= max_bytes
        kept.extend(r["data"]["n"] for r in read_jsonl(f))
    return kept


async def test_queue_size_key_applies_back_pressure_without_loss(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    coordinator = make_coordinator()
    hook = LoggingHook(parse_config({"path": log_path, "queue_size": 2}), coordinator=coordinator)
    hook.attach(coordinator.hooks)
    for n in range(2000):
        await coordinator.hooks.emit("tool:pre", {"n": n})
    hook.close()
    assert [r["data"]["n"] for r in read_jsonl(file_of(log_path))] == list(range(2000))
    assert hook.stats.dropped == 0
    assert hook.stats.waits > 0


# ---------------------------------------------------------------------- kernels without wildcards


class ExactRegistry:
    """A registry that, like amplifier-core 2.0.2's, only matches exact event names."""

    def __init__(self) -> None:
        self.handlers: dict[str, list[tuple[int, str, Any]]] = {}

    def register(
        self, event: str, handler: Any, priority: int = 0, name: str | None = None
    ) -> Callable[[], None]:
        entry = (priority, name or "", handler)
        self.handlers.setdefault(event, []).append(entry)
        self.handlers[event].sort(key=lambda e: e[0])
        return lambda: self.handlers[event].remove(entry)

    def unregister(self, name: str) -> None:
        for entries in self.handlers.values():
            entries[:] = [e for e in entries if e[1] != name]

    async def emit(self, event: str, data: dict[str, Any]) -> HookResult:
        for _, _, handler in list(self.handlers.get(event, [])):
            handler(event, dict(data))
        return HookResult()

    def count(self) -> int:
        return sum(len(v) for v in self.handlers.values())


async def test_without_wildcards_every_known_name_is_subscribed(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    registry = ExactRegistry()
    coordinator = make_coordinator(
        hooks=registry, capabilities={"observability.events": ["skills:loaded"]}
    )
    cleanup = await mount(
        coordinator,
        {
            "path": log_path,
            "extra_events": ["my:event", "tool:*"],
            "exclude": ["content_block:delta"],
        },
    )
    subscribed = {e for e, entries in registry.handlers.items() if entries}
    assert set(events.ALL_EVENTS) - {"content_block:delta"} <= subscribed
    assert {"my:event", "skills:loaded"} <= subscribed
    assert "content_block:delta" not in subscribed
    assert "llm:request:debug" not in subscribed  # debug events only at level debug
    assert "tool:*" not in subscribed  # a pattern cannot be subscribed by name here
    for name in ["tool:pre", "my:event", "skills:loaded", "unknown:event"]:
        await registry.emit(name, {})
    await cleanup()
    assert registry.count() == 0
    written = [r["event"] for r in read_jsonl(file_of(log_path))]
    assert written == ["tool:pre", "my:event", "skills:loaded"]  # unknown:event is not seen


async def test_without_wildcards_debug_events_are_subscribed_at_debug_level(
    make_coordinator: Any, log_path: str
) -> None:
    registry = ExactRegistry()
    cleanup = await mount(make_coordinator(hooks=registry), {"path": log_path, "level": "debug"})
    assert {"llm:request:debug", "llm:response:debug", "llm:request:raw"} <= set(registry.handlers)
    await cleanup()


async def test_auto_discover_key_and_on_session_ready(
    make_coordinator: Any, log_path: str, read_jsonl: Reader
) -> None:
    registry = ExactRegistry()
    coordinator = make_coordinator(
        hooks=registry, capabilities={"observability.events": ["early:event"]}
    )
    off = await mount(coordinator, {"path": log_path, "auto_discover": False})
    on = await mount(coordinator, {"path": log_path.replace("events", "auto")})
    assert "early:event" in registry.handlers
    assert len(registry.handlers["early:event"]) == 1  # only the auto-discovering logger
    coordinator.register_capability("observability.events", ["early:event", "late:event"])
    await on_session_ready(coordinator)
    assert len(registry.handlers["late:event"]) == 1
    await registry.emit("late:event", {})
    await off()
    await on()
    assert [
        r["event"]
        for r in read_jsonl(log_path.replace("events", "auto").format(session_id="session-1"))
    ] == ["late:event"]
    assert not file_of(log_path).exists()


async def test_registry_without_unregister_callables(make_coordinator: Any, log_path: str) -> None:
    class NoUndo(ExactRegistry):
        def register(  # type: ignore[override]
            self, event: str, handler: Any, priority: int = 0, name: str | None = None
        ) -> None:
            super().register(event, handler, priority, name)

    registry = NoUndo()
    cleanup = await mount(make_coordinator(hooks=registry), {"path": log_path})
    assert registry.count() > 40
    await cleanup()
    assert registry.count() == 0


def test_records_parse_as_documented(tmp_path: Path) -> None:
    hook = LoggingHook(parse_config({"path": str(tmp_path / "e.jsonl")}), session_id="s")
    hook.handler("tool:pre", {"x": 1})
    hook.close()
    line = (tmp_path / "e.jsonl").read_text()
    assert line.startswith('{"ts":"')
    assert line.endswith('"schema":{"name":"amplifier.hooks-logging.event","version":1}}\n')
    assert json.loads(line)["data"] == {"x": 1}


def drain_fifo(fifo: Path, done: threading.Event) -> bytes:
    """Read ``fifo`` until ``done`` is set and nothing more arrives."""
    received = bytearray()
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        while True:
            try:
                chunk = os.read(reader, 1 << 16)
            except BlockingIOError:
                chunk = b""
            received += chunk
            if not chunk:
                if done.is_set():
                    return bytes(received)
                time.sleep(0.005)
    finally:
        os.close(reader)


def test_block_timeout_key_bounds_the_wait_on_a_stalled_disk(tmp_path: Path) -> None:
    fifo = tmp_path / "stalled.fifo"  # nobody reads it: writes stop once the pipe is full
    os.mkfifo(fifo)
    config = parse_config({"path": str(fifo), "queue_size": 4, "block_timeout": 0.1})
    hook = LoggingHook(config, session_id="s")
    started = time.monotonic()
    for n in range(100):
        hook.handler("tool:pre", {"n": n, "pad": "p" * 8192})
    waited = time.monotonic() - started
    assert 0.1 <= waited < 3
    assert hook.stats.dropped > 0
    assert list(hook.stats.drop_reasons) == ["queue full for 0.1s (the disk made no progress)"]
    done = threading.Event()

    def close() -> None:
        hook.close()
        done.set()

    closer = threading.Thread(target=close)
    closer.start()
    lines = drain_fifo(fifo, done).decode().splitlines()
    closer.join(10)
    written = [json.loads(line) for line in lines]
    assert len(written) - 1 + hook.stats.dropped == 100
    assert written[-1]["event"] == "hooks-logging:dropped"


async def test_a_sessions_directory_exists_once_its_first_emit_returns(
    make_coordinator: Any, tmp_path: Path, read_jsonl: Reader
) -> None:
    """An application may look for the session's directory as soon as the event is emitted
    (Amplifier's session store reads its metadata from there), before the writer has written."""
    template = str(tmp_path / "sessions" / "{session_id}" / "events.jsonl")
    coordinator = make_coordinator()
    cleanup = await mount(coordinator, {"path": template})
    await coordinator.hooks.emit("session:start", {"session_id": "s-1"})
    assert (tmp_path / "sessions" / "s-1").is_dir()  # no flush: made in the emit
    await cleanup()
    assert len(read_jsonl(tmp_path / "sessions" / "s-1" / "events.jsonl")) == 1
