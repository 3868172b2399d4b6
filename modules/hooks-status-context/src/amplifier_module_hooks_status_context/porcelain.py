"""Parsing git's machine-readable output: ``status --porcelain=v2 --branch -z`` and the refs
that name the main branch. Pure functions over text."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MAIN_BRANCH_REFS",
    "BranchInfo",
    "StatusEntry",
    "main_branch",
    "parse_status",
]

#: The refs looked up to name the main branch, most authoritative first.
MAIN_BRANCH_REFS: tuple[str, ...] = (
    "refs/remotes/origin/HEAD",
    "refs/heads/main",
    "refs/heads/master",
    "refs/heads/trunk",
    "refs/remotes/origin/main",
    "refs/remotes/origin/master",
    "refs/remotes/origin/trunk",
)


@dataclass(frozen=True, slots=True)
class BranchInfo:
    """The ``# branch.*`` headers: ``head`` is None when HEAD is detached, ``oid`` is None
    before the first commit."""

    head: str | None = None
    oid: str | None = None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0


@dataclass(frozen=True, slots=True)
class StatusEntry:
    """One changed path, with git's two-letter short code (``M ``, `` M``, ``??``, ``UU``)."""

    code: str
    path: str
    orig_path: str | None = None

    @property
    def untracked(self) -> bool:
        """True for a path git does not track yet."""
        return self.code == "??"

    def short(self) -> str:
        """The line ``git status --short`` prints for this entry."""
        if self.orig_path is not None:
            return f"{self.code} {self.orig_path} -> {self.path}"
        return f"{self.code} {self.path}"


def _xy(field: str) -> str:
    return field.replace(".", " ")


def _branch(headers: dict[str, str]) -> BranchInfo:
    ahead = behind = 0
    for part in headers.get("branch.ab", "").split():
        if part[1:].isdigit():
            if part[0] == "+":
                ahead = int(part[1:])
            else:
                behind = int(part[1:])
    oid = headers.get("branch.oid")
    head = headers.get("branch.head")
    return BranchInfo(
        head=None if head in (None, "(detached)") else head,
        oid=None if oid in (None, "(initial)") else oid,
        upstream=headers.get("branch.upstream"),
        ahead=ahead,
        behind=behind,
    )


def parse_status(raw: str) -> tuple[BranchInfo, list[StatusEntry]]:
    """Branch headers and entries of ``git status --porcelain=v2 --branch -z`` output."""
    headers: dict[str, str] = {}
    entries: list[StatusEntry] = []
    records = raw.split("\0")
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        if not record:
            continue
        kind = record[0]
        if kind == "#":
            key, _, value = record[2:].partition(" ")
            headers[key] = value
        elif kind == "1":
            fields = record.split(" ", 8)
            if len(fields) == 9:
                entries.append(StatusEntry(_xy(fields[1]), fields[8]))
        elif kind == "2":
            fields = record.split(" ", 9)
            orig = records[index] if index < len(records) else ""
            index += 1
            if len(fields) == 10:
                entries.append(StatusEntry(_xy(fields[1]), fields[9], orig or None))
        elif kind == "u":
            fields = record.split(" ", 10)
            if len(fields) == 11:
                entries.append(StatusEntry(_xy(fields[1]), fields[10]))
        elif kind == "?":
            entries.append(StatusEntry("??", record[2:]))
    return _branch(headers), entries


def _short_name(ref: str) -> str:
    for prefix in ("refs/heads/", "refs/remotes/origin/", "refs/remotes/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def main_branch(raw: str) -> str | None:
    """The main branch from ``git for-each-ref --format='%(refname) %(symref)'`` output over
    :data:`MAIN_BRANCH_REFS`: what ``origin/HEAD`` points to, else main, master, trunk."""
    found: dict[str, str] = {}
    for line in raw.splitlines():
        ref, _, target = line.strip().partition(" ")
        if ref:
            found[ref] = target.strip()
    for ref in MAIN_BRANCH_REFS:
        if ref in found:
            target = found[ref]
            if ref.endswith("/HEAD"):
                if target:
                    return _short_name(target)
                continue
            return _short_name(ref)
    return None
