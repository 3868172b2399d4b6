"""The administrator's policy file: where it is, and whether it can be trusted by ownership.

A managed policy is not trusted by the user's word (a trust record the user writes) but by who
owns it: the file and every directory above it must belong to an administrator and be
writable by nobody else. :func:`locate_policy` says where the file is on this platform;
:func:`read_owned` reads it only when :func:`ownership_problems` finds nothing wrong, from the
very descriptor whose owner and mode were checked.

Where the file is:

========  ===========================================================
Linux     ``/etc/amplifier-hooks/managed.yaml``
macOS     ``/Library/Application Support/amplifier-hooks/managed.yaml``
Windows   ``%ProgramData%\\amplifier-hooks\\managed.yaml``
========  ===========================================================

``AMPLIFIER_HOOKS_MANAGED_POLICY`` names another file, and ``AMPLIFIER_HOOKS_MANAGED_OWNER``
one more user id counted as an administrator besides root (a number, or a user name), but
**only on a machine with no file at the system path**: where an administrator installed a
policy, it is the policy, whatever the environment says. So the variables let tests and
trials run a policy without root, and never let a user set aside the one in force.

The ownership rule (POSIX): the file is a regular file owned by an administrator (root, uid
0, or the variable's user where it applies), not writable by its group or by others; every
directory from ``/`` down to it (of the path as written and of the path its links lead to)
is owned by an administrator and not writable by group or others, unless it has the sticky
bit (``/tmp``: nobody but an entry's owner may rename or delete that entry); a link on the
way is owned by an administrator. A user who is not an administrator must not be able to
write the file by any means the kernel grants (``access(W_OK)``, which counts ACLs too).
Windows has no such owner check here: there the file is refused.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Final

from .regular_file import kind_of, read_regular

__all__ = [
    "OWNER_VARIABLE",
    "POLICY_VARIABLE",
    "ROOT_UID",
    "SYSTEM_PATHS",
    "OwnershipError",
    "PolicyLocation",
    "locate_policy",
    "ownership_problems",
    "read_owned",
    "system_policy_path",
]

POLICY_VARIABLE: Final = "AMPLIFIER_HOOKS_MANAGED_POLICY"
"""Names the policy file on a machine that has none at the system path."""

OWNER_VARIABLE: Final = "AMPLIFIER_HOOKS_MANAGED_OWNER"
"""One more administrator (uid or user name) for the file :data:`POLICY_VARIABLE` names."""

SYSTEM_PATHS: Final[Mapping[str, str]] = {
    "linux": "/etc/amplifier-hooks/managed.yaml",
    "darwin": "/Library/Application Support/amplifier-hooks/managed.yaml",
    "win32": "{ProgramData}\\amplifier-hooks\\managed.yaml",
}
"""The policy file's path on each platform (``sys.platform``; any other POSIX: Linux's)."""

ROOT_UID: Final = 0
"""Root: an administrator on every POSIX machine."""


class OwnershipError(OSError):
    """The policy file exists but is not trusted by ownership; ``problems`` say why."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"{path}: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class PolicyLocation:
    """Where the policy is read, and who may own it."""

    path: Path
    administrators: frozenset[int]
    """The user ids that count as administrators for this file (root always)."""
    from_environment: bool = False
    """The path came from :data:`POLICY_VARIABLE` (no file at the system path)."""
    ignored: str | None = None
    """A variable that was set and is not obeyed because the system file exists."""

    def exists(self) -> bool:
        """Whether anything is at the path (a dangling link counts: it is refused, not
        taken for "no policy")."""
        return os.path.lexists(self.path)


def system_policy_path(
    platform: str = sys.platform, environ: Mapping[str, str] | None = None
) -> Path:
    """The system path of the policy file on ``platform`` (see the module docstring)."""
    env = os.environ if environ is None else environ
    if platform == "win32":
        base = env.get("ProgramData") or env.get("PROGRAMDATA") or "C:\\ProgramData"
        return Path(SYSTEM_PATHS["win32"].format(ProgramData=base))
    return Path(SYSTEM_PATHS.get(platform, SYSTEM_PATHS["linux"]))


def _uid_of(text: str) -> int:
    """A user id from a number or a user name.

    :raises ValueError: neither.
    """
    value = text.strip()
    if value.isdigit():
        return int(value)
    import pwd  # POSIX only, as the owner check

    try:
        return pwd.getpwnam(value).pw_uid
    except KeyError:
        raise ValueError(f"{OWNER_VARIABLE}={text!r}: no such user") from None


