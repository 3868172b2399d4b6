"""The module's configuration, validated so that a typo is an error, not a silent default.

Errors read ``hooks-python-check: config: <key path>: <what was expected>``, for example
``hooks-python-check: config: checks[1]: unknown check 'pyright'; expected one of: ruff, ...``
(worded by :mod:`amplifier_hooks_util.config_errors`).
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any, Final, Literal

from amplifier_hooks_util.config_errors import validate_config
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "CHECKS",
    "DEFAULT_ARGS",
    "MODULE_ID",
    "SOURCE",
    "Check",
    "CheckArgs",
    "Commands",
    "PythonCheckConfig",
    "parse_config",
]

MODULE_ID: Final = "hooks-python-check"
SOURCE: Final = "python-check"
"""The name the module signs its messages with (``user_message_source``, the injection header)."""

Check = Literal["ruff", "format", "mypy", "stubs"]
CHECKS: Final[tuple[Check, ...]] = ("ruff", "format", "mypy", "stubs")
_ALIASES: Final = {"lint": "ruff", "types": "mypy"}
"""The check names other python-check hooks use, accepted so their bundles keep working."""

DEFAULT_ARGS: Final[dict[str, tuple[str, ...]]] = {
    "ruff": (),
    "format": (),
    "mypy": ("--follow-imports=silent",),
}


def _check_name(value: Any) -> Any:
    if isinstance(value, str):
        value = _ALIASES.get(value, value)
        if value not in CHECKS:
            known = ", ".join([*CHECKS, *_ALIASES])
            raise ValueError(f"unknown check {value!r}; expected one of: {known}")
    return value


def _command(value: Any) -> Any:
    """A command is a list of arguments, or a string split the way a shell would split it."""
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as err:
            raise ValueError(f"cannot split {value!r} into arguments ({err})") from err
    if isinstance(value, list | tuple) and not value:
        raise ValueError("expected a command such as 'ruff' or ['python', '-m', 'ruff'], got []")
    return value


def _pattern(value: str) -> str:
    if not value.strip():
        raise ValueError("expected a file pattern such as '*.py', got an empty string")
    return value


def _tool_name(value: str) -> str:
    if not value.strip() or value != value.strip():
        raise ValueError(f"expected a tool name such as 'write_file', got {value!r}")
    return value


def _marker(value: str) -> str:
    if not value or not value.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"expected a marker word such as 'TODO', got {value!r}")
    return value


def _unique(values: tuple[str, ...]) -> tuple[str, ...]:
    """Each name once, in first-seen order (``[ruff, lint]`` runs ruff once)."""
    return tuple(dict.fromkeys(values))


CheckName = Annotated[Check, BeforeValidator(_check_name)]
Command = Annotated[tuple[str, ...], BeforeValidator(_command)]
Pattern = Annotated[str, AfterValidator(_pattern)]
ToolName = Annotated[str, AfterValidator(_tool_name)]
Marker = Annotated[str, AfterValidator(_marker)]


class Commands(BaseModel):
    """How to start each checker; ``None`` finds it (PATH, beside the interpreter, ``-m``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ruff: Command | None = None
    mypy: Command | None = None


class CheckArgs(BaseModel):
    """Extra arguments per check, after the ones the module needs to read the output."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ruff: tuple[str, ...] = DEFAULT_ARGS["ruff"]
    format: tuple[str, ...] = DEFAULT_ARGS["format"]
    mypy: tuple[str, ...] = DEFAULT_ARGS["mypy"]


class PythonCheckConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tools: tuple[ToolName, ...] = Field(default=("write_file", "edit_file"), min_length=1)
    file_patterns: tuple[Pattern, ...] = Field(default=("*.py", "*.pyi"), min_length=1)
    checks: Annotated[tuple[CheckName, ...], AfterValidator(_unique)] = CHECKS
    commands: Commands = Commands()
    args: CheckArgs = CheckArgs()
    timeout: float = Field(default=30.0, gt=0, le=3600)
    max_issues: int = Field(default=10, ge=1, le=1000)
    format_diff: bool = False
    max_diff_lines: int = Field(default=40, ge=1, le=10_000)
    stub_markers: tuple[Marker, ...] = ("TODO", "FIXME", "XXX")
    report_clean: bool = False
    mypy_daemon: bool = True
    working_dir: Annotated[str, Field(min_length=1)] | None = None
    priority: int = 50

    def runs(self, check: Check) -> bool:
        """Whether ``check`` is switched on."""
        return check in self.checks


def parse_config(raw: Any) -> PythonCheckConfig:
    """Validate ``raw``; errors name the module, the key path and what was expected."""
    return validate_config(PythonCheckConfig, raw, owner=MODULE_ID)
