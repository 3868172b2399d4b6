"""Hooks files, attacked where they are read: each is read once and parsed from the bytes its
trust check hashed, and anything that is not a regular file where one is expected (a FIFO, a
socket, a link to a device or to a pipe) is refused with an error naming the file, never read
and never waited on; a hooks file over the size cap is an error."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from amplifier_hooks_util.regular_file import (
    MAX_HOOKS_FILE_BYTES,
    NotRegularFile,
    TooLargeFile,
    read_regular,
)

from amplifier_module_hooks_declarative import HooksConfigError, parse_config
from amplifier_module_hooks_declarative.discovery import decide_trust, find_sources, load_source
from amplifier_module_hooks_declarative.trust import trust_project

from .support import mounted

HOOKS_FILES = (
    ".claude/settings.json",
    ".amplifier/hooks.yaml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
)


def evil_hooks(marker: Path) -> bytes:
    command = {"type": "command", "command": f"touch {marker}"}
    return json.dumps({"hooks": {"PreToolUse": [{"hooks": [command]}]}}).encode()


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A pipe holding hooks an attacker piped in; its read end as ``/proc/self/fd/N``."""
    read_end, write_end = os.pipe()
    try:
        yield read_end, write_end
    finally:
        os.close(read_end)
        os.close(write_end)


def unread(read_end: int) -> bytes:
    """What is still in the pipe (never waits)."""
    os.set_blocking(read_end, False)
    try:
        return os.read(read_end, 1 << 16)
    except BlockingIOError:
        return b""


def place(project: Path, name: str, target: str) -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


@pytest.mark.parametrize("name", HOOKS_FILES)
async def test_a_link_to_a_pipe_in_a_project_never_trusted_is_never_read(
    tmp_path: Path, pipe: tuple[int, int], name: str
) -> None:
    read_end, write_end = pipe
    marker = tmp_path / "marker"
    payload = evil_hooks(marker)
    os.write(write_end, payload)
    project = tmp_path / "project"
    place(project, name, f"/proc/self/fd/{read_end}")  # what /dev/stdin is
    coordinator, cleanup = await mounted(project)
    try:
        await coordinator.hooks.emit("tool:pre", {"tool_name": "Bash", "tool_input": {}})
    finally:
        await cleanup()
    assert not marker.exists()
    assert unread(read_end) == payload  # not one byte was read


@pytest.mark.parametrize("name", HOOKS_FILES)
async def test_a_link_to_a_pipe_in_a_trusted_project_is_a_located_error(
    tmp_path: Path, pipe: tuple[int, int], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", "1")
    read_end, write_end = pipe
    marker = tmp_path / "marker"
    payload = evil_hooks(marker)
    os.write(write_end, payload)
    project = tmp_path / "project"
    place(project, name, f"/proc/self/fd/{read_end}")
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project)
    assert str(caught.value).startswith(f"hooks-declarative: {name}: ")
    assert "a FIFO, not a regular file; not read" in str(caught.value)
    assert unread(read_end) == payload
    assert not marker.exists()


@pytest.mark.parametrize("name", HOOKS_FILES)
async def test_a_fifo_in_a_trusted_project_stops_the_mount_without_waiting(
    tmp_path: Path, name: str
) -> None:
    project = tmp_path / "project"
    (project / name).parent.mkdir(parents=True)
    os.mkfifo(project / name)  # nobody will ever write to it: a read would hang forever
    trust_project(project)
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project)
    assert str(caught.value).startswith(f"hooks-declarative: {name}: ")
    assert "a FIFO, not a regular file; not read" in str(caught.value)


@pytest.mark.parametrize(("name", "target"), [(n, "/dev/zero") for n in HOOKS_FILES])
async def test_a_link_to_a_device_is_refused_not_read_to_the_end(
    tmp_path: Path, name: str, target: str
) -> None:
    project = tmp_path / "project"
    place(project, name, target)
    trust_project(project)
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project)
    assert str(caught.value).startswith(f"hooks-declarative: {name}: ")
    assert "a character device, not a regular file; not read" in str(caught.value)


async def test_a_socket_where_a_hooks_file_belongs_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".amplifier").mkdir(parents=True)
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(project / ".amplifier" / "hooks.yaml"))
        trust_project(project)
        with pytest.raises(HooksConfigError, match=r"^hooks-declarative: \.amplifier/hooks\.yaml"):
            await mounted(project)
    finally:
        server.close()


async def test_a_hooks_file_over_the_cap_is_an_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    big = project / ".claude" / "settings.json"
    big.write_text('{"hooks": {}, "pad": "' + "x" * MAX_HOOKS_FILE_BYTES + '"}')
    trust_project(project)
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project)
    assert str(caught.value).startswith("hooks-declarative: .claude/settings.json: ")
    assert "more than the 4,194,304 a hooks file may hold" in str(caught.value)


async def test_the_bytes_parsed_are_the_bytes_hashed(tmp_path: Path) -> None:
    """A process swapping a trusted and an evil settings.json between the trust check and the
    read gets nothing: nothing reads the file after it was hashed."""
    project = tmp_path / "project"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    trusted = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    settings.write_text(json.dumps(trusted))
    trust_project(project)
    config = parse_config({"include_user": False})
    sources = find_sources(config, project_dir=project, user_dir=tmp_path / "home")
    decision = decide_trust(sources, project)
    assert decision.status is not None
    assert decision.status.trusted
    marker = tmp_path / "marker"
    settings.write_bytes(evil_hooks(marker))  # the swap, right after the check
    [source] = [s for s in decision.kept if s.path == settings]
    snapshot = decision.status.surface
    document = load_source(source, config, project_dir=project, snapshot=snapshot)
    assert document is not None
    assert [block.name for block in document.events] == ["Stop"]


def test_read_regular_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="a FIFO"):
        read_regular(fifo)
    with pytest.raises(NotRegularFile, match="a character device"):
        read_regular("/dev/zero")
    with pytest.raises(NotRegularFile, match="a directory"):
        read_regular(tmp_path)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(TooLargeFile):
        read_regular(big, limit=10)
    assert read_regular(big, limit=11) == b"x" * 11
