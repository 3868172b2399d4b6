"""The managed policy file's place and its trust by ownership, on real files, owners and modes
(owners are changed with ``os.chown``: those tests run as root)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from amplifier_hooks_util.managed_file import (
    OWNER_VARIABLE,
    POLICY_VARIABLE,
    OwnershipError,
    PolicyLocation,
    locate_policy,
    ownership_problems,
    read_owned,
    system_policy_path,
)
from amplifier_hooks_util.regular_file import MAX_HOOKS_FILE_BYTES, TooLargeFile, read_regular
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = frozenset({0})
OTHER = 12345
as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changes owners: runs as root"
)


@pytest.fixture
def base() -> Iterator[Path]:
    """A directory root owns, mode 0755, under the system's temporary directory."""
    made = Path(tempfile.mkdtemp(prefix="managed-file-"))
    made.chmod(0o755)
    try:
        yield made
    finally:
        for path in (made, *made.rglob("*")):
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(made)


def _policy(directory: Path, mode: int = 0o644) -> Path:
    path = directory / "managed.yaml"
    path.write_text("hooks: {}\n", encoding="utf-8")
    path.chmod(mode)
    return path


def test_each_platform_has_its_path() -> None:
    assert system_policy_path("linux") == Path("/etc/amplifier-hooks/managed.yaml")
    assert system_policy_path("darwin") == Path(
        "/Library/Application Support/amplifier-hooks/managed.yaml"
    )
    assert system_policy_path("freebsd14") == Path("/etc/amplifier-hooks/managed.yaml")
    windows = system_policy_path("win32", {"ProgramData": "D:\\Data"})
    assert str(windows) == "D:\\Data\\amplifier-hooks\\managed.yaml"


def test_the_variables_apply_only_without_a_system_file(base: Path) -> None:
    named = _policy(base)
    missing = base / "system" / "managed.yaml"
    env = {POLICY_VARIABLE: str(named), OWNER_VARIABLE: "nobody"}
    found = locate_policy(env, system=missing)
    assert found.path == named
    assert found.from_environment
    assert found.administrators == {0, 65534}
    (base / "system").mkdir()
    installed = _policy(base / "system")
    found = locate_policy(env, system=installed)
    assert found.path == installed
    assert not found.from_environment
    assert found.administrators == ROOT
    assert found.ignored is not None
    assert POLICY_VARIABLE in found.ignored
    assert OWNER_VARIABLE in found.ignored


def test_no_variable_and_no_file_is_no_policy(base: Path) -> None:
    found = locate_policy({}, system=base / "none.yaml")
    assert not found.exists()


def test_an_unknown_owner_name_is_an_error(base: Path) -> None:
    with pytest.raises(ValueError, match="no such user"):
        locate_policy(
            {POLICY_VARIABLE: str(_policy(base)), OWNER_VARIABLE: "no-such-user-x"},
            system=base / "none.yaml",
        )


def test_a_root_file_in_root_directories_is_trusted(base: Path) -> None:
    path = _policy(base)
    assert ownership_problems(path, ROOT, uid=0) == []
    assert read_owned(PolicyLocation(path, ROOT)) == b"hooks: {}\n"


@as_root
def test_a_policy_over_the_cap_is_refused_unread(base: Path) -> None:
    path = _policy(base)
    path.write_bytes(b"#" * (MAX_HOOKS_FILE_BYTES + 1))
    with pytest.raises(TooLargeFile, match=f"more than the {MAX_HOOKS_FILE_BYTES:,}"):
        read_owned(PolicyLocation(path, ROOT))


