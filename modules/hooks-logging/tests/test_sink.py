"""The file sink: whole lines, tail repair after a killed writer, size-based rotation."""

from __future__ import annotations

import json
import os
from pathlib import Path

from amplifier_module_hooks_logging.sink import CHUNK_BYTES, FileSink


def lines(count: int, start: int = 0, width: int = 40) -> bytes:
    rows = ({"n": i, "pad": "x" * width} for i in range(start, start + count))
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def numbers(path: Path) -> list[int]:
    text = path.read_text()
    assert text == "" or text.endswith("\n")
    return [json.loads(line)["n"] for line in text.splitlines()]


def test_creates_directories_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "events.jsonl"
    sink = FileSink(str(path))
    sink.write(lines(3))
    sink.write(lines(2, start=3))
    sink.close()
    assert numbers(path) == [0, 1, 2, 3, 4]
    assert (path.stat().st_mode & 0o777) == 0o600


def test_unfinished_tail_of_a_killed_writer_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(lines(2) + b'{"n": 2, "pad": "xx')  # a writer died mid-line
    sink = FileSink(str(path))
    sink.write(lines(1, start=3))
    sink.close()
    assert numbers(path) == [0, 1, 3]


def test_unfinished_tail_without_any_newline(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"n": 0, "pa')
    sink = FileSink(str(path))
    sink.write(lines(1, start=1))
    sink.close()
    assert numbers(path) == [1]


def test_another_writer_leaving_a_tail_is_repaired_on_the_next_batch(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    sink = FileSink(str(path))
    sink.write(lines(2))
    with path.open("ab") as other:  # a second process that died mid-write
        other.write(lines(1, start=2) + b'{"n": 3, "pad"')
    sink.write(lines(1, start=4))
    sink.close()
    assert numbers(path) == [0, 1, 2, 4]


def test_large_payloads_are_written_in_whole_line_pieces(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    payload = lines(20_000, width=60)
    assert len(payload) > 3 * CHUNK_BYTES
    big_line = json.dumps({"n": 20_000, "pad": "y" * (CHUNK_BYTES * 2)}).encode() + b"\n"
    sink = FileSink(str(path))
    sink.write(payload + big_line + lines(1, start=20_001))
    sink.close()
    assert numbers(path) == list(range(20_002))


def test_rotation_keeps_every_file_under_max_bytes(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    sink = FileSink(str(path), max_bytes=1000, backups=3)
    for start in range(0, 60, 6):
        sink.write(lines(6, start=start))
    sink.close()
    files = [path, *(Path(f"{path}.{i}") for i in (1, 2, 3))]
    assert all(f.exists() for f in files)
    assert not Path(f"{path}.4").exists()
    for f in files:
        assert 0 < f.stat().st_size <= 1000
    # Newest records are in events.jsonl, older ones in .1, .2, .3; nothing torn or reordered.
    kept = [n for f in reversed(files) for n in numbers(f)]
    assert kept == list(range(60 - len(kept), 60))


def test_rotation_with_no_backups_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    sink = FileSink(str(path), max_bytes=500, backups=0)
    for start in range(0, 30, 3):
        sink.write(lines(3, start=start))
    sink.close()
    assert not Path(f"{path}.1").exists()
    assert path.stat().st_size <= 500
    kept = numbers(path)
    assert kept == list(range(30 - len(kept), 30))


def test_a_line_longer_than_max_bytes_is_written_alone(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    sink = FileSink(str(path), max_bytes=200, backups=2)
    sink.write(lines(1, start=0))
    sink.write(lines(1, start=1, width=500))
    sink.write(lines(1, start=2))
    sink.close()
    assert numbers(path) == [2]
    assert numbers(Path(f"{path}.1")) == [1]
    assert numbers(Path(f"{path}.2")) == [0]


def test_two_sinks_on_one_file_follow_each_others_rotation(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    first = FileSink(str(path), max_bytes=800, backups=10)
    second = FileSink(str(path), max_bytes=800, backups=10)
    for start in range(0, 80, 4):
        (first if start % 8 == 0 else second).write(lines(4, start=start))
    first.close()
    second.close()
    files = [path, *tmp_path.glob("events.jsonl.*")]
    assert len(files) > 2
    everything: list[int] = []
    for f in files:
        assert f.stat().st_size <= 800
        everything.extend(numbers(f))
    assert sorted(everything) == list(range(80))


def test_reopens_after_the_file_is_removed(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    sink = FileSink(str(path))
    sink.write(lines(1))
    os.remove(path)
    sink.write(lines(1, start=1))
    sink.close()
    assert numbers(path) == [1]
