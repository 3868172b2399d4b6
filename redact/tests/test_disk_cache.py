"""Hyperscan databases kept on disk: used only when they are exactly what was stored for the
same expressions, and deciding what a fresh compile decides."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor, scanner
from amplifier_hooks_redact.build import clear_engines as _clear_engines
from amplifier_hooks_redact.diskcache import CACHE_ENV, cache_dir, cache_key, cached_database
from amplifier_hooks_redact.triggers import literal_triggers, triggers_of

hyperscan = pytest.importorskip("hyperscan")

_TEXTS = [
    "token ghp_" + "a1B2" * 9 + " and AKIA" + "Q" * 16,
    "password = 'hunter2-Long-Secret-99'",
    "mail bob@example.com or call +44 20 7946 0958",
    "nothing to see here",
    "Authorization: Bearer sk-ant-api03-" + "x9" * 40,
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    clear_engines()
    yield tmp_path / "hyperscan"
    clear_engines()


def clear_engines() -> None:
    """Forget every engine and every compiled part, so the next one is built (from the disk
    cache or by compiling)."""
    _clear_engines()
    with scanner._COMPILED_LOCK:
        scanner._COMPILED_BY_INPUT.clear()


def _decisions() -> list[object]:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    return [redactor.redact({"text": text}) for text in _TEXTS]


def _fresh_decisions(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    monkeypatch.setenv(CACHE_ENV, "")  # no disk cache: compiled here
    clear_engines()
    try:
        return _decisions()
    finally:
        clear_engines()


def test_files_are_private_and_loaded_by_the_next_engine(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _decisions()
    files = sorted(cache.glob("*.hsdb"))
    assert files
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    stamps = {f: f.stat().st_mtime_ns for f in files}
    clear_engines()
    assert _decisions() == first  # loaded, not written again
    assert {f: f.stat().st_mtime_ns for f in files} == stamps
    assert first == _fresh_decisions(monkeypatch)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other_key"])
def test_a_damaged_file_is_rebuilt_and_decides_as_a_fresh_compile(
    cache: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    _decisions()
    files = sorted([*cache.glob("*.hsdb"), *(cache.parent / "triggers").glob("*.json")])
    assert len(files) >= 3  # a database, the triggers of each haystack
    for number, path in enumerate(files):
        data = path.read_bytes()
        if damage == "truncate":
            data = data[: len(data) // 2]
        elif damage == "flip":
            data = data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:]
        elif damage == "garbage":
            data = os.urandom(len(data))
        elif damage == "empty":
            data = b""
        else:  # another key's (valid) file under this key's name
            data = files[(number + 1) % len(files)].read_bytes() if len(files) > 1 else b"x"
        path.write_bytes(data)
    clear_engines()
    damaged = _decisions()
    assert damaged == _fresh_decisions(monkeypatch)
    for path in files:  # written anew, whole: the next process loads it
        assert path.read_bytes().startswith(b"amplifier-hooks cache 1\n")
    clear_engines()
    assert _decisions() == damaged


def test_a_file_others_may_write_is_not_trusted(cache: Path) -> None:
    calls: list[int] = []

    def compile_once() -> object:
        calls.append(1)
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(expressions=[b"abc"], ids=[0], elements=1, flags=[0])
        return db

    args = ([b"abc"], [0], [0], hyperscan.HS_MODE_BLOCK)
    cached_database(*args, compile_once)
    cached_database(*args, compile_once)
    assert len(calls) == 1  # the second was loaded
    (path,) = cache.glob("*.hsdb")
    path.chmod(0o666)
    cached_database(*args, compile_once)
    assert len(calls) == 2
    cache.chmod(0o777)
    cached_database(*args, compile_once)
    assert len(calls) == 3


def _compile_ids(expressions: list[bytes]) -> object:
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=expressions,
        ids=list(range(len(expressions))),
        elements=len(expressions),
        flags=[0] * len(expressions),
    )
    return db


def _matches(db: object, text: bytes) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []

    def report(word: int, _s: int, end: int, _f: int, _c: object) -> None:
        found.append((word, end))

    scratch = hyperscan.Scratch(db)
    db.scan(text, match_event_handler=report, scratch=scratch)  # type: ignore[attr-defined]
    return sorted(found)


_WORD = st.text(alphabet="abc", min_size=1, max_size=4).map(str.encode)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.lists(_WORD, min_size=1, max_size=4), second=st.lists(_WORD, min_size=1, max_size=4)
)
def test_a_pattern_set_never_loads_another_sets_database(
    cache: Path, first: list[bytes], second: list[bytes]
) -> None:
    mode = hyperscan.HS_MODE_BLOCK
    for expressions in (first, second, first, second):
        db = cached_database(
            expressions,
            [0] * len(expressions),
            list(range(len(expressions))),
            mode,
            lambda e=expressions: _compile_ids(e),
        )
        text = b"abcabcaabbcc cba"
        assert _matches(db, text) == _matches(_compile_ids(expressions), text)
    same = first == second
    assert (
        cache_key(first, [0] * len(first), list(range(len(first))), mode)
        == cache_key(second, [0] * len(second), list(range(len(second))), mode)
    ) == same


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "")
    assert cache_dir() is None
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert cache_dir() == Path("/somewhere/amplifier-hooks/hyperscan")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "amplifier-hooks" / "hyperscan"


_SOURCE = st.sampled_from(
    ["ghp_[a-z]+", "token=", "abc|abd", "[0-9]+x", "secret_(?:a|b)c", "xox[bp]-", "(?i)key="]
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.lists(_SOURCE, min_size=1, max_size=4),
    second=st.lists(_SOURCE, min_size=1, max_size=4),
)
def test_stored_triggers_are_those_of_the_same_patterns(
    cache: Path, first: list[str], second: list[str]
) -> None:
    for sources in (first, second, first, second):
        patterns = [re.compile(source) for source in sources]
        assert triggers_of(patterns) == [literal_triggers(p) for p in patterns]
