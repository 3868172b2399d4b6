"""The block the model reads: environment lines, then the git section, in a labelled tag.

Rendering is a pure function of the facts and today's date, so the same facts give the same
bytes (the prompt prefix stays cacheable). The block never exceeds ``max_bytes`` of UTF-8:
the status listing, then the commit list, are shortened until it fits.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import MODULE_ID, StatusContextConfig
from .listing import Line, cap_lines
from .snapshot import GitFacts

__all__ = ["CLOSE_TAG", "OPEN_TAG", "Environment", "render_block"]

OPEN_TAG = f'<system-reminder source="{MODULE_ID}">'
CLOSE_TAG = "</system-reminder>"
_PREAMBLE = (
    "Where you are working, kept current by hooks-status-context. "
    "Use it silently; mention it only when it matters to the request."
)
_UNKNOWN = "branch, status and commits are unknown"


@dataclass(frozen=True, slots=True)
class Environment:
    """What the block says besides git."""

    working_dir: str
    exists: bool = True
    platform: str | None = None
    session_id: str | None = None
    parent_id: str | None = None


def _environment_lines(env: Environment, today: str | None) -> list[str]:
    lines = [f"Working directory: {env.working_dir}" + ("" if env.exists else " (does not exist)")]
    if env.platform:
        lines.append(f"Platform: {env.platform}")
    if today:
        lines.append(f"Today's date: {today}")
    if env.session_id:
        session = f"Session: {env.session_id}"
        if env.parent_id:
            session += f" (a sub-session of {env.parent_id})"
        lines.append(session)
    return lines


def _branch_line(facts: GitFacts) -> str:
    if facts.branch_error:
        return f"Current branch: unknown ({facts.branch_error})"
    branch = facts.branch
    if branch is None:
        return "Current branch: unknown"
    if branch.head is None:
        short = facts.commits[0].split(" ", 1)[0] if facts.commits else (branch.oid or "")[:7]
        return f"Current branch: none, HEAD is detached at {short}"
    line = f"Current branch: {branch.head}"
    if branch.oid is None:
        return line + " (no commits yet)"
    if branch.upstream:
        if branch.ahead or branch.behind:
            line += f" ({branch.ahead} ahead, {branch.behind} behind {branch.upstream})"
        else:
            line += f" (up to date with {branch.upstream})"
    return line


def _status_lines(facts: GitFacts, limit: int) -> list[str]:
    if facts.status_error:
        return [f"Status: unknown ({facts.status_error})"]
    listing = facts.status
    if listing is None:
        return []
    if listing.clean:
        return ["Status: clean"]
    root = facts.layout.toplevel if facts.layout else "the repository root"
    count = listing.total
    head = (
        f"Status ({count} {'path' if count == 1 else 'paths'}; git status --short codes, "
        f"paths relative to {root}):"
    )
    lines: tuple[Line, ...] = cap_lines(listing.lines, limit)
    return [head, *(line.text for line in lines)]


def _commit_lines(facts: GitFacts, limit: int) -> list[str]:
    if facts.commits_error:
        return [f"Recent commits: unknown ({facts.commits_error})"]
    if facts.branch is not None and facts.branch.oid is None:
        return ["Recent commits: none yet"]
    if not facts.commits or limit <= 0:
        return []
    shown = facts.commits[:limit]
    return ["Recent commits:", *shown]


def _git_lines(
    facts: GitFacts, config: StatusContextConfig, status_limit: int, commit_limit: int
) -> list[str]:
    if facts.state == "none":
        return ["Git repository: no (the working directory is not inside a git repository)"]
    if facts.state == "broken":
        return [f"Git repository: broken ({facts.detail}); {_UNKNOWN}"]
    if facts.state == "missing":
        return [f"Git: not available ({facts.detail}); {_UNKNOWN}"]
    if facts.state == "error":
        return [f"Git: failed ({facts.detail}); {_UNKNOWN}"]
    root = facts.layout.toplevel if facts.layout else "?"
    lines = [f"Git repository: yes, root {root}"]
    if config.git_include_branch:
        lines.append(_branch_line(facts))
    if config.git_include_main_branch:
        lines.append(f"Main branch: {facts.main_branch or 'unknown (no main, master or trunk)'}")
    if config.git_include_status:
        lines += _status_lines(facts, status_limit)
    if config.git_include_commits:
        lines += _commit_lines(facts, commit_limit)
    return lines


def _assemble(body: list[str]) -> str:
    return "\n".join([OPEN_TAG, _PREAMBLE, *body, CLOSE_TAG])


def render_block(
    env: Environment,
    today: str | None,
    facts: GitFacts | None,
    config: StatusContextConfig,
    max_bytes: int,
) -> str:
    """The whole block; at most ``max_bytes`` bytes of UTF-8."""
    head = _environment_lines(env, today)
    status_limit = config.git_status_max_lines
    commit_limit = config.git_include_commits
    while True:
        body = head + (
            _git_lines(facts, config, status_limit, commit_limit) if facts is not None else []
        )
        text = _assemble(body)
        if len(text.encode("utf-8")) <= max_bytes:
            return text
        if status_limit > 1:
            status_limit //= 2
        elif commit_limit > 0:
            commit_limit //= 2
        else:
            break
    budget = max_bytes - len(CLOSE_TAG) - len("\n...\n")
    cut = text.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
    return f"{cut}\n...\n{CLOSE_TAG}"
