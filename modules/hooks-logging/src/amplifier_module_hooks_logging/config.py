"""The configuration of hooks-logging: one pydantic model and the parser that names bad keys.

Every key is documented in the README's config table. Unknown keys are rejected; a few names
used by the Amplifier ecosystem's own logging hook are accepted as aliases
(``session_log_template`` for ``path``, ``exclude_events`` for ``exclude``) so that existing
bundles keep working. ``additional_events``, the key Amplifier's foundation and application
append their event names to in every logging hook's config, is merged with ``extra_events``
when both are given (each name once, ``extra_events`` first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from amplifier_hooks_util.config_errors import validate_config
from amplifier_hooks_util.state import TEMPLATE_FIELDS, check_template
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "DEFAULT_PATH",
    "LEVELS",
    "PATH_PLACEHOLDERS",
    "Level",
    "LoggingConfig",
    "parse_config",
]

Level = Literal["debug", "info", "warning", "error"]

#: Record levels, lowest first; ``level`` in the config is the lowest one written.
LEVELS: Final[tuple[Level, ...]] = ("debug", "info", "warning", "error")

#: Where events go unless ``path`` says otherwise.
DEFAULT_PATH: Final = "{session_dir}/events.jsonl"

#: The placeholders a ``path`` template may use (see ``amplifier_hooks_util.state``).
PATH_PLACEHOLDERS: Final = TEMPLATE_FIELDS

MODULE_ID: Final = "hooks-logging"


def _check_template(template: str) -> str:
    """Reject templates with unknown, positional or formatted placeholders."""
    return check_template(template)


class LoggingConfig(BaseModel):
    """Validated configuration of one mounted hooks-logging instance."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)

    path: str = Field(
        default=DEFAULT_PATH, validation_alias=AliasChoices("path", "session_log_template")
    )
    """Path template of the JSONL file; ``{session_dir}``, ``{state}``, ``{project}``,
    ``{session_id}``, ``{home}``, ``~``."""

    level: Level = "info"
    """Lowest record level written; debug events are written only at ``debug``."""

    include: list[str] = Field(default_factory=lambda: ["*"])
    """fnmatch patterns of event names to write (case-sensitive)."""

    exclude: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("exclude", "exclude_events")
    )
    """fnmatch patterns of event names never written; wins over ``include``."""

    debug_events: list[str] = Field(default_factory=list)
    """Event names or patterns treated as debug events, besides names containing ``:debug``."""

    extra_events: list[str] = Field(default_factory=list)
    """Event names subscribed by name on kernels without wildcard subscriptions; with
    ``additional_events`` (Amplifier's key) merged in."""

    redact_values: bool = True
    """Run hooks-redaction's rules over every string written (the data's own and the text
    conversions make), besides masking the values of secret-looking keys."""

    redact_on_writer: bool = True
    """Decide the redaction of plain JSON data on the writer thread, a batch at a time (about
    twice the events per second), instead of in the emit; ``false`` decides every event in
    the emit. Either way nothing unredacted is written."""

    auto_discover: bool = True
    """On kernels without wildcards, also subscribe the ``observability.events`` capability."""

    redact_keys: list[str] = Field(default_factory=list)
    """More secret-looking key words to mask, besides the built-in ones."""

    bytes_format: Literal["utf8", "base64"] = "utf8"
    """How bytes values are written: readable UTF-8 text, or lossless base64."""

    max_bytes: int = Field(default=0, ge=0)
    """Rotate a file before it would grow past this many bytes; 0 turns rotation off."""

    backups: int = Field(default=5, ge=0)
    """Rotated files kept (``events.jsonl.1`` is the newest); 0 keeps none."""

    queue_size: int = Field(default=10_000, ge=1)
    """Records held in memory for the writer before emit has to wait."""

    block_timeout: float = Field(default=10.0, gt=0)
    """Seconds emit waits for room in a full queue before it drops (and counts) a record."""

    priority: int = -1000
    """Handler priority; low so that the record is taken before any handler can deny."""

    @model_validator(mode="before")
    @classmethod
    def _merge_additional_events(cls, raw: Any) -> Any:
        """``additional_events`` (Amplifier's key) and ``extra_events`` as one list."""
        if not isinstance(raw, Mapping) or "additional_events" not in raw:
            return raw
        merged = {k: v for k, v in raw.items() if k != "additional_events"}
        additional, extra = raw["additional_events"], raw.get("extra_events", [])
        if isinstance(additional, list) and isinstance(extra, list):
            merged["extra_events"] = list(dict.fromkeys([*extra, *additional]))
        else:  # let the field's own check name the bad value
            merged["extra_events"] = additional if isinstance(extra, list) else extra
        return merged

    @field_validator("level", mode="before")
    @classmethod
    def _lower_level(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("path")
    @classmethod
    def _valid_template(cls, value: str) -> str:
        return _check_template(value)

    @field_validator("include", "exclude", "debug_events", "extra_events", "redact_keys")
    @classmethod
    def _non_empty_names(cls, value: list[str]) -> list[str]:
        for index, item in enumerate(value):
            if not item.strip():
                raise ValueError(f"item {index} must be a non-empty string")
        return value


def parse_config(raw: Mapping[str, Any] | None) -> LoggingConfig:
    """Validate ``raw`` (``None`` means every default); a mistake raises ``ConfigError`` (a
    ``ValueError``) naming each key path with what was expected."""
    return validate_config(LoggingConfig, raw, owner=MODULE_ID)
