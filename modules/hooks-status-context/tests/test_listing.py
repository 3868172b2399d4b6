"""The pure parts: path patterns, git's porcelain output, the capped listing, the size cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_module_hooks_status_context import (
    CLOSE_TAG,
    OPEN_TAG,
    Environment,
    GitFacts,
    PathMatcher,
    RepoLayout,
    StatusEntry,
    StatusPolicy,
    main_branch,
    parse_config,
    parse_status,
    render_block,
)


@pytest.mark.parametrize(
    ("pattern", "path", "label"),
    [
        ("node_modules", "node_modules/", "node_modules"),
        ("node_modules", "web/node_modules/react/index.js", "node_modules"),
        ("node_modules/**", "node_modules/x.js", "node_modules"),
        ("dist/", "dist/app.js", "dist"),
        ("*.pyc", "pkg/__init__.pyc", "*.pyc"),
        ("*.egg-info", "src/thing.egg-info/", "*.egg-info"),
        ("docs/build", "docs/build/index.html", "docs/build"),
        ("docs/build", "docs/build", "docs/build"),
        ("docs/*.pdf", "docs/manual.pdf", "docs/*.pdf"),
        ("generated/*", "generated/a/b.py", "generated/*"),
    ],
)
def test_patterns_that_match(pattern: str, path: str, label: str) -> None:
    assert PathMatcher([pattern]).match(path) == label


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("node_modules", "src/node_modules_helper.py"),
        ("build", "src/builder.py"),
        ("docs/build", "docs/buildings/x"),
        ("docs/build", "other/docs/build/x"),
        ("*.lock", "src/lockfile.py"),
        ("Vendor", "vendor/x"),
    ],
)
def test_patterns_that_do_not_match(pattern: str, path: str) -> None:
    assert PathMatcher([pattern]).match(path) is None


def test_empty_matcher_is_false_and_matches_nothing() -> None:
    matcher = PathMatcher(["", "/", "  "])
    assert not matcher
    assert matcher.match("anything") is None


def test_porcelain_v2_with_every_kind_of_record() -> None:
    raw = "\0".join(
        [
            "# branch.oid 1234567890abcdef1234567890abcdef12345678",
            "# branch.head feature/login",
            "# branch.upstream origin/feature/login",
            "# branch.ab +2 -1",
            "1 M. N... 100644 100644 100644 aaaa bbbb src/staged.py",
            "1 .M N... 100644 100644 100644 aaaa aaaa src/with space.py",
            "2 R. N... 100644 100644 100644 aaaa aaaa R100 src/new name.py",
            "src/old name.py",
            "u UU N... 100644 100644 100644 100644 a b c conflict.txt",
            "? notes.txt",
            "! ignored.log",
            "",
        ]
    )
    branch, entries = parse_status(raw)
    assert branch.head == "feature/login"
    assert branch.oid is not None
    assert branch.oid.startswith("1234567")
    assert (branch.upstream, branch.ahead, branch.behind) == ("origin/feature/login", 2, 1)
    assert [entry.short() for entry in entries] == [
        "M  src/staged.py",
        " M src/with space.py",
        "R  src/old name.py -> src/new name.py",
        "UU conflict.txt",
        "?? notes.txt",
    ]
    assert [entry.untracked for entry in entries] == [False, False, False, False, True]


def test_porcelain_initial_and_detached() -> None:
    initial, _ = parse_status("# branch.oid (initial)\0# branch.head main\0")
    assert (initial.head, initial.oid) == ("main", None)
    detached, _ = parse_status("# branch.oid abcdef\0# branch.head (detached)\0")
    assert (detached.head, detached.oid) == (None, "abcdef")


@pytest.mark.parametrize(
    ("refs", "expected"),
    [
        ("refs/heads/master \nrefs/remotes/origin/HEAD refs/remotes/origin/develop\n", "develop"),
        ("refs/heads/master \nrefs/heads/main \n", "main"),
        ("refs/heads/trunk \nrefs/heads/master \n", "master"),
        ("refs/heads/trunk \n", "trunk"),
        ("refs/remotes/origin/master \n", "master"),
        ("refs/remotes/origin/HEAD \n", None),
        ("", None),
    ],
)
def test_main_branch_preference(refs: str, expected: str | None) -> None:
    assert main_branch(refs) == expected


def entries(count: int, code: str = " M", folder: str = "src") -> list[StatusEntry]:
    return [StatusEntry(code, f"{folder}/file{n:04d}.py") for n in range(count)]


def texts(policy: StatusPolicy, items: list[StatusEntry]) -> list[str]:
    return [line.text for line in policy.listing(items).lines]


def test_listing_groups_caps_and_hides() -> None:
    policy = StatusPolicy(
        parse_config(
            {
                "git_status_max_tracked": 2,
                "git_status_max_untracked": 1,
                "git_status_tier2_limit": 1,
                "git_status_max_lines": 50,
            }
        )
    )
    items = [
        *entries(3),
        *entries(2, "??", "new"),
        StatusEntry("??", "node_modules/"),
        StatusEntry(" M", "vendor/lib/a.go"),
        StatusEntry(" M", "poetry.lock"),
        StatusEntry("??", "debug.log"),
    ]
    assert texts(policy, items) == [
        " M src/file0000.py",
        " M src/file0001.py",
        "... and 1 more changed files",
        "?? new/file0000.py",
        "... and 1 more untracked files",
        " M poetry.lock",
        "... and 1 more lock, log and editor files",
        "(2 entries in vendored or build folders not shown: node_modules, vendor; "
        "1 of them tracked by git)",
    ]
    listing = policy.listing(items)
    assert (listing.total, listing.hidden, listing.clean) == (9, 2, False)


def test_hard_line_cap_counts_every_entry_it_cuts() -> None:
    policy = StatusPolicy(
        parse_config(
            {
                "git_status_max_tracked": 100,
                "git_status_max_untracked": 100,
                "git_status_max_lines": 5,
            }
        )
    )
    lines = texts(policy, [*entries(30), *entries(20, "??", "new")])
    assert len(lines) == 5
    assert lines[-1] == "... and 46 more entries"


def test_long_and_odd_paths_are_clipped_to_one_line() -> None:
    policy = StatusPolicy(parse_config({}))
    long_name = "a" * 500 + ".py"
    (line,) = texts(policy, [StatusEntry("??", long_name)])
    assert len(line) <= 240
    assert "..." in line
    (odd,) = texts(policy, [StatusEntry("??", "two\nlines.txt")])
    assert odd == "?? two\\nlines.txt"


def test_render_never_exceeds_max_bytes() -> None:
    config = parse_config({"git_status_max_lines": 40, "git_status_max_tracked": 40})
    listing = StatusPolicy(config).listing(
        [StatusEntry(" M", "ü/" + "ä" * 200 + f"{n}.py") for n in range(40)]
    )
    facts = GitFacts(
        "repo",
        layout=RepoLayout(Path("/r"), Path("/r/.git"), Path("/r/.git")),
        status=listing,
        commits=tuple(f"abc{n:04d} " + "subject " * 14 for n in range(5)),
    )
    env = Environment("/r", platform="Linux")
    full = render_block(env, "2025-01-02", facts, config, 1_000_000)
    assert len(full.encode()) > 8192
    for limit in (8192, 2000, 512):
        text = render_block(env, "2025-01-02", facts, config, limit)
        assert len(text.encode("utf-8")) <= limit
        assert text.startswith(OPEN_TAG)
        assert text.endswith(CLOSE_TAG)
    shortened = render_block(env, "2025-01-02", facts, config, 8192)
    assert "more entries" in shortened
