"""The background writer: order, flush, back-pressure, and counted (never silent) drops."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path

import pytest

from amplifier_module_hooks_logging import DROPPED_EVENT
from amplifier_module_hooks_logging.writer import EventWriter, Item


def item(n: int, session: str = "s") -> Item:
    return (time.time(), "info", "test:event", session, json.dumps({"n": n}))


def read(path: Path) -> list[dict[str, object]]:
    text = path.read_text()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_records_reach_their_files_in_order(tmp_path: Path) -> None:
    writer = EventWriter(lambda sid: str(tmp_path / f"{sid}.jsonl"))
    for n in range(5000):
        writer.put(item(n, session="a" if n % 3 else "b"))
    assert writer.close()
    a = [r["data"] for r in read(tmp_path / "a.jsonl")]
    b = [r["data"] for r in read(tmp_path / "b.jsonl")]
    assert a == [{"n": n} for n in range(5000) if n % 3]
    assert b == [{"n": n} for n in range(5000) if n % 3 == 0]
    assert writer.stats.written == 5000
    assert writer.stats.dropped == 0


def test_flush_waits_for_the_disk(tmp_path: Path) -> None:
    writer = EventWriter(lambda sid: str(tmp_path / "e.jsonl"))
    for n in range(100):
        writer.put(item(n))
    assert writer.flush(timeout=5)
    assert len(read(tmp_path / "e.jsonl")) == 100
    writer.close()


def test_a_tiny_queue_blocks_the_producer_instead_of_dropping(tmp_path: Path) -> None:
    writer = EventWriter(lambda sid: str(tmp_path / "e.jsonl"), queue_size=1)
    for n in range(3000):
        writer.put(item(n))
    writer.close()
    assert [r["data"] for r in read(tmp_path / "e.jsonl")] == [{"n": n} for n in range(3000)]
    assert writer.stats.dropped == 0
    assert writer.stats.waits > 0


def test_close_is_idempotent_and_late_records_are_counted(tmp_path: Path) -> None:
    writer = EventWriter(lambda sid: str(tmp_path / "e.jsonl"))
    writer.put(item(1))
    assert writer.close()
    assert writer.close()
    writer.put(item(2))
    assert writer.stats.dropped == 1
    assert writer.stats.drop_reasons == {"record arrived after the writer was closed": 1}
    assert len(read(tmp_path / "e.jsonl")) == 1


def test_write_failures_are_counted_logged_and_summarised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a directory should be")
    good = tmp_path / "good.jsonl"
    paths = {"bad": str(blocker / "e.jsonl"), "good": str(good)}
    writer = EventWriter(paths.__getitem__)
    with caplog.at_level(logging.ERROR, logger="amplifier_module_hooks_logging"):
        for n in range(10):
            writer.put(item(n, session="bad" if n < 4 else "good"))
        writer.close()
    assert writer.stats.dropped == 4
    assert writer.stats.write_errors >= 1
    (reason,) = writer.stats.drop_reasons
    assert "not-a-dir" in reason
    assert "failed: FileExistsError" in reason  # the directory cannot be created
    assert any("4 record(s) dropped in total" in r.getMessage() for r in caplog.records)
    records = read(good)
    assert [r["data"] for r in records[:-1]] == [{"n": n} for n in range(4, 10)]
    summary = records[-1]
    assert summary["event"] == DROPPED_EVENT
    assert summary["level"] == "error"
    assert summary["data"] == {"dropped": 4, "reasons": writer.stats.drop_reasons}


def test_a_stalled_disk_blocks_emit_for_block_timeout_then_drops_and_counts(
    tmp_path: Path,
) -> None:
    """A FIFO nobody reads is a disk that stopped: writes block once its buffer is full."""
    fifo = tmp_path / "stalled.fifo"
    os.mkfifo(fifo)
    writer = EventWriter(lambda sid: str(fifo), queue_size=8, block_timeout=0.2)
    big = "z" * 4096
    started = time.monotonic()
    for n in range(200):  # ~800 KB: far more than the pipe holds
        writer.put((time.time(), "info", "test:event", "s", json.dumps({"n": n, "pad": big})))
    elapsed = time.monotonic() - started
    stats = writer.stats
    assert stats.dropped > 0
    assert elapsed >= 0.2  # emit waited before the first drop
    assert elapsed < 20  # ... but only once (200 waits would take 40 s): then drops at once
    (reason,) = stats.drop_reasons
    assert "queue full for 0.2s" in reason
    # Unblock the "disk": read the FIFO until the writer has written everything it kept.
    received = bytearray()
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    done = threading.Event()

    def close_writer() -> None:
        writer.close()
        done.set()

    closer = threading.Thread(target=close_writer)
    closer.start()
    try:
        while True:
            try:
                chunk = os.read(reader, 1 << 16)
            except BlockingIOError:
                chunk = b""
            received += chunk
            if not chunk:
                if done.is_set():
                    break
                time.sleep(0.005)
    finally:
        closer.join(10)
        os.close(reader)
    lines = bytes(received).decode().splitlines()
    body = [json.loads(line) for line in lines]
    kept = [r for r in body if r["event"] == "test:event"]
    assert len(kept) + stats.dropped == 200
    assert body[-1]["event"] == DROPPED_EVENT
    assert body[-1]["data"]["dropped"] == stats.dropped
