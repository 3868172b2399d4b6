"""The module's configuration, validated so that a typo is an error, not a silent default.

Errors read ``hooks-redaction: config: <key path>: <what was expected>``, for example
``hooks-redaction: config: allowlist.patterns[1]: not a valid regular expression (...)``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Annotated, Any, Final, Literal

from amplifier_hooks_util.config_errors import validate_config
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from .paths import parse_path
from .rules import BUILTIN_RULES, RULE_SETS

__all__ = [
    "DEFAULT_ALLOWED_PATHS",
    "DEFAULT_EVENTS",
    "MODULE_ID",
    "AllowlistConfig",
    "RedactionConfig",
    "parse_config",
]

MODULE_ID: Final = "hooks-redaction"
DEFAULT_EVENTS: Final = ("prompt:submit", "provider:request", "tool:post", "tool:error")
DEFAULT_ALLOWED_PATHS: Final = ("session_id", "parent_id", "timestamp")
"""Envelope fields the kernel sets on every event; always exempt, whatever the config says."""

_BUILTIN_NAMES: Final = tuple(rule.name for rule in BUILTIN_RULES)
_RULE_NAME: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")


def _event_name(value: str) -> str:
    if not value.strip() or value != value.strip():
        raise ValueError(f"expected an event name such as 'tool:post', got {value!r}")
    return value


def _rule_reference(value: str) -> str:
    if value not in RULE_SETS and value not in _BUILTIN_NAMES:
        known = ", ".join([*RULE_SETS, *_BUILTIN_NAMES])
        raise ValueError(f"unknown rule or rule set {value!r}; expected one of: {known}")
    return value


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as err:
        raise ValueError(f"not a valid regular expression ({err}): {value!r}") from err
    return value


_EMPTY_PROBE = "x0 _-./:;=@,\n\tXy9 word"
"""Text where a pattern that matches nothing at some places (``\\b``, ``(?=y)``) shows it."""


def _custom_pattern(value: str) -> str:
    _regex(value)
    compiled = re.compile(value)
    if compiled.match("") is not None or any(
        found.end() == found.start() for found in compiled.finditer(_EMPTY_PROBE)
    ):
        raise ValueError(f"pattern {value!r} matches the empty string; it must match some text")
    return value


def _key_path(value: str) -> str:
    parse_path(value)
    return value


def _template(value: str) -> str:
    hint = "write {rule} for the rule name and {{ }} for literal braces"
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
    except ValueError as err:
        raise ValueError(f"{value!r} is not a valid template ({err}); {hint}") from err
    unknown = sorted(fields - {"rule"})
    if unknown:
        raise ValueError(
            f"unknown placeholder {{{unknown[0]}}} in {value!r}; only {{rule}} is available"
        )
    try:
        value.format(rule="rule")
    except (ValueError, IndexError, KeyError) as err:
        raise ValueError(f"{value!r} is not a valid template ({err}); {hint}") from err
    return value


def _custom_rule_name(value: str) -> str:
    if _RULE_NAME.fullmatch(value) is None:
        raise ValueError(
            f"rule name {value!r} must be lower case letters, digits and _ (a-z first)"
        )
    if value in _BUILTIN_NAMES or value in RULE_SETS:
        raise ValueError(f"rule name {value!r} is already a built-in rule or rule set")
    return value


EventName = Annotated[str, AfterValidator(_event_name)]
RuleReference = Annotated[str, AfterValidator(_rule_reference)]
Regex = Annotated[str, AfterValidator(_regex)]
KeyPath = Annotated[str, AfterValidator(_key_path)]
CustomRuleName = Annotated[str, AfterValidator(_custom_rule_name)]
CustomPattern = Annotated[str, AfterValidator(_custom_pattern)]


class AllowlistConfig(BaseModel):
    """What is never redacted: exact values, values matching a regex, and key paths."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    values: tuple[str, ...] = ()
    patterns: tuple[Regex, ...] = ()
    paths: tuple[KeyPath, ...] = ()


class RedactionConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    events: tuple[EventName, ...] = Field(default=DEFAULT_EVENTS, min_length=1)
    rules: tuple[RuleReference, ...] = ("secrets", "pii")
    disabled_rules: tuple[str, ...] = ()
    custom_rules: dict[CustomRuleName, CustomPattern] = Field(default_factory=dict)
    allowlist: AllowlistConfig = AllowlistConfig()
    replacement: Annotated[str, AfterValidator(_template)] = Field(
        default="[REDACTED:{rule}]", min_length=1
    )
    counts_key: Annotated[str, Field(min_length=1)] | None = "redaction"
    notify: bool = True
    notify_level: Literal["info", "warning", "error"] = "info"
    priority: int = -2000
    fail_closed: bool = False
    guard_context: bool = True
    guard_providers: bool = True

    @field_validator("allowlist", mode="before")
    @classmethod
    def _paths_list(cls, value: Any) -> Any:
        """An allowlist written as a plain list means key paths (the older bundle form)."""
        if isinstance(value, list | tuple):
            return {"paths": list(value)}
        return value

    @model_validator(mode="after")
    def _rules_exist(self) -> RedactionConfig:
        known = (*_BUILTIN_NAMES, *self.custom_rules)
        for index, name in enumerate(self.disabled_rules):
            if name not in known:
                raise ValueError(
                    f"disabled_rules[{index}]: unknown rule {name!r}; expected one of: "
                    + ", ".join(known)
                )
        if not self.enabled_rules():
            raise ValueError(
                "rules: no rule is left to apply (rules is empty or every rule is disabled)"
            )
        return self

    def enabled_rules(self) -> tuple[str, ...]:
        """Names of the rules to apply, custom rules first, then built-ins in their order."""
        wanted: set[str] = set()
        for reference in self.rules:
            wanted.update(RULE_SETS.get(reference, (reference,)))
        disabled = set(self.disabled_rules)
        builtins = (name for name in _BUILTIN_NAMES if name in wanted and name not in disabled)
        custom = (name for name in self.custom_rules if name not in disabled)
        return (*custom, *builtins)


_FIELDS: Final[dict[tuple[str, ...], Sequence[str]]] = {
    (): tuple(RedactionConfig.model_fields),
    ("allowlist",): tuple(AllowlistConfig.model_fields),
}


def parse_config(raw: Any) -> RedactionConfig:
    """Validate ``raw`` (``None`` means every default); a mistake raises ``ConfigError`` (a
    ``ValueError``) naming each key path with what was expected."""
    return validate_config(RedactionConfig, raw, owner=MODULE_ID)
