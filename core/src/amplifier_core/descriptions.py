"""What modules and sessions describe about themselves: providers, models, setup fields,
modules and a session's status (amplifier-core 2.0.2's description models).

Kept apart from :mod:`amplifier_core.models` so that a hook module importing ``HookResult``
does not pay for them; ``amplifier_core.models`` and ``amplifier_core`` still name them.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field, field_serializer, field_validator

__all__ = ["ConfigField", "ModelInfo", "ModuleInfo", "Pricing", "ProviderInfo", "SessionStatus"]


class Pricing(BaseModel):
    """A model's list price per million tokens (display estimates; costs use Decimal)."""

    input_per_million: float
    output_per_million: float
    cache_read_per_million: float | None = None
    cache_write_per_million: float | None = None
    currency: str = Field(default="USD", description="ISO 4217 code, e.g. USD")

    @field_validator("currency")
    @classmethod
    def _iso_currency(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{3}", value):
            raise ValueError(f"currency must be a 3-letter ISO 4217 code, got {value!r}")
        return value


class ModelInfo(BaseModel):
    """A model a provider offers: its limits, capabilities and defaults."""

    id: str
    display_name: str
    context_window: int
    max_output_tokens: int
    capabilities: list[str] = Field(default_factory=list)
    """E.g. ``tools``, ``vision``, ``thinking``, ``streaming``, ``json_mode``."""
    defaults: dict[str, Any] = Field(default_factory=dict)
    pricing: Pricing | None = None


class ConfigField(BaseModel):
    """One setting a provider asks for during setup, with how to prompt for it."""

    id: str
    display_name: str
    field_type: Literal["text", "secret", "choice", "boolean"] = "text"
    prompt: str
    env_var: str | None = None
    choices: list[str] | None = None
    required: bool = True
    default: str | None = None
    show_when: dict[str, str] | None = None
    """Show only when other fields have these values, e.g. ``{"model": "..."}``."""
    requires_model: bool = False
    """Ask after the model is chosen (so ``show_when`` can name the model)."""


class ProviderInfo(BaseModel):
    """What a provider is: its id, credentials, capabilities, defaults and setup fields."""

    id: str
    display_name: str
    credential_env_vars: list[str] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=list)
    defaults: dict[str, Any] = Field(default_factory=dict)
    config_fields: list[ConfigField] = Field(default_factory=list)


class ModuleInfo(BaseModel):
    """What a module is and where it mounts."""

    id: str
    name: str
    version: str
    type: Literal["orchestrator", "provider", "tool", "context", "hook", "resolver"]
    mount_point: str
    description: str
    config_schema: dict[str, Any] | None = None


class SessionStatus(BaseModel):
    """A session's progress counters, token totals and cost.

    ``cost_usd`` follows the rules of ``Usage.cost_usd``: a Decimal (a float is refused),
    dumped as a string, ``None`` when unknown.
    """

    session_id: str
    started_at: datetime = Field(default_factory=datetime.now)
    ended_at: datetime | None = None
    status: Literal["running", "completed", "failed", "cancelled"] = "running"
    total_messages: int = 0
    tool_invocations: int = 0
    tool_successes: int = 0
    tool_failures: int = 0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    cost_usd: Decimal | None = Field(
        default=None, description="Session cost in USD so far; None when unknown (not zero)."
    )
    last_activity: datetime | None = None
    last_error: dict[str, Any] | None = None

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _refuse_float_cost(cls, value: Any) -> Any:
        if isinstance(value, float):
            raise ValueError(
                f"SessionStatus.cost_usd must be Decimal (or a string or int), not the float "
                f"{value!r}: write Decimal('1.23') so the amount keeps its exact digits"
            )
        return value

    @field_serializer("cost_usd", when_used="always")
    def _cost_as_string(self, value: Decimal | None) -> str | None:
        return None if value is None else str(value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with unset (``None``) fields left out."""
        return self.model_dump(mode="json", exclude_none=True)