def test_the_check_sees_the_open_file_before_a_byte_is_read(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_bytes(b"hooks: {}\n")
    seen: list[tuple[int, int]] = []

    def refuse(info: os.stat_result) -> None:
        seen.append((info.st_ino, info.st_size))
        raise OwnershipError(path, ["replaced"])

    with pytest.raises(OwnershipError, match="replaced"):
        read_regular(path, check=refuse)
    assert seen == [(path.stat().st_ino, 10)]
    assert read_regular(path, check=lambda info: None) == b"hooks: {}\n"


@as_root
def test_a_file_another_user_owns_is_refused(base: Path) -> None:
    path = _policy(base)
    os.chown(path, OTHER, 0)
    [problem] = ownership_problems(path, ROOT, uid=0)
    assert problem == "it is owned by uid 12345, not by an administrator (root (uid 0))"
    with pytest.raises(OwnershipError, match="owned by uid 12345"):
        read_owned(PolicyLocation(path, ROOT))
    assert ownership_problems(path, ROOT | {OTHER}, uid=0) == []


@as_root
def test_a_file_the_user_owns_names_the_user(base: Path) -> None:
    path = _policy(base)
    os.chown(path, 65534, 65534)
    [problem] = ownership_problems(path, ROOT, uid=65534)
    assert problem.startswith("it is owned by nobody (uid 65534), you, not by an administrator")


@pytest.mark.parametrize(
    ("mode", "by"),
    [(0o664, "its group"), (0o646, "everyone"), (0o666, "its group and everyone")],
)
def test_a_file_others_may_write_is_refused(base: Path, mode: int, by: str) -> None:
    path = _policy(base, mode)
    [problem] = ownership_problems(path, ROOT, uid=0)
    assert problem == f"it is writable by {by} (mode {stat.filemode(stat.S_IFREG | mode)})"


@as_root
def test_every_directory_above_is_checked(base: Path) -> None:
    inner = base / "a" / "b"
    inner.mkdir(parents=True)
    path = _policy(inner)
    os.chown(base / "a", OTHER, 0)
    (inner).chmod(0o775)
    problems = ownership_problems(path, ROOT, uid=0)
    assert f"{base / 'a'} is owned by uid 12345, not by an administrator (root (uid 0))" in problems
    assert any(p.startswith(f"{inner} is writable by its group") for p in problems)


def test_a_sticky_directory_others_may_write_is_no_problem(base: Path) -> None:
    shared = base / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    assert ownership_problems(_policy(shared), ROOT, uid=0) == []
    shared.chmod(0o777)
    [problem] = ownership_problems(shared / "managed.yaml", ROOT, uid=0)
    assert problem.startswith(f"{shared} is writable by its group and everyone")


@as_root
def test_a_link_is_judged_by_its_owner_and_by_where_it_leads(base: Path) -> None:
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    target = _policy(elsewhere)
    link = base / "link.yaml"
    link.symlink_to(target)
    assert ownership_problems(link, ROOT, uid=0) == []
    os.lchown(link, OTHER, 0)
    assert ownership_problems(link, ROOT, uid=0) == [f"the link {link} is owned by uid 12345"]
    os.lchown(link, 0, 0)
    os.chown(elsewhere, OTHER, 0)
    problems = ownership_problems(link, ROOT, uid=0)
    assert problems == [
        f"{elsewhere} is owned by uid 12345, not by an administrator (root (uid 0))"
    ]


def test_a_fifo_is_refused_without_being_opened(base: Path) -> None:
    fifo = base / "managed.yaml"
    os.mkfifo(fifo, 0o644)
    [problem] = ownership_problems(fifo, ROOT, uid=0)
    assert problem == f"{fifo} is a FIFO, not a regular file"
    with pytest.raises(OwnershipError):
        read_owned(PolicyLocation(fifo, ROOT))


def test_a_missing_file_cannot_be_read(base: Path) -> None:
    [problem] = ownership_problems(base / "gone.yaml", ROOT, uid=0)
    assert problem.startswith("it cannot be read: No such file")


DIRECTORY_MODES = st.sampled_from([0o755, 0o775, 0o757, 0o777, 0o1777, 0o700, 0o1775])
FILE_MODES = st.sampled_from([0o644, 0o600, 0o664, 0o646, 0o444, 0o640])
OWNERS = st.sampled_from([0, OTHER])


def _trusted_model(dirs: list[tuple[int, int]], file: tuple[int, int]) -> bool:
    """The rule, written out: every owner an administrator; a directory writable by group or
    others only with the sticky bit; the file writable by neither."""
    for owner, mode in dirs:
        writable = mode & 0o022
        if owner != 0 or (writable and not mode & stat.S_ISVTX):
            return False
    owner, mode = file
    return owner == 0 and not mode & 0o022


@as_root
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    dirs=st.lists(st.tuples(OWNERS, DIRECTORY_MODES), min_size=1, max_size=3),
    file=st.tuples(OWNERS, FILE_MODES),
)
def test_the_check_agrees_with_the_rule(
    base: Path, dirs: list[tuple[int, int]], file: tuple[int, int]
) -> None:
    """Generated owners and modes along a chain of directories: the file is trusted exactly
    when the rule says so, and each refusal names what breaks it."""
    directory = Path(tempfile.mkdtemp(dir=base))
    directory.chmod(0o755)
    for index, (owner, mode) in enumerate(dirs):
        directory = directory / f"d{index}"
        directory.mkdir()
        os.chown(directory, owner, 0)
        directory.chmod(mode)
    path = _policy(directory, file[1])
    os.chown(path, file[0], 0)
    problems = ownership_problems(path, ROOT, uid=0)
    assert (problems == []) is _trusted_model(dirs, file), problems
    for problem in problems:
        assert "owned by uid 12345" in problem or "writable by" in problem
