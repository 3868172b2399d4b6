"""``SessionSettings``: the ``session:`` block of a bundle or a mount plan, typed.

One model for every key a session reads: the kernel's own (``orchestrator``, ``context``,
``injection_size_limit``, ``injection_budget_per_turn``, ``audit_log``, ``receipts``,
``require_guards``, ``hook_timeout``,
``json_event_data``, ``metadata``, ``raw``), the keys an application sets in the mount plan
(``working_dir``, ``base_dir``, ``orchestrator_source``, ``context_source``) and the bundle
keys an application routes to the module that owns them (``max_iterations``,
``checkpoint_dir``, ``checkpoint_every_turn``, ``memory_files``, ``context_max_tokens``,
``tools``; their module's config model checks them). Unknown keys are kept as they are
(``model_extra``), as amplifier-core 2.0.2 keeps them.

Parse a mount plan's block with :meth:`SessionSettings.from_config`; a wrong value raises
:class:`SessionSettingsError` naming the key path and what was expected::

    config key session.hook_timeout: expected seconds > 0 or null (no timeout), got 0
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import AmplifierError

__all__ = ["DEFAULT_HOOK_TIMEOUT", "SessionSettings", "SessionSettingsError"]

DEFAULT_HOOK_TIMEOUT: Final = 60.0
"""Seconds a hook handler may run when ``session.hook_timeout`` is not given."""

_PLAN_ONLY: Final = "plan_only"
_WHOLE: Final = "a whole number >= 0 or null (unlimited)"
_SECONDS: Final = "seconds > 0 or null (no timeout)"
_MODULE: Final = "a module id or a mapping with module, config and source"


def _expect(expected: str, *, plan_only: bool = False, **kwargs: Any) -> Any:
    """A field whose errors say ``expected <expected>``; ``plan_only``: set by the
    application in the mount plan, not written in a bundle."""
    extra: dict[str, Any] = {"expected": expected}
    if plan_only:
        extra[_PLAN_ONLY] = True
    return Field(json_schema_extra=extra, **kwargs)


class SessionSettingsError(AmplifierError, ValueError):
    """A ``session`` setting has the wrong type or value; names its key path."""

    def __init__(self, key: str, expected: str, value: object) -> None:
        where = f"session.{key}" if key else "session"
        super().__init__(f"config key {where}: expected {expected}, got {value!r}")
        self.key = key
        self.expected = expected
        self.value = value


class SessionSettings(BaseModel):
    """The ``session:`` block (see the module docstring). Unknown keys are kept."""

    model_config = ConfigDict(extra="allow", frozen=True)

    orchestrator: str | dict[str, Any] | None = _expect(_MODULE, default=None)
    """The orchestrator module (the turn loop): a module id or ``{module, config, source}``."""
    context: str | dict[str, Any] | None = _expect(_MODULE, default=None)
    """The context manager module: a module id or ``{module, config, source}``."""
    injection_size_limit: int | None = _expect(_WHOLE, default=None)
    """Characters allowed per context injection; null (the default) is unlimited."""
    injection_budget_per_turn: int | None = _expect(_WHOLE, default=None)
    """Estimated tokens of context injections per turn before a warning; null is unlimited."""
    audit_log: str | None = _expect("a file path", default=None)
    """The file the audit trail is appended to (JSON lines)."""
    receipts: bool | None = _expect("true or false", default=None)
    """Whether every hook run leaves a receipt in the audit trail; default: when
    ``audit_log`` is set (:mod:`amplifier_core.receipts`)."""
    require_guards: list[str] = _expect("a list of hook or handler names", default=[])
    """Guards that must run on every tool call they are due on, else the call is refused
    (names or ``fnmatch`` patterns of handlers and declarative hook labels)."""
    hook_timeout: float | None = _expect(_SECONDS, default=DEFAULT_HOOK_TIMEOUT)
    """Seconds a hook handler may run before it counts as failed; null: no limit."""
    json_event_data: bool = _expect("true or false", default=True)
    """Whether handlers see event data JSON-normalised."""
    metadata: Any = _expect("any value", default=None)
    """Carried in ``session:start`` and ``session:fork`` as ``metadata``."""
    raw: bool = _expect("true or false", default=False)
    """Emit ``session:config`` with the whole plan (secrets masked) before every prompt."""
    working_dir: str | None = _expect("a directory path", plan_only=True, default=None)
    """The session's workspace (the capability ``session.working_dir``)."""
    base_dir: str | None = _expect("a directory path", plan_only=True, default=None)
    """The directory relative module sources are resolved against."""
    orchestrator_source: str | None = _expect("a module source", plan_only=True, default=None)
    """Where the orchestrator module's code comes from."""
    context_source: str | None = _expect("a module source", plan_only=True, default=None)
    """Where the context manager module's code comes from."""
    max_iterations: Any = _expect("see the orchestrator's config", default=None)
    """Routed to the orchestrator's config ``max_iterations``."""
    checkpoint_dir: Any = _expect("see the orchestrator's config", default=None)
    """Routed to the orchestrator's config ``checkpoint_dir``."""
    checkpoint_every_turn: Any = _expect("see the orchestrator's config", default=None)
    """Routed to the orchestrator's config ``checkpoint_every_turn``."""
    memory_files: Any = _expect("see the orchestrator's config", default=None)
    """Routed to the orchestrator's config ``memory_files``."""
    context_max_tokens: Any = _expect("see the context manager's config", default=None)
    """Routed to the context manager's config ``max_tokens``."""
    tools: Any = _expect("a mapping of tool settings (bash, files)", default=None)
    """Routed to the tools' config: ``tools.bash`` to tool-bash, ``tools.files`` to
    tool-filesystem."""

    @field_validator("orchestrator", "context", mode="before")
    @classmethod
    def _module(cls, value: Any) -> Any:
        if value is None or isinstance(value, str | Mapping):
            return value
        raise ValueError(f"expected {_MODULE}, got {value!r}")

    @field_validator("injection_size_limit", "injection_budget_per_turn", mode="before")
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"expected {_WHOLE}, got {value!r}")
        return value

    @field_validator("require_guards", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str) or not isinstance(value, list | tuple):
            raise ValueError(f"expected a list of hook or handler names, got {value!r}")
        for name in value:
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"expected a list of hook or handler names, got {value!r}")
        return list(value)

    @property
    def keeps_receipts(self) -> bool:
        """Receipts are kept: ``receipts`` says so, or an audit log is set and ``receipts``
        does not say no, or guards are required (they are checked from the receipts)."""
        if self.require_guards:
            return True
        return self.receipts if self.receipts is not None else self.audit_log is not None

    @field_validator("hook_timeout", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise ValueError(f"expected {_SECONDS}, got {value!r}")
        return float(value)

    @field_validator(
        "audit_log",
        "working_dir",
        "base_dir",
        "orchestrator_source",
        "context_source",
        mode="before",
    )
    @classmethod
    def _path(cls, value: Any) -> Any:
        """A path object is taken as its text (a mount plan built in Python may hold one)."""
        fspath = getattr(value, "__fspath__", None)
        return str(fspath()) if callable(fspath) else value

    @classmethod
    def bundle_keys(cls) -> tuple[str, ...]:
        """The keys a bundle's ``session:`` block may hold (those the application sets in
        the mount plan left out), in declaration order."""
        return tuple(
            name
            for name, field in cls.model_fields.items()
            if not (
                isinstance(field.json_schema_extra, dict)
                and field.json_schema_extra.get(_PLAN_ONLY)
            )
        )

    @classmethod
    def expected(cls, key: str) -> str:
        """What the key ``key`` takes, in words (``"a whole number >= 0 or null ..."``)."""
        field = cls.model_fields.get(key)
        extra = field.json_schema_extra if field is not None else None
        return str(extra.get("expected", "any value")) if isinstance(extra, dict) else "any value"

    @classmethod
    def parse(cls, block: object) -> SessionSettings:
        """The settings of a ``session:`` block (``None`` is an empty block).

        :raises SessionSettingsError: the block is not a mapping, or a key has a wrong value;
            the message names the key path.
        """
        if block is None:
            return cls()
        if isinstance(block, SessionSettings):
            return block
        if not isinstance(block, Mapping):
            raise SessionSettingsError("", "a mapping", type(block).__name__)
        try:
            return cls.model_validate(dict(block))
        except ValidationError as err:
            first = err.errors()[0]
            key = str(first["loc"][0])  # every key is flat; deeper parts name union members
            raise SessionSettingsError(key, cls.expected(key), first["input"]) from err

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SessionSettings:
        """The settings of a mount plan's ``session`` block."""
        return cls.parse(config.get("session"))

    @classmethod
    def of_plan(cls, config: Mapping[str, Any], coordinator: object = None) -> SessionSettings:
        """The settings of the mount plan ``config``: those ``coordinator`` parsed when it
        holds this very plan, else parsed now."""
        settings = getattr(coordinator, "settings", None)
        if isinstance(settings, SessionSettings) and getattr(coordinator, "config", None) is config:
            return settings
        return cls.from_config(config)

    def unexpected_bundle_keys(self) -> list[str]:
        """The keys written in this block that a bundle does not take (unknown ones, and those
        the application sets in the mount plan), in the order written."""
        known = self.bundle_keys()
        return [key for key in self.given() if key not in known]

    @classmethod
    def unexpected_key_message(cls, key: str) -> str:
        """What is wrong with the bundle key ``session.<key>``, with the closest known key."""
        close = difflib.get_close_matches(key, cls.bundle_keys(), n=1)
        return f"unknown session key {key!r}" + (
            f" (did you mean {close[0]!r}?)" if close else "; the session ignores it"
        )

    def given(self) -> dict[str, Any]:
        """The keys the block was written with (unknown ones too), and their values."""
        return self.model_dump(exclude_unset=True)
