"""A bundle's ``source:`` read as pip reads a requirement."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_core.module_sources import parse_source, split_git_url


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "git+https://github.com/org/repo@v1.2#subdirectory=modules/hooks-x",
            ("https://github.com/org/repo", "v1.2", "modules/hooks-x"),
        ),
        ("git+https://github.com/org/repo", ("https://github.com/org/repo", None, None)),
        (
            "git+ssh://git@host.example/org/repo.git@feature/x#egg=x&subdirectory=m/",
            ("ssh://git@host.example/org/repo.git", "feature/x", "m"),
        ),
        ("git+file:///srv/repo@abc123", ("file:///srv/repo", "abc123", None)),
        ("git+git@host.example:org/repo@main", ("git@host.example:org/repo", "main", None)),
    ],
)
def test_git_urls_split_into_url_ref_and_subdirectory(
    text: str, expected: tuple[str, str | None, str | None]
) -> None:
    assert split_git_url(text) == expected
    ref = parse_source(text)
    assert (ref.kind, ref.url, ref.ref, ref.subdirectory) == ("git", *expected)
    assert ref.pip_requirement() == text
    assert ref.installable


def test_paths_resolve_against_the_bundle_directory(tmp_path: Path) -> None:
    ref = parse_source("./modules/hooks-x", tmp_path)
    assert ref.kind == "path"
    assert ref.path == (tmp_path / "modules" / "hooks-x").resolve()
    assert ref.pip_requirement() == str(ref.path)
    assert parse_source(f"file://{tmp_path}").path == tmp_path.resolve()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("my_package.hooks:mount", "reference"),
        ("https://example.invalid/x.zip", "remote"),
        ("hg+https://example.invalid/repo", "remote"),
    ],
)
def test_references_and_other_urls_are_not_installable(text: str, kind: str) -> None:
    ref = parse_source(text)
    assert ref.kind == kind
    assert not ref.installable
