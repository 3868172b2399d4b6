"""hooks-status-context: before every provider request, tell the model where it stands.

The block names the working directory, the platform and today's date and, in a git
repository, the current and main branch, a filtered and capped ``git status`` and the last
commits. It is injected for that request only (ephemeral, never stored in the context), and it
is the same bytes from one request to the next until something changes, so it does not spoil
the provider's prompt cache. Mount it from a bundle::

    hooks:
      - module: hooks-status-context
        config:
          git_include_commits: 3
          git_status_tier1_patterns_extend: [generated]

or in code::

    from amplifier_module_hooks_status_context import mount

    cleanup = await mount(coordinator, {"git_timeout": 1.0})

README.md documents every config key and how the snapshot is kept current.
"""

from typing import TYPE_CHECKING, Any

from .config import (
    DEFAULT_CAPPED_PATHS,
    DEFAULT_HIDDEN_PATHS,
    DEFAULT_REFRESH_TOOLS,
    MODULE_ID,
    StatusContextConfig,
    parse_config,
)
from .fingerprint import fingerprint
from .gitrun import GitResult, GitRunner
from .hook import HANDLER_NAME, Snapshot, StatusContextHook, describe_platform
from .listing import StatusListing, StatusPolicy
from .mount import mount
from .paths import PathMatcher
from .porcelain import BranchInfo, StatusEntry, main_branch, parse_status

if TYPE_CHECKING:
    from .render import CLOSE_TAG, OPEN_TAG, Environment, render_block
    from .snapshot import GitFacts, RepoLayout, find_dot_git, take_git_facts

__all__ = [
    "CLOSE_TAG",
    "DEFAULT_CAPPED_PATHS",
    "DEFAULT_HIDDEN_PATHS",
    "DEFAULT_REFRESH_TOOLS",
    "HANDLER_NAME",
    "MODULE_ID",
    "OPEN_TAG",
    "BranchInfo",
    "Environment",
    "GitFacts",
    "GitResult",
    "GitRunner",
    "PathMatcher",
    "RepoLayout",
    "Snapshot",
    "StatusContextConfig",
    "StatusContextHook",
    "StatusEntry",
    "StatusListing",
    "StatusPolicy",
    "config_schema",
    "describe_platform",
    "find_dot_git",
    "fingerprint",
    "main_branch",
    "mount",
    "parse_config",
    "parse_status",
    "render_block",
    "take_git_facts",
]

config_schema = StatusContextConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""


_LATER: dict[str, str] = {
    "CLOSE_TAG": "render",
    "OPEN_TAG": "render",
    "Environment": "render",
    "render_block": "render",
    "GitFacts": "snapshot",
    "RepoLayout": "snapshot",
    "find_dot_git": "snapshot",
    "take_git_facts": "snapshot",
}


def __getattr__(name: str) -> Any:
    """What the first snapshot uses (reading git's state, rendering the block), imported when
    first asked for: a mount does not need it."""
    where = _LATER.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value
