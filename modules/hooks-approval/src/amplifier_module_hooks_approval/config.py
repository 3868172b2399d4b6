"""The module's configuration, validated so that a typo is an error, not a silent default.

Errors read ``hooks-approval: config: <key path>: <what was expected>``, for example
``hooks-approval: config: rules[1].command_regex[0]: not a valid regular expression (...)``.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypeAlias

from amplifier_hooks_util.config_errors import validate_config
from amplifier_hooks_util.state import TEMPLATE_FIELDS, check_template
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

from .patterns import compile_path_glob, compile_regex
from .shell import OPERATORS

__all__ = [
    "DEFAULT_AUDIT_LOG",
    "DEFAULT_OPTIONS",
    "DEFAULT_TOOLS",
    "MODULE_ID",
    "Action",
    "ApprovalConfig",
    "RuleConfig",
    "parse_config",
]

MODULE_ID: Final = "hooks-approval"
DEFAULT_TOOLS: Final = ("bash", "write_file", "edit_file")
DEFAULT_OPTIONS: Final = ("Allow once", "Allow always", "Deny")
DEFAULT_AUDIT_LOG: Final = "{session_dir}/approvals.jsonl"
AUDIT_PLACEHOLDERS: Final = TEMPLATE_FIELDS

Action: TypeAlias = Literal["allow", "ask", "deny"]


def _as_tuple(value: Any) -> Any:
    """A single string where a list is expected means a list of that one string."""
    return (value,) if isinstance(value, str) else value


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must be a non-empty string")
    return value


def _regex(value: str) -> str:
    compile_regex(value)
    return value


def _path_glob(value: str) -> str:
    compile_path_glob(value)
    return value


def _operator(value: str) -> str:
    if value not in OPERATORS:
        raise ValueError(
            f"unknown shell operator {value!r}; expected one of: {' '.join(OPERATORS)}"
        )
    return value


def _audit_template(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.strip():
        raise ValueError("must be a path template, or null to turn the audit log off")
    return check_template(value)


NonBlank = Annotated[str, AfterValidator(_non_blank)]
Strings = Annotated[tuple[NonBlank, ...], BeforeValidator(_as_tuple)]
Regexes = Annotated[tuple[Annotated[str, AfterValidator(_regex)], ...], BeforeValidator(_as_tuple)]
PathGlobs = Annotated[
    tuple[Annotated[str, AfterValidator(_path_glob)], ...], BeforeValidator(_as_tuple)
]
Operators = Annotated[
    tuple[Annotated[str, AfterValidator(_operator)], ...], BeforeValidator(_as_tuple)
]


class RuleConfig(BaseModel):
    """One rule: which calls it matches and what it decides (README: "Rules")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Action
    name: NonBlank | None = None
    tools: Strings = Field(default=("*",), min_length=1)
    command: Strings = ()
    command_regex: Regexes = ()
    path: PathGlobs = ()
    path_regex: Regexes = ()
    allow_operators: bool | Operators = False
    allow_flags: bool | Strings = False
    reason: NonBlank | None = None

    @model_validator(mode="after")
    def _operators_only_on_allow(self) -> RuleConfig:
        if self.allow_operators not in (False, ()) and self.action != "allow":
            raise ValueError(
                f"allow_operators: only an allow rule can allow shell operators; this rule's "
                f"action is {self.action!r}, and {self.action} rules already match commands "
                "with operators"
            )
        if self.allow_flags not in (False, ()) and self.action != "allow":
            raise ValueError(
                f"allow_flags: only an allow rule can allow writing options; this rule's "
                f"action is {self.action!r}"
            )
        return self

    def allowed_flags(self) -> frozenset[str] | None:
        """The writing options this rule lets through (``None``: all of them, for ``true``)."""
        if self.allow_flags is True:
            return None
        if self.allow_flags is False:
            return frozenset()
        return frozenset(self.allow_flags)

    def allowed_operators(self) -> frozenset[str]:
        """The operator names this rule lets through (all of them for ``true``)."""
        if self.allow_operators is True:
            return frozenset(OPERATORS)
        if self.allow_operators is False:
            return frozenset()
        return frozenset(self.allow_operators)


class ApprovalConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tools: Strings = DEFAULT_TOOLS
    default_action: Action = "ask"
    other_tools_action: Action = "allow"
    builtin_rules: bool = True
    rules: tuple[RuleConfig, ...] = ()
    approval_options: Strings = Field(default=DEFAULT_OPTIONS, min_length=1)
    approval_timeout: float = Field(default=300.0, gt=0)
    approval_default: Literal["allow", "deny"] = "deny"
    audit_log: Annotated[str | None, AfterValidator(_audit_template)] = DEFAULT_AUDIT_LOG
    redact_audit_log: bool = True
    emit_approval_events: bool = True
    max_command_chars: int = Field(default=2000, ge=80)
    preview_lines: int = Field(default=10, ge=0)
    preview_line_chars: int = Field(default=200, ge=20)
    priority: int = 900
    fail_closed: bool = True
    decision_timeout: float = Field(default=2.0, ge=0)
    decision_steps: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _names_unique(self) -> ApprovalConfig:
        seen: dict[str, int] = {}
        for index, rule in enumerate(self.rules):
            if rule.name is None:
                continue
            if rule.name.startswith("builtin:"):
                raise ValueError(
                    f"rules[{index}].name: {rule.name!r} is reserved for built-in rules "
                    "(names starting with 'builtin:')"
                )
            if rule.name in seen:
                raise ValueError(
                    f"rules[{index}].name: {rule.name!r} is already the name of "
                    f"rules[{seen[rule.name]}]; rule names must be unique"
                )
            seen[rule.name] = index
        if len(set(self.approval_options)) != len(self.approval_options):
            raise ValueError(f"approval_options: {list(self.approval_options)} repeats an option")
        return self


def parse_config(raw: Any) -> ApprovalConfig:
    """Validate ``raw`` (``None`` means every default).

    Raises :class:`~amplifier_hooks_util.config_errors.ConfigError` (a ``ValueError``) whose
    message starts with ``hooks-approval: config:`` and names each offending key path with what
    was expected.
    """
    return validate_config(ApprovalConfig, raw, owner=MODULE_ID)
