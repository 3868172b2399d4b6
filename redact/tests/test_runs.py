"""Leading runs: what they are read as, that a pattern matches only where its run occurs, and
that a long text is redacted alike whether its untriggered patterns are tried where their runs
occur or searched through it (the engine as it was)."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor, scanner, triggers
from amplifier_hooks_redact.runs import MIN_RUN, RunFinder, run_shape

from .corpus import ordinary, secrets

_ALNUM = frozenset(string.ascii_letters + string.digits)


@pytest.mark.parametrize(
    ("source", "before", "run"),
    [
        # A shaped token: "-", then 32 letters or digits; the look-behind reads back past
        # the "-", so it is left out.
        (r"-(?<=[a-z0-9]-)[A-Za-z0-9]{32,256}+(?![A-Za-z0-9_-])", None, [{"-"}] + [_ALNUM] * 32),
        # A leading negative look-behind of one character: what may stand before the run.
        (
            r"(?<![A-Za-z0-9_+/.\\-])[A-Za-z0-9]{24,256}+",
            set(map(chr, range(128))) - _ALNUM - set("_+/.\\-"),
            [_ALNUM] * 24,
        ),
        # A look-ahead's run is read where it stands, and ends the run.
        (r"\.(?=[a-z]{8})[a-z]", None, [{"."}] + [set(string.ascii_lowercase)] * 8),
        (r"(?:ab)[0-9]{6}x", None, [{"a"}, {"b"}] + [set(string.digits)] * 6 + [{"x"}]),
    ],
)
def test_runs_are_read_off_the_pattern(
    source: str, before: set[str] | None, run: list[set[str]]
) -> None:
    shape = run_shape(re.compile(source))
    assert shape is not None
    assert shape.before == (None if before is None else frozenset(before))
    assert [set(step) for step in shape.run] == run


@pytest.mark.parametrize(
    "source",
    [
        "[0-9]{4}",  # shorter than MIN_RUN
        "(?:ab|cd)[a-z]{20}",  # a branch first
        "x[a-z]{3,}[0-9]{10}",  # four fixed characters, then a repeat of any length
        "(?i)-[a-z]{20}",  # case-insensitive
        "[a-z]{4}[a-m]{10}",  # classes that overlap: only the first four can be told apart
        "\u00e9[a-z]{20}",  # a character no ASCII text holds
    ],
)
def test_patterns_without_a_usable_run_are_searched(source: str) -> None:
    assert run_shape(re.compile(source)) is None


_ATOMS = st.sampled_from(
    ["a", "b", "-", "_", ".", "1", " ", "[a-z]", "[0-9]", "[ab]", "[^a-z]", r"\d", ".", "[a-z0-9]"]
)
_REPEATS = st.sampled_from(["", "{8}", "{9}", "{3,12}", "{10}+", "+", "*", "?"])
_EXTRAS = st.sampled_from(["", "(?<=[a-z])", "(?![0-9])", r"\b", "(?=[a-z]{3})", "(?=[0-9]{9})"])


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    lead = draw(st.sampled_from(["", "(?<![a-z])", "(?<![0-9_-])", "(?<=[ab])"]))
    items = draw(
        st.lists(st.tuples(_ATOMS, _REPEATS, _EXTRAS).map("".join), min_size=1, max_size=6)
    )
    grouped = draw(st.booleans())
    body = "".join(items)
    return lead + (f"(?:{body})" if grouped else body)


@settings(max_examples=400, deadline=None)
@given(
    _patterns(),
    st.lists(st.text(alphabet="ab-_.1 Zz9\n", max_size=30), max_size=12).map("".join),
)
def test_a_pattern_matches_only_where_its_run_occurs(source: str, text: str) -> None:
    """The mechanism: every position at which the pattern matches is a candidate."""
    pattern = re.compile(source)
    shape = run_shape(pattern)
    if shape is None:
        return
    assert len(shape.run) >= MIN_RUN
    starts = set(RunFinder({7: shape}).starts(text.encode("ascii"))[7])
    matched = {at for at in range(len(text) + 1) if pattern.match(text, at) is not None}
    assert matched <= starts


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_patterns(), min_size=2, max_size=4),
    st.lists(st.text(alphabet="ab-_.1 Zz9\n", max_size=30), max_size=12).map("".join),
)
def test_patterns_that_share_a_translation_match_only_where_their_runs_occur(
    sources: list[str], text: str
) -> None:
    """The mechanism with several shapes in one finder, whose classes may overlap: a shape
    looked for in another's translation (its classes coarsened) still finds every start."""
    patterns = [re.compile(source) for source in sources]
    shapes = {key: run_shape(pattern) for key, pattern in enumerate(patterns)}
    finder = RunFinder({key: shape for key, shape in shapes.items() if shape is not None})
    found = finder.starts(text.encode("ascii"))
    for key, pattern in enumerate(patterns):
        if shapes[key] is None:
            continue
        matched = {at for at in range(len(text) + 1) if pattern.match(text, at) is not None}
        assert matched <= set(found[key])


def test_runs_that_share_their_classes_share_one_translation() -> None:
    dash = run_shape(re.compile(r"-[A-Za-z0-9]{32}"))
    lone = run_shape(re.compile(r"(?<![A-Za-z0-9_+/.\\-])[A-Za-z0-9]{24}"))
    digits = run_shape(re.compile(r"[a-f0-9]{40}"))  # overlaps the letters and digits
    assert dash is not None
    assert lone is not None
    assert digits is not None
    finder = RunFinder({1: dash, 2: lone, 3: digits})
    # The digits' class lies within the letters and digits: looked for there, coarser.
    assert len(finder._groups) == 1
    text = "id: " + "a1B2" * 10 + " x-" + "Q9" * 16 + " " + "0f" * 20
    found = finder.starts(text.encode("ascii"))
    assert found[1] == [text.index("x-") + 1]
    assert found[2] == [4, text.rindex(" ") + 1]  # the "-" run is glued to "x"
    # Every run of 40 letters or digits is a candidate; "a1B2..." is then tried and fails.
    assert text.rindex(" ") + 1 in found[3]
    assert 4 in found[3]


