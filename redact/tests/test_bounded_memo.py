"""Bounded pattern sources kept on disk: a process that finds them stored bounds nothing, and
the rules it builds are those a process without the disk cache builds.

Each process here is a real interpreter importing the rules with its own cache folder; what
it bounds itself is counted by profiling calls of :func:`amplifier_hooks_redact.bounded.bounded`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact.bounded import bounded
from amplifier_hooks_redact.bounded_memo import BoundedMemo
from amplifier_hooks_redact.diskcache import CACHE_ENV, write_cached

_PROBE = """
import json, sys
calls = []

def count(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_name == "bounded" and code.co_filename.endswith("bounded.py"):
        calls.append(1)

sys.setprofile(count)
from amplifier_hooks_redact import BUILTIN_RULES
sys.setprofile(None)
sources = [
    [rule.name, [[p.pattern, p.flags] for p in (*rule.patterns, *rule.ignorecase)]]
    for rule in BUILTIN_RULES
]
print(json.dumps({"bounded": len(calls), "sources": sources}))
"""


def _import_rules(cache: str) -> tuple[int, list[object]]:
    """How many sources a fresh process bounded itself, and its rules' pattern sources."""
    env = {**os.environ, CACHE_ENV: cache}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["bounded"], found["sources"]


def _stored(cache: Path) -> list[Path]:
    return sorted((cache / "bounded").glob("*.json"))


def test_a_second_process_reads_the_bounded_sources_and_builds_the_same_rules(
    tmp_path: Path,
) -> None:
    bounded_without, reference = _import_rules("")  # no disk cache
    assert bounded_without > 100
    first_count, first = _import_rules(str(tmp_path))
    assert first_count == bounded_without
    assert len(_stored(tmp_path)) == 1
    second_count, second = _import_rules(str(tmp_path))
    assert second_count == 0
    assert first == reference
    assert second == reference


def test_an_altered_file_is_passed_over_and_bounded_again(tmp_path: Path) -> None:
    _import_rules(str(tmp_path))
    (stored,) = _stored(tmp_path)
    content = bytearray(stored.read_bytes())
    at = content.index(b"{0,4096}")
    content[at : at + 8] = b"{0,9999}"  # a repeat unbounded further than the code bounds it
    stored.write_bytes(bytes(content))
    count, sources = _import_rules(str(tmp_path))
    _, reference = _import_rules("")
    assert count > 100
    assert sources == reference


@pytest.mark.parametrize("payload", ["[]", '{"4096,512,0,a*": 7}', "not json"])
def test_a_stored_file_of_another_shape_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: str
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    memo = BoundedMemo()
    memo.bounded("a*", 4096, 512)
    memo.store()
    (stored,) = _stored(tmp_path)
    write_cached("bounded", stored.stem, ".json", payload.encode())
    assert BoundedMemo().bounded("a*", 4096, 512) == "a{0,4096}"


_PIECES = st.sampled_from(
    ["a", "\\", "\\d", "[", "]", "[^]x]", "(", "(?:", "(?#c)", ")", "?", "*", "+", "{", "}",
     "{2,}", "{,3}", "{1,2}", "|", " ", "#", "\n", "x"]
)  # fmt: skip


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    requests=st.lists(
        st.tuples(
            st.lists(_PIECES, max_size=12).map("".join),
            st.sampled_from([4096, 64]),
            st.sampled_from([512, 8]),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_memo_answers_what_bounding_answers_before_and_after_it_is_stored(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    requests: list[tuple[str, int, int, bool]],
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / str(len(list(tmp_path.iterdir())))))
    expected = [bounded(s, r, g, verbose=v) for s, r, g, v in requests]
    first = BoundedMemo()
    assert [first.bounded(s, r, g, verbose=v) for s, r, g, v in requests] == expected
    first.store()
    again = BoundedMemo()
    assert [again.bounded(s, r, g, verbose=v) for s, r, g, v in requests] == expected


@settings(max_examples=300)
@given(source=st.lists(_PIECES, max_size=16).map("".join), verbose=st.booleans())
def test_bounding_answers_every_source_even_one_re_would_refuse(source: str, verbose: bool) -> None:
    assert isinstance(bounded(source, 64, 8, verbose=verbose), str)


@pytest.mark.parametrize("source", ["(?#", "a*(?#open", "(?#a*"])
def test_an_unterminated_comment_is_kept_to_the_end(source: str) -> None:
    head, _, comment = source.partition("(?#")
    assert bounded(source, 64, 8) == bounded(head, 64, 8) + "(?#" + comment