def locate_policy(
    environ: Mapping[str, str] | None = None, *, system: Path | None = None
) -> PolicyLocation:
    """Where this session's policy file is (present or not), and who may own it.

    :param system: the system path (default: :func:`system_policy_path`'s for this platform).
    :raises ValueError: :data:`OWNER_VARIABLE` names no user (where it applies).
    """
    env = os.environ if environ is None else environ
    system = system or system_policy_path(environ=env)
    named = env.get(POLICY_VARIABLE, "").strip()
    admins = frozenset({ROOT_UID})
    if os.path.lexists(system):
        set_vars = [v for v in (POLICY_VARIABLE, OWNER_VARIABLE) if env.get(v, "").strip()]
        ignored = None
        if set_vars:
            ignored = f"{' and '.join(set_vars)} ignored: the system policy {system} is in force"
        return PolicyLocation(system, admins, ignored=ignored)
    if not named:
        return PolicyLocation(system, admins)
    owner = env.get(OWNER_VARIABLE, "").strip()
    if owner:
        admins = admins | {_uid_of(owner)}
    return PolicyLocation(Path(named).expanduser().absolute(), admins, from_environment=True)


def _who(uid: int) -> str:
    import pwd

    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
    return f"{name} (uid {uid})"


def _admins(administrators: frozenset[int]) -> str:
    return " or ".join(_who(uid) for uid in sorted(administrators))


def _mode_problem(where: str, mode: int, *, directory: bool) -> str | None:
    writable = mode & (stat.S_IWGRP | stat.S_IWOTH)
    if not writable or (directory and mode & stat.S_ISVTX):
        return None
    by = " and ".join(
        name
        for bit, name in ((stat.S_IWGRP, "its group"), (stat.S_IWOTH, "everyone"))
        if mode & bit
    )
    return f"{where} is writable by {by} (mode {stat.filemode(mode)})"


def _chain(path: Path) -> list[Path]:
    """Every directory from ``/`` down to ``path``'s parent, then ``path``."""
    parts = PurePath(path).parts
    return [Path(*parts[: index + 1]) for index in range(len(parts))]


def _component_problems(path: Path, administrators: frozenset[int]) -> list[str]:
    """What is wrong with the directories (and links) leading to ``path``: as written, and
    as its links resolve."""
    problems: list[str] = []
    seen: set[Path] = set()
    real = Path(os.path.realpath(path))
    for chain in (_chain(path)[:-1], _chain(real)[:-1]):
        for directory in chain:
            if directory in seen:
                continue
            seen.add(directory)
            try:
                info = os.lstat(directory)
            except OSError as err:
                problems.append(f"{directory} cannot be checked: {err.strerror or err}")
                continue
            if info.st_uid not in administrators:
                problems.append(
                    f"{directory} is owned by {_who(info.st_uid)}, not by an administrator "
                    f"({_admins(administrators)})"
                )
            if stat.S_ISLNK(info.st_mode):
                continue
            found = _mode_problem(str(directory), info.st_mode, directory=True)
            if found is not None:
                problems.append(found)
    if os.path.islink(path):
        info = os.lstat(path)
        if info.st_uid not in administrators:
            problems.append(f"the link {path} is owned by {_who(info.st_uid)}")
    return problems


def _file_problems(
    path: Path, info: os.stat_result, administrators: frozenset[int], uid: int
) -> list[str]:
    problems: list[str] = []
    if not stat.S_ISREG(info.st_mode):
        problems.append(f"{path} is {kind_of(info.st_mode)}, not a regular file")
        return problems
    if info.st_uid not in administrators:
        whose = _who(info.st_uid) + (", you" if info.st_uid == uid else "")
        problems.append(
            f"it is owned by {whose}, not by an administrator ({_admins(administrators)})"
        )
    found = _mode_problem("it", info.st_mode, directory=False)
    if found is not None:
        problems.append(found)
    return problems


def ownership_problems(
    path: Path, administrators: frozenset[int], *, uid: int | None = None
) -> list[str]:
    """Why ``path`` cannot be trusted by ownership (empty: it can), for the user ``uid``
    (default: the effective user)."""
    if not hasattr(os, "geteuid"):
        return ["its owner cannot be checked on this platform (no POSIX ownership)"]
    who = os.geteuid() if uid is None else uid
    try:
        info = os.stat(path)
    except OSError as err:
        return [f"it cannot be read: {err.strerror or err}"]
    problems = _component_problems(path, administrators)
    problems += _file_problems(path, info, administrators, who)
    if not problems and who not in administrators and os.access(path, os.W_OK):
        problems.append("you can write it (an ACL or a capability grants it)")
    return problems


def read_owned(location: PolicyLocation, *, uid: int | None = None) -> bytes:
    """The policy file's bytes, read from a descriptor whose owner and mode were checked,
    after every directory above it was.

    :raises OwnershipError: the file cannot be trusted by ownership, with every reason.
    :raises OSError: it cannot be read, or is larger than 4 MiB
        (:class:`~.regular_file.TooLargeFile`).
    """
    path = location.path
    problems = ownership_problems(path, location.administrators, uid=uid)
    if problems:
        raise OwnershipError(path, problems)
    who = os.geteuid() if uid is None else uid

    def still_owned(info: os.stat_result) -> None:
        found = _file_problems(path, info, location.administrators, who)
        if found:  # replaced between the check and the open
            raise OwnershipError(path, found)

    return read_regular(path, check=still_owned)
