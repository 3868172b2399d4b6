"""The file tools' config (the README's config table documents each key), checked at mount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MODULE_ID", "FilesConfig", "parse_config"]

MODULE_ID: Final = "tool-filesystem"


class FilesConfig(BaseModel):
    """Config of ``tool-filesystem``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    working_dir: str | None = Field(default=None, min_length=1)
    """Where relative paths are taken from; itself relative to the session's working directory."""

    allow_outside_workspace: bool = True
    """Allow paths that resolve (symlinks followed) outside the working directory."""

    allowed_read_paths: list[str] | None = None
    """When set, ``read_file`` reads only inside these directories (relative ones are taken
    inside the working directory)."""

    allowed_write_paths: list[str] | None = None
    """When set, ``write_file`` and ``edit_file`` write only inside these directories."""

    denied_write_paths: list[str] = Field(default_factory=list)
    """Directories (or files) ``write_file`` and ``edit_file`` never write to."""

    max_read_lines: int = Field(default=2000, gt=0)
    """Lines ``read_file`` shows when no limit is given."""

    max_read_bytes: int = Field(default=100_000, gt=0)
    """Cap on the text one ``read_file`` call returns, in characters."""

    max_line_length: int = Field(default=2000, gt=0)
    """Characters of one line ``read_file`` shows; longer lines are cut."""

    max_edit_bytes: int = Field(default=10 * 1024 * 1024, gt=0)
    """Largest file ``edit_file`` loads, in bytes."""


def parse_config(raw: Mapping[str, Any] | None) -> FilesConfig:
    """The validated config; a mistake raises ``ConfigError`` naming the key path."""
    return validate_config(FilesConfig, raw, owner=MODULE_ID)
