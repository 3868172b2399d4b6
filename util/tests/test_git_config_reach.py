"""Git's configuration reaches further than the repository listed when a hook starts: a key the
project gains *after* the listing (a hook's ``git pull`` brings a new included ``.gitconfig``,
then its ``git commit`` or ``git archive`` runs), and the configuration of a submodule, which a
``git status`` or ``git diff`` in the superproject runs git in. By execution: each generated
case sees the marker written with the plain environment (the route is real) and not written
under :func:`git_environment`'s."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from amplifier_hooks_util.git_config import PINNED, git_environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_git_config import _FIXED_DRIVER, FAMILIES, _spell, base_env, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_DRIVER = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEF0123456789-_", min_size=1, max_size=8)


def _repository(path: Path, env: dict[str, str]) -> Path:
    path.mkdir()
    git(path, env, "init", "-q", "-b", "main")
    (path / "a.txt").write_text("one\n")
    git(path, env, "add", "a.txt")
    git(path, env, "commit", "-qm", "one")
    return path


def _place(repo: Path, env: dict[str, str], placement: str, key: str, value: str) -> None:
    """``key = value`` in ``repo``'s own configuration, or in a tracked ``.gitconfig`` it
    includes."""
    if placement == "local":
        git(repo, env, "config", key, value)
        return
    section, _, name = key.rpartition(".")
    head, _, sub = section.partition(".")
    header = f'[{head} "{sub}"]' if sub else f"[{head}]"
    quoted = value.replace("\\", "\\\\").replace('"', '\\"')
    with (repo / ".gitconfig").open("a") as stream:
        stream.write(f'{header}\n\t{name} = "{quoted}"\n')
    # a path of its own: a submodule's configuration lives in the superproject's .git/modules
    git(repo, env, "config", "include.path", str(repo / ".gitconfig"))


# -- a key gained after the listing


@dataclass(frozen=True)
class Late:
    key: str
    trigger: Callable[[Path, dict[str, str]], None]
    value: str = "touch {marker}; false"


LATE: dict[str, Late] = {
    "core.editor": Late("core.editor", lambda r, e: git(r, e, "commit", "-q", "--allow-empty")),
    "sequence.editor": Late(
        "sequence.editor",
        lambda r, e: git(r, e, "rebase", "-q", "-i", "--root"),
    ),
    "gpg.program": Late(
        "gpg.program",
        lambda r, e: git(r, e, "commit", "-q", "-S", "--allow-empty", "-m", "x"),
        "{script}",
    ),
    "gpg.ssh.program": Late(
        "gpg.ssh.program",
        lambda r, e: git(
            r,
            e,
            "-c",
            "gpg.format=ssh",
            "-c",
            "user.signingKey=key::x",
            "commit",
            "-q",
            "-S",
            "--allow-empty",
            "-m",
            "x",
        ),
        "{script}",
    ),
    "core.sshCommand": Late(
        "core.sshCommand", lambda r, e: git(r, e, "ls-remote", "ssh://127.0.0.1:1/x")
    ),
    "tar.tgz.command": Late(
        "tar.tgz.command",
        lambda r, e: git(r, e, "archive", "--format=tgz", "-o", "/dev/null", "HEAD"),
        "touch {marker}; cat",
    ),
    "tar.tar.gz.command": Late(
        "tar.tar.gz.command",
        lambda r, e: git(r, e, "archive", "-o", str(r.parent / "out.tar.gz"), "HEAD"),
        "touch {marker}; cat",
    ),
}


def test_every_late_family_is_pinned() -> None:
    pinned = {key.lower() for key, _ in PINNED} | {"core.sshcommand"}
    assert {name.lower() for name in LATE} <= pinned


@_SETTINGS
@given(
    name=st.sampled_from(sorted(LATE)),
    placement=st.sampled_from(["local", "include.path"]),
    upper=st.lists(st.booleans(), max_size=6),
)
def test_a_key_gained_after_the_listing_runs_nothing(
    tmp_path_factory: pytest.TempPathFactory, name: str, placement: str, upper: list[bool]
) -> None:
    family = LATE[name]
    tmp = tmp_path_factory.mktemp("late")
    (tmp / "home").mkdir()
    env = base_env(tmp / "home")
    repo = _repository(tmp / "repo", env)
    marker = tmp / "marker"
    script = tmp / "program"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    contained, _ = git_environment(env, repo)  # listed before the key arrives
    _place(repo, env, placement, _spell(family.key, upper), family.value.format(
        marker=marker, script=script
    ))  # fmt: skip
    family.trigger(repo, contained)
    assert not marker.exists(), f"{name} gained via {placement} after the listing: it ran"
    family.trigger(repo, env)
    assert marker.exists(), f"{name} via {placement}: the route does not run (vacuous)"


# -- a submodule's own configuration


@dataclass(frozen=True)
class InModule:
    key: str
    attribute: str  # what the submodule's .gitattributes names the driver for ('' for none)
    args: tuple[str, ...]  # the git command run in the superproject
    value: str = "touch {marker}; cat"


IN_MODULE: dict[str, InModule] = {
    "filter.<d>.clean": InModule("filter.{d}.clean", "filter", ("status", "--porcelain")),
    "filter.<d>.process": InModule(
        "filter.{d}.process", "filter", ("status", "--porcelain"), "touch {marker}; false"
    ),
    "diff.<d>.textconv": InModule("diff.{d}.textconv", "diff", ("diff", "--submodule=diff")),
    "diff.<d>.command": InModule(
        "diff.{d}.command", "diff", ("diff", "--submodule=diff"), "touch {marker}; true"
    ),
    "diff.external": InModule(
        "diff.external", "", ("diff", "--submodule=diff"), "touch {marker}; true"
    ),
    "core.fsmonitor": InModule(
        "core.fsmonitor", "", ("status", "--porcelain"), "touch {marker}; true"
    ),
}


def _superproject(tmp: Path, env: dict[str, str], family: InModule, driver: str) -> Path:
    source = _repository(tmp / "source", env)
    if family.attribute:
        (source / ".gitattributes").write_text(f"*.txt {family.attribute}={driver}\n")
        git(source, env, "add", ".gitattributes")
        git(source, env, "commit", "-qm", "attributes")
    top = _repository(tmp / "top", env)
    allow = {**env, "GIT_CONFIG_COUNT": "1"}
    allow |= {"GIT_CONFIG_KEY_0": "protocol.file.allow", "GIT_CONFIG_VALUE_0": "always"}
    git(top, allow, "submodule", "add", "-q", str(source), "sub")
    git(top, env, "commit", "-qm", "submodule")
    return top


@_SETTINGS
@given(
    name=st.sampled_from(sorted(IN_MODULE)),
    placement=st.sampled_from(["local", "include.path"]),
    driver=_DRIVER,
    upper=st.lists(st.booleans(), max_size=6),
)
def test_a_submodules_configuration_runs_nothing(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    placement: str,
    driver: str,
    upper: list[bool],
) -> None:
    family = IN_MODULE[name]
    tmp = tmp_path_factory.mktemp("module")
    (tmp / "home").mkdir()
    env = base_env(tmp / "home")
    top = _superproject(tmp, env, family, driver)
    marker = tmp / "marker"
    key = _spell(family.key.format(d=driver), upper)
    _place(top / "sub", env, placement, key, family.value.format(marker=marker))
    contained, _ = git_environment(env, top)
    for content, environment in (("onf\n", contained), ("ong\n", env)):
        # the same size and a new time: git must read the file again (a clean filter runs)
        (top / "sub" / "a.txt").write_text(content)
        subprocess.run(
            ["git", *family.args], cwd=top, env=environment, capture_output=True, check=False
        )
        if environment is contained:
            assert not marker.exists(), f"{name} in a submodule ({placement}, {key}): it ran"
    assert marker.exists(), f"{name} in a submodule via {placement}: the route is not real"


# -- a "user" file that lies in the project


@_SETTINGS
@given(
    name=st.sampled_from(sorted(FAMILIES)),
    how=st.sampled_from(["HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"]),
    driver=_DRIVER,
)
def test_a_global_file_inside_the_project_is_the_projects(
    tmp_path_factory: pytest.TempPathFactory, name: str, how: str, driver: str
) -> None:
    """A hook's ``env`` that points ``HOME`` (or ``XDG_CONFIG_HOME``, ``GIT_CONFIG_GLOBAL``)
    into the project makes git read a project file as its *global* configuration: its
    programs are the project's, not the user's, and run no more than the repository's."""
    family = FAMILIES[name]
    driver = _FIXED_DRIVER.get(name, driver)
    tmp = tmp_path_factory.mktemp("global")
    (tmp / "home").mkdir()
    env = base_env(tmp / "home")
    repo = _repository(tmp / "repo", env)
    family.prepare(repo, env, driver)
    marker = tmp / "marker"
    script = tmp / "program"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    if family.key == "core.hooksPath":
        hook = repo / "hooks-dir" / "pre-commit"
        hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
        hook.chmod(0o755)
        value = str(repo / "hooks-dir")  # absolute: a global hooks directory
    else:
        value = family.value.format(marker=marker, script=script)
    target = {
        "HOME": repo / ".gitconfig",
        "XDG_CONFIG_HOME": repo / ".config" / "git" / "config",
        "GIT_CONFIG_GLOBAL": repo / "tools" / "git.cfg",
    }[how]
    target.parent.mkdir(parents=True, exist_ok=True)
    env = {
        **env,
        how: str(
            {"HOME": repo, "XDG_CONFIG_HOME": repo / ".config", "GIT_CONFIG_GLOBAL": target}[how]
        ),
    }
    git(repo, {**env, "GIT_CONFIG_GLOBAL": str(target)}, "config", "--global",
        family.key.format(d=driver), value)  # fmt: skip
    family.trigger(repo, env)
    assert marker.exists(), f"{name} via {how}: the route does not run (vacuous)"
    marker.unlink()
    contained, _ = git_environment(env, repo)
    family.trigger(repo, contained)
    assert not marker.exists(), f"{name} in a global file inside the project ({how}): it ran"
