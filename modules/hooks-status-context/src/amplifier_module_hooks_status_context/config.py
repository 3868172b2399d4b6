"""The module's configuration, validated so that a typo is an error, not a silent default.

Key names follow the upstream ``hooks-status-context`` module where the meaning is the same,
so a bundle entry written for it mounts here unchanged; README.md's table documents each key.
"""

from __future__ import annotations

from typing import Any, Literal

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "DEFAULT_CAPPED_PATHS",
    "DEFAULT_HIDDEN_PATHS",
    "DEFAULT_REFRESH_TOOLS",
    "MODULE_ID",
    "StatusContextConfig",
    "parse_config",
]

MODULE_ID = "hooks-status-context"

#: Vendored, generated and build folders: entries under them never reach the status listing.
DEFAULT_HIDDEN_PATHS: tuple[str, ...] = (
    "node_modules",
    "bower_components",
    "jspm_packages",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    "*.egg-info",
    ".eggs",
    "dist",
    "build",
    "out",
    "target",
    "vendor",
    ".gradle",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".parcel-cache",
    ".turbo",
    ".terraform",
    ".cache",
    "Pods",
    ".DS_Store",
)

#: Lock files, logs and editor leftovers: shown, but only a few of them.
DEFAULT_CAPPED_PATHS: tuple[str, ...] = (
    "*.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "go.sum",
    "*.log",
    "logs",
    "coverage",
    ".coverage",
    "*.min.js",
    "*.min.css",
    "*.map",
    ".idea",
    ".vscode",
    "*.swp",
    "*.swo",
    "*~",
)

#: Tools after whose ``tool:post`` / ``tool:error`` the snapshot is taken again.
DEFAULT_REFRESH_TOOLS: tuple[str, ...] = (
    "bash",
    "shell",
    "write*",
    "edit*",
    "multi_edit",
    "apply_patch",
)


def _patterns(value: list[str], key: str) -> list[str]:
    for item in value:
        if not item.strip() or "\0" in item:
            raise ValueError(f"{key} entries must be non-empty patterns, got {item!r}")
    return value


class StatusContextConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # where and what
    working_dir: str | None = Field(default=None, min_length=1)
    priority: int = 0
    injection_role: Literal["system", "user", "assistant"] = "system"
    max_bytes: int = Field(default=8192, ge=512)
    include_platform: bool = True
    include_datetime: bool = True
    datetime_include_timezone: bool = False
    include_session: bool = False

    # git
    include_git: bool = True
    git_path: str = Field(default="git", min_length=1)
    git_timeout: float = Field(default=2.0, gt=0, le=60)
    git_include_branch: bool = True
    git_include_main_branch: bool = True
    git_include_status: bool = True
    git_include_commits: int = Field(default=5, ge=0, le=50)

    # the status listing
    git_status_include_untracked: bool = True
    git_status_max_tracked: int = Field(default=25, ge=0)
    git_status_max_untracked: int = Field(default=15, ge=0)
    git_status_max_lines: int = Field(default=40, ge=1)
    git_status_enable_path_filtering: bool = True
    git_status_hidden_paths: list[str] = Field(default_factory=lambda: list(DEFAULT_HIDDEN_PATHS))
    git_status_tier1_patterns_extend: list[str] = Field(default_factory=list)
    git_status_capped_paths: list[str] = Field(default_factory=lambda: list(DEFAULT_CAPPED_PATHS))
    git_status_tier2_patterns_extend: list[str] = Field(default_factory=list)
    git_status_tier2_limit: int = Field(default=5, ge=0)
    git_status_show_filter_summary: bool = True

    # caching
    cache: bool = True
    refresh_interval: float | None = Field(default=60.0, ge=0)
    refresh_after_tools: list[str] = Field(default_factory=lambda: list(DEFAULT_REFRESH_TOOLS))

    @field_validator(
        "git_status_hidden_paths",
        "git_status_tier1_patterns_extend",
        "git_status_capped_paths",
        "git_status_tier2_patterns_extend",
        "refresh_after_tools",
    )
    @classmethod
    def _check_patterns(cls, value: list[str], info: Any) -> list[str]:
        return _patterns(value, str(info.field_name))

    def hidden_patterns(self) -> tuple[str, ...]:
        """Tier 1: the hidden paths and their extension, in order, without repeats."""
        return tuple(
            dict.fromkeys([*self.git_status_hidden_paths, *self.git_status_tier1_patterns_extend])
        )

    def capped_patterns(self) -> tuple[str, ...]:
        """Tier 2: the capped paths and their extension, in order, without repeats."""
        return tuple(
            dict.fromkeys([*self.git_status_capped_paths, *self.git_status_tier2_patterns_extend])
        )


def parse_config(raw: dict[str, Any] | None) -> StatusContextConfig:
    """Validate ``raw``; errors name the module, the key path and what was expected."""
    return validate_config(StatusContextConfig, raw, owner=MODULE_ID)