def test_runs_whose_classes_split_each_other_keep_translations_of_their_own() -> None:
    lower = run_shape(re.compile(r"[a-m]{10}"))
    upper = run_shape(re.compile(r"[h-z]{10}"))  # neither holds the other's class
    assert lower is not None
    assert upper is not None
    finder = RunFinder({1: lower, 2: upper})
    assert len(finder._groups) == 2
    text = "abcdefghijklm nopqrstuvwxyz"
    found = finder.starts(text.encode("ascii"))
    assert found[1] == [0, 1, 2, 3]
    assert found[2] == [14, 15, 16, 17]


_ENGINE = build_redactor(RedactionConfig(rules=("all",))).text
_SAMPLES = [text for _, text, _ in secrets()] + [text for _, text in ordinary()]
_HEX = "0123456789abcdef"


def _log_line(rng: random.Random) -> str:
    """A dense log line: timestamps, ids, digests, epoch milliseconds, a URL."""
    digest = "".join(rng.choice(_HEX) for _ in range(64))
    ident = "-".join("".join(rng.choice(_HEX) for _ in range(n)) for n in (8, 4, 4, 4, 12))
    return (
        f'{{"ts": "2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T10:{rng.randint(10, 59)}:00",'
        f' "id": "{ident}", "sha": "{digest}", "ms": {rng.randint(16 * 10**11, 18 * 10**11)},'
        f' "url": "https://api.example.com/v2/runs/{rng.randint(1, 10**9)}"}}'
    )


def _token(rng: random.Random) -> str:
    """Token-shaped text: vendor tokens, shaped tokens, random runs, their near misses."""
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    return rng.choice(
        [
            f"ghp_{body[:36]}",
            f"sk-proj-{body}",
            f"xoxb-{body[:12]}-{body[12:36]}",
            f"acme_{body}",
            f"tool-{body[:33]}",
            f" {body[: rng.randint(20, 40)]} ",
            f"=={body[:30]}",
            f"x{body}",
            f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
            f"4{''.join(rng.choice(string.digits) for _ in range(15))}",
            f"password={body[:15]}9",
            f"{body[:7].lower()}@example.com",
            "é",
        ]
    )


@st.composite
def _long_texts(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32)))
    weights = draw(st.tuples(*[st.integers(0, 4)] * 3))
    makers = [
        lambda: rng.choice(_SAMPLES),
        lambda: _log_line(rng),
        lambda: _token(rng),
    ]
    chosen = [maker for maker, weight in zip(makers, weights, strict=True) for _ in range(weight)]
    if not chosen:
        chosen = makers
    separator = draw(st.sampled_from(["\n", " ", "", ", ", "\n\n"]))
    ascii_only = draw(st.booleans())  # only ASCII text is tried at runs: both must agree
    parts: list[str] = []
    size = 0
    target = draw(st.integers(scanner._RUNS_FROM, 3 * scanner._RUNS_FROM))
    while size - len(separator) < target:  # the last part has no separator after it
        part = rng.choice(chosen)()
        parts.append(part.encode("ascii", "ignore").decode() if ascii_only else part)
        size += len(parts[-1]) + len(separator)
    return separator.join(parts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_long_texts())
def test_long_texts_are_redacted_as_by_searching(text: str) -> None:
    """The differential: the engine with runs against the engine that searches each
    untriggered pattern through the text and tries the others at their Hyperscan shapes."""
    assert len(text) >= scanner._RUNS_FROM
    found = _ENGINE.copy().redact(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scanner, "_RUNS_FROM", len(text) + 1)
        searched = _ENGINE.copy().redact(text)
    assert found == searched


def test_the_benchmark_mix_is_redacted_as_by_searching() -> None:
    rng = random.Random("runs")
    text = "\n".join(
        rng.choice([_log_line, _token, lambda r: r.choice(_SAMPLES)])(rng) for _ in range(4000)
    )
    text = text.encode("ascii", "ignore").decode()
    found = _ENGINE.copy().redact(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scanner, "_RUNS_FROM", len(text) + 1)
        searched = _ENGINE.copy().redact(text)
    assert found is not None
    assert found == searched
    assert found[1].get("random_token") or found[1].get("shaped_token")


def test_without_hyperscan_long_texts_are_redacted_as_by_searching() -> None:
    """Where Hyperscan is not installed the triggers come from the automata and no pattern
    has shapes: the runs serve there too, and agree with the search."""
    rules = _ENGINE.rules
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(triggers, "_hyperscan", None)
        # A replacement of its own: this engine is not shared with the other tests.
        engine = scanner.TextRedactor(rules, replacement="[plain:{rule}]")
    assert engine._joint.positions("ascii") is None
    rng = random.Random("no-hyperscan")
    text = (
        "\n".join(
            rng.choice([_log_line, _token, lambda r: r.choice(_SAMPLES)])(rng) for _ in range(1500)
        )
        .encode("ascii", "ignore")
        .decode()
    )
    found = engine.copy().redact(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scanner, "_RUNS_FROM", len(text) + 1)
        searched = engine.copy().redact(text)
    assert found is not None
    assert found == searched
