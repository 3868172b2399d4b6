"""Git under :func:`git_environment` never runs a program the project's git configuration names.

Differential and by execution: each case builds a real repository in ``tmp_path``, puts a key
that names a program (one that writes a marker file) into the project's configuration (the
repository's config, a tracked file it includes through ``include.path`` or ``includeIf``),
runs the git command that starts that program, and checks that the marker IS written with the
plain environment (the route is real) and is NOT with :func:`git_environment`'s. Hypothesis
draws the family, the placement, the spelling of the key (case) and the driver's name.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from amplifier_hooks_util.git_config import (
    ALWAYS,
    PINNED,
    git_environment,
    git_environment_async,
    overrides_from_listing,
    program_key,
    with_overrides,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def base_env(home: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "LC_ALL": "C",
    }
    return env


def git(repo: Path, env: dict[str, str], *args: str, stdin: str = "") -> None:
    subprocess.run(
        ["git", *args],
        cwd=repo,
        env=env,
        input=stdin.encode(),
        capture_output=True,
        timeout=30,
        check=False,
    )


@dataclass(frozen=True)
class Family:
    """``key`` (``{d}``: a driver name) set to a program writing the marker; ``prepare`` the
    repository (attributes, files), ``trigger`` the git command that runs it."""

    key: str
    prepare: Callable[[Path, dict[str, str], str], None]
    trigger: Callable[[Path, dict[str, str]], None]
    value: str = "touch {marker}; cat"


def _attributes(what: str) -> Callable[[Path, dict[str, str], str], None]:
    def prepare(repo: Path, env: dict[str, str], driver: str) -> None:
        (repo / ".gitattributes").write_text(f"*.txt {what}={driver}\n")
        git(repo, env, "add", ".gitattributes")
        git(repo, env, "commit", "-qm", "attributes")
        (repo / "a.txt").write_text("two\n")

    return prepare


def _nothing(repo: Path, env: dict[str, str], driver: str) -> None:
    (repo / "a.txt").write_text("two\n")


def _branches(repo: Path, env: dict[str, str], driver: str) -> None:
    (repo / ".gitattributes").write_text(f"*.txt merge={driver}\n")
    git(repo, env, "add", ".gitattributes")
    git(repo, env, "commit", "-qm", "attributes")
    git(repo, env, "checkout", "-qb", "other")
    (repo / "a.txt").write_text("other\n")
    git(repo, env, "commit", "-qam", "other")
    git(repo, env, "checkout", "-q", "-")
    (repo / "a.txt").write_text("mine\n")
    git(repo, env, "commit", "-qam", "mine")


def _upstream(repo: Path, env: dict[str, str], driver: str) -> None:
    git(repo, env, "remote", "add", driver, str(repo))


FAMILIES: dict[str, Family] = {
    "core.fsmonitor": Family(
        "core.fsmonitor", _nothing, lambda r, e: git(r, e, "status"), "touch {marker}; true"
    ),
    "core.hooksPath": Family(
        "core.hooksPath",
        lambda r, e, d: (r / "hooks-dir").mkdir(),
        lambda r, e: git(r, e, "commit", "-q", "--allow-empty", "-m", "x"),
        "hooks-dir",
    ),
    "core.sshCommand": Family(
        "core.sshCommand",
        _nothing,
        lambda r, e: git(r, e, "ls-remote", "ssh://127.0.0.1:1/x"),
        "touch {marker}; false",
    ),
    "core.editor": Family(
        "core.editor",
        _nothing,
        lambda r, e: git(r, e, "commit", "-q", "--allow-empty"),
        "touch {marker}; false",
    ),
    "core.askPass": Family(  # run directly, not by a shell: a program's path
        "core.askPass",
        _nothing,
        lambda r, e: git(
            r,
            {k: v for k, v in e.items() if k != "GIT_TERMINAL_PROMPT"},
            "credential",
            "fill",
            stdin="protocol=https\nhost=h.invalid\n\n",
        ),
        "{script}",
    ),
    "credential.helper": Family(
        "credential.helper",
        _nothing,
        lambda r, e: git(r, e, "credential", "fill", stdin="protocol=https\nhost=h.invalid\n\n"),
        "!touch {marker}; true",
    ),
    "credential.<url>.helper": Family(
        "credential.https://h.invalid.helper",
        _nothing,
        lambda r, e: git(r, e, "credential", "fill", stdin="protocol=https\nhost=h.invalid\n\n"),
        "!touch {marker}; true",
    ),
    "diff.external": Family(
        "diff.external", _nothing, lambda r, e: git(r, e, "diff"), "touch {marker}; true"
    ),
    "diff.<d>.command": Family(
        "diff.{d}.command", _attributes("diff"), lambda r, e: git(r, e, "diff")
    ),
    "diff.<d>.textconv": Family(
        "diff.{d}.textconv", _attributes("diff"), lambda r, e: git(r, e, "diff")
    ),
    "filter.<d>.clean": Family(
        "filter.{d}.clean", _attributes("filter"), lambda r, e: git(r, e, "add", "a.txt")
    ),
    "filter.<d>.smudge": Family(
        "filter.{d}.smudge",
        _attributes("filter"),
        lambda r, e: (r.joinpath("a.txt").unlink(), git(r, e, "checkout", "--", "a.txt")),
    ),
    "filter.<d>.process": Family(
        "filter.{d}.process",
        _attributes("filter"),
        lambda r, e: git(r, e, "add", "a.txt"),
        "touch {marker}; false",
    ),
    "merge.<d>.driver": Family(
        "merge.{d}.driver",
        _branches,
        lambda r, e: git(r, e, "merge", "-q", "other"),
        "touch {marker}; false",
    ),
    "gpg.program": Family(
        "gpg.program",
        _nothing,
        lambda r, e: git(r, e, "commit", "-q", "-S", "--allow-empty", "-m", "x"),
        "{script}",
    ),
    "alias.<d>": Family(
        "alias.{d}", _nothing, lambda r, e: git(r, e, "zz-alias"), "!touch {marker}"
    ),
    "remote.<d>.uploadpack": Family(
        "remote.{d}.uploadpack",
        _upstream,
        lambda r, e: git(r, e, "ls-remote", "up"),
        "touch {marker}; false",
    ),
    "trailer.<d>.command": Family(
        "trailer.{d}.command",
        _nothing,
        lambda r, e: git(r, e, "interpret-trailers", "--trailer", "zz=1", stdin="m\n"),
        "touch {marker}; echo",
    ),
    "tar.<d>.command": Family(
        "tar.{d}.command",
        _nothing,
        lambda r, e: git(r, e, "archive", "--format=zz", "-o", "/dev/null", "HEAD"),
    ),
    "tar.tgz.command": Family(
        "tar.tgz.command",
        _nothing,
        lambda r, e: git(r, e, "archive", "--format=tgz", "-o", "/dev/null", "HEAD"),
    ),
    "protocol.ext.allow": Family(
        "protocol.ext.allow",
        _nothing,
        lambda r, e: git(r, e, "ls-remote", f"ext::sh -c touch% {r.parent / 'marker'}"),
        "always",
    ),
}
# names a family's trigger uses
_FIXED_DRIVER = {
    "alias.<d>": "zz-alias",
    "remote.<d>.uploadpack": "up",
    "trailer.<d>.command": "zz",
    "tar.<d>.command": "zz",
}

PLACEMENTS = ("local", "include.path", "includeIf", "worktree")


def _spell(key: str, upper: list[bool]) -> str:
    """Section and variable names in any case (git reads them case-insensitively); the
    subsection as it is."""
    parts = key.split(".")
    first, last = parts[0], parts[-1]
    first = (
        "".join(c.upper() if u else c for c, u in zip(first, upper, strict=False))
        + first[len(upper) :]
    )
    last = (
        "".join(c.upper() if u else c for c, u in zip(last, reversed(upper), strict=False))
        + (last[len(upper) :])
    )
    return ".".join([first, *parts[1:-1], last]) if len(parts) > 1 else first


def build(tmp: Path, family: Family, placement: str, driver: str, spelled: str) -> Path:
    home = tmp / "home"
    home.mkdir()
    repo = tmp / "repo"
    repo.mkdir()
    env = base_env(home)
    git(repo, env, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("one\n")
    git(repo, env, "add", "a.txt")
    git(repo, env, "commit", "-qm", "one")
    family.prepare(repo, env, driver)
    marker = tmp / "marker"
    script = tmp / "program"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    value = family.value.format(marker=marker, script=script)
    if family.key == "core.hooksPath":
        hook = repo / "hooks-dir" / "pre-commit"
        hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
        hook.chmod(0o755)
    key = spelled
    if placement == "local":
        git(repo, env, "config", key, value)
    elif placement == "worktree":
        git(repo, env, "config", "extensions.worktreeConfig", "true")
        git(repo, env, "config", "--worktree", key, value)
    else:
        tracked = repo / ".gitconfig"
        section, _, name = key.rpartition(".")
        head, _, sub = section.partition(".")
        header = f'[{head} "{sub}"]' if sub else f"[{head}]"
        quoted = value.replace("\\", "\\\\").replace('"', '\\"')
        tracked.write_text(f'{header}\n\t{name} = "{quoted}"\n')
        if placement == "include.path":
            git(repo, env, "config", "include.path", "../.gitconfig")
        else:
            git(repo, env, "config", f"includeIf.gitdir:{repo}/.git.path", "../.gitconfig")
    return repo


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.sampled_from(sorted(FAMILIES)),
    placement=st.sampled_from(PLACEMENTS),
    driver=st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-_", min_size=1, max_size=8
    ),
    upper=st.lists(st.booleans(), max_size=6),
)
def test_no_program_the_project_configures_runs(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    placement: str,
    driver: str,
    upper: list[bool],
) -> None:
    family = FAMILIES[name]
    # git 2.39 reads aliases through its early configuration, which skips config.worktree:
    # there the route does not exist (measured: `git zz` is "not a git command")
    assume(not (name == "alias.<d>" and placement == "worktree"))
    driver = _FIXED_DRIVER.get(name, driver)
    tmp = tmp_path_factory.mktemp("git")
    spelled = _spell(family.key.format(d=driver), upper)
    repo = build(tmp, family, placement, driver, spelled)
    marker = tmp / "marker"
    env = base_env(tmp / "home")
    family.trigger(repo, env)
    assert marker.exists(), f"{name} via {placement}: the route does not run (test is vacuous)"
    marker.unlink()
    contained, _ = git_environment(env, repo)
    family.trigger(repo, contained)
    assert not marker.exists(), f"{name} via {placement} ({spelled}): the project's program ran"


def test_the_repository_hooks_directory_never_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    env = base_env(home)
    git(repo, env, "init", "-q")
    marker = tmp_path / "marker"
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, env, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    marker.unlink()
    contained, _ = git_environment(env, repo)
    git(repo, contained, "commit", "-q", "--allow-empty", "-m", "y")
    assert not marker.exists()


def test_the_users_own_programs_still_run(tmp_path: Path) -> None:
    """A credential helper and a hooks directory from the user's global configuration are
    the user's: kept, while the project's are dropped."""
    home = tmp_path / "home"
    (home / "hooks").mkdir(parents=True)
    repo = tmp_path / "repo"
    repo.mkdir()
    env = base_env(home)
    user_marker = tmp_path / "user"
    project_marker = tmp_path / "project"
    hook = home / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {user_marker}.hook\n")
    hook.chmod(0o755)
    (home / ".gitconfig").write_text(
        f"[core]\n\thooksPath = {home / 'hooks'}\n"
        f'[credential]\n\thelper = "!touch {user_marker}.helper; true"\n'
    )
    git(repo, env, "init", "-q")
    git(repo, env, "config", "credential.helper", f"!touch {project_marker}; true")
    git(repo, env, "config", "core.hooksPath", ".githooks")
    contained, overrides = git_environment(env, repo)
    git(repo, contained, "credential", "fill", stdin="protocol=https\nhost=h.invalid\n\n")
    git(repo, contained, "commit", "-q", "--allow-empty", "-m", "x")
    assert Path(f"{user_marker}.helper").exists()
    assert Path(f"{user_marker}.hook").exists()
    assert not project_marker.exists()
    assert ("credential.helper", "file:.git/config") in overrides.neutralised


def test_the_users_own_git_config_variables_are_kept_first() -> None:
    env = with_overrides({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b"}, [("c.d", "e")])
    assert env["GIT_CONFIG_COUNT"] == "2"
    assert env["GIT_CONFIG_KEY_0"] == "a.b"
    assert (env["GIT_CONFIG_KEY_1"], env["GIT_CONFIG_VALUE_1"]) == ("c.d", "e")


@given(
    key=st.sampled_from(
        ["core.fsmonitor", "core.pager", "pager.log", "diff.x.textconv", "filter.X.clean"]
    ),
    scope=st.sampled_from(["local", "worktree"]),
)
def test_every_project_program_key_is_overridden(key: str, scope: str) -> None:
    raw = f"{scope}\0file:.git/config\0{key}\nevil\0".encode()
    pairs = dict(overrides_from_listing(raw, origins=True).pairs)
    assert key in pairs
    assert pairs[key] == program_key(key)


def test_always_set_without_any_listing() -> None:
    pairs = overrides_from_listing(b"", origins=True).pairs
    assert pairs == (*ALWAYS, *PINNED)
    assert overrides_from_listing(b"", origins=True, pinned=()).pairs == ALWAYS
    assert program_key("alias.st", "status") is None
    assert program_key("alias.st", "!rm -rf /") == ""
    assert program_key("user.name") is None
    for key in (
        "imap.tunnel",
        "instaweb.httpd",
        "guitool.Lint.cmd",
        "gpg.openpgp.program",
        "gpg.ssh.defaultKeyCommand",
        "Core.FSMonitor",
        "credential.https://h.example.helper",
        "sendemail.work.smtpServer",
        "hook.lint.command",
        "tar.tgz.command",
        "Tar.custom.Command",
    ):
        assert program_key(key) is not None, key


class _Counting:
    """A ``git`` wrapper that logs each call, then runs the real git."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "calls"
        self.path = folder / "git"
        real = shutil.which("git")
        self.path.write_text(f'#!/bin/sh\necho "$*" >> "{self.log}"\nexec "{real}" "$@"\n')
        self.path.chmod(0o755)

    @property
    def listings(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


def test_a_listing_is_reused_until_a_file_it_came_from_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache: no second ``git config`` while nothing changed; a same-size rewrite of an
    included file, an include target that appears, and a new ``.git`` below the old one each
    make it list again, and the new key is overridden."""
    from amplifier_hooks_util import git_config

    monkeypatch.setattr(git_config, "RACY_NS", 0)  # files written just now may be kept
    home = tmp_path / "home"
    home.mkdir()
    env = base_env(home)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, env, "init", "-q")
    (repo / ".gitconfig").write_text("[core]\n\tfsmonitoX = 1\n")
    git(repo, env, "config", "include.path", "../.gitconfig")
    git(repo, env, "config", "include.path", "../later.gitconfig", "--add")
    counting = _Counting(tmp_path)
    git_path = str(counting.path)

    def neutralised(cwd: Path = repo) -> set[str]:
        _, overrides = git_environment(env, cwd, git=git_path)
        return {key.lower() for key, _ in overrides.neutralised}

    assert "core.fsmonitor" not in neutralised()
    assert neutralised() == set()
    assert counting.listings == 1
    (repo / ".gitconfig").write_text("[core]\n\tfsmonitor = 1\n")  # same size
    assert "core.fsmonitor" in neutralised()
    assert counting.listings == 2
    (repo / "later.gitconfig").write_text('[diff "x"]\n\ttextconv = evil\n')
    assert "diff.x.textconv" in neutralised()
    assert counting.listings == 3
    assert "diff.x.textconv" in neutralised(repo / "sub")
    git(repo / "sub", env, "init", "-q")  # another repository now decides for sub/
    assert neutralised(repo / "sub") == set()


@pytest.mark.parametrize("situation", ["hostile", "outside", "no git", "broken config"])
async def test_the_async_environment_is_the_sync_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, situation: str
) -> None:
    """Both versions share the listing's before and after; what each gives is the same, from
    a fresh listing, from a kept one, and when git gives none."""
    from amplifier_hooks_util import git_config

    monkeypatch.setattr(git_config, "RACY_NS", 0)  # files written just now may be kept
    home = tmp_path / "home"
    home.mkdir()
    env = base_env(home)
    git(home, env, "config", "--global", "credential.helper", "store")
    repo = tmp_path / "repo"
    repo.mkdir()
    program = "git"
    if situation != "outside":
        git(repo, env, "init", "-q")
        git(repo, env, "config", "diff.x.textconv", "evil")
        git(repo, env, "config", "credential.helper", "project-helper")
    if situation == "no git":
        program = str(tmp_path / "missing" / "git")
    if situation == "broken config":
        with (repo / ".git" / "config").open("a") as config:
            config.write("[broken\n")
    answers = []
    for kept in (False, True):
        if not kept:
            git_config._CACHE.clear()
        sync = git_environment(env, repo, git=program)
        if not kept:
            git_config._CACHE.clear()
        answers.append((sync, await git_environment_async(env, repo, git=program)))
    for sync, asynchronous in answers:
        assert asynchronous == sync
    (_, overrides), _ = answers[0]
    neutralised = {key for key, _ in overrides.neutralised}
    assert neutralised == (
        {"diff.x.textconv", "credential.helper"} if situation == "hostile" else set()
    )
