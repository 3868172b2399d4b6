"""The module's configuration: where telemetry goes and what it may carry.

Every key left unset falls back to the standard ``OTEL_*`` environment variable the
OpenTelemetry SDK reads (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``..._PROTOCOL``, ``..._HEADERS``,
``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_SAMPLER`` and its argument,
``OTEL_BSP_*``, ``OTEL_METRIC_EXPORT_INTERVAL``, ``OTEL_{TRACES,METRICS,LOGS}_EXPORTER``,
``OTEL_SDK_DISABLED``), then to the SDK's default.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["MODULE_ID", "OtelConfig", "parse_config"]

MODULE_ID = "hooks-otel"

Protocol = Literal["http/protobuf", "grpc"]
Exporter = Literal["otlp", "console", "none"]
Sampler = Literal[
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
]


class OtelConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    exporter: Exporter | None = None
    endpoint: str | None = None
    protocol: Protocol | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_s: float | None = Field(default=None, gt=0)
    service_name: str | None = None
    resource_attributes: dict[str, str | int | float | bool] = Field(default_factory=dict)
    sampler: Sampler | None = None
    sampler_arg: float | None = Field(default=None, ge=0, le=1)
    traces: bool = True
    metrics: bool = True
    logs: bool = False
    hook_spans: bool = True
    capture_content: bool = False
    max_content_chars: int = Field(default=4096, gt=0)
    redaction: Literal["auto", "off"] = "auto"
    max_queue_size: int | None = Field(default=None, gt=0)
    schedule_delay_ms: int | None = Field(default=None, gt=0)
    metric_interval_ms: int | None = Field(default=None, gt=0)
    inherit_traceparent: bool = True
    shutdown_timeout_s: float = Field(default=3.0, gt=0)


def parse_config(raw: dict[str, Any] | None) -> OtelConfig:
    """Validate ``raw``; errors name the module, the key path and what was expected."""
    try:
        return OtelConfig.model_validate(raw or {})
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or '<root>'}: {e['msg']}"
            for e in err.errors()
        )
        raise ValueError(f"{MODULE_ID}: config: {problems}") from err
