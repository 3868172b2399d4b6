"""The state directory: ``$AMPLIFIER_HOME`` (else ``~/.amplifier``), one directory per project
and session, and path templates rendered into it."""

from __future__ import annotations

from pathlib import Path

import pytest
from amplifier_hooks_util.state import (
    check_template,
    project_slug,
    render_template,
    safe_session_id,
    session_dir,
    state_home,
)


def test_the_state_home_is_amplifier_home_else_dot_amplifier(tmp_path: Path) -> None:
    assert state_home({"AMPLIFIER_HOME": str(tmp_path / "s")}) == tmp_path / "s"
    assert state_home({}) == Path("~/.amplifier").expanduser().resolve()
    assert state_home({"AMPLIFIER_HOME": ""}) == Path("~/.amplifier").expanduser().resolve()


def test_one_directory_per_project_and_session(tmp_path: Path) -> None:
    env = {"AMPLIFIER_HOME": str(tmp_path / "s")}
    project = tmp_path / "work" / "app"
    found = session_dir("abc", working_dir=project, environ=env)
    assert found == tmp_path / "s" / "projects" / project_slug(project) / "sessions" / "abc"
    assert project_slug("/work/app") == "-work-app"
    assert safe_session_id("../../etc") == ".._.._etc"
    assert safe_session_id("..") == "_"


def test_templates_fill_every_placeholder_and_start_relative_paths_at_the_workspace(
    tmp_path: Path,
) -> None:
    env = {"AMPLIFIER_HOME": str(tmp_path / "s")}
    work = tmp_path / "w"
    home = tmp_path / "s"
    slug = project_slug(work)
    render = lambda t: render_template(t, "s/1", working_dir=work, environ=env)  # noqa: E731
    assert render("{session_dir}/events.jsonl") == (
        home / "projects" / slug / "sessions" / "s_1" / "events.jsonl"
    )
    assert render("{state}/all.jsonl") == home / "all.jsonl"
    assert render("logs/{project}/{session_id}.jsonl") == work / "logs" / slug / "s_1.jsonl"
    assert render("{home}/x") == Path.home() / "x"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("", "must be a non-empty path template"),
        ("a/{", "is not a valid path template"),
        ("{user}/x", "uses unknown placeholder {user}; allowed: {home}, {project}, {session_dir}"),
        ("{}/x", "uses unknown placeholder {}"),
        ("{session_id!r}", "placeholder {session_id} must not carry a format spec"),
    ],
)
def test_bad_templates_say_what_is_wrong(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        check_template(template)
    assert check_template("{session_dir}/a.jsonl") == "{session_dir}/a.jsonl"


def test_a_relative_working_dir_is_resolved_from_the_current_directory_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        assert project_slug(".") == project_slug(tmp_path / name)
        assert project_slug() == project_slug(tmp_path / name)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "one")
    assert project_slug(link) == project_slug(tmp_path / "one")  # symlinks are followed
