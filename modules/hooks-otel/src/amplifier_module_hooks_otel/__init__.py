"""hooks-otel: a session's traces, metrics and (optionally) logs through OpenTelemetry.

Spans per session, turn, provider call and tool call after the GenAI semantic conventions,
plus a span per hook handler run with its decision (from the kernel's handler-run observers),
approvals with the human's answer and the wait, and child sessions in their parent's trace.
Exported over OTLP (http/protobuf or grpc) in batches from a bounded queue; nothing blocks
emit. See ``docs/observability.md`` and this package's README for the config.
"""

from .config import MODULE_ID, OtelConfig, parse_config
from .mount import EVENTS, HOST_HANDLERS_CAPABILITY, TRACEPARENT_CAPABILITY, OtelHooks, mount
from .pipeline import Pipeline, build_pipeline

__all__ = [
    "EVENTS",
    "HOST_HANDLERS_CAPABILITY",
    "MODULE_ID",
    "TRACEPARENT_CAPABILITY",
    "OtelConfig",
    "OtelHooks",
    "Pipeline",
    "build_pipeline",
    "config_schema",
    "mount",
    "parse_config",
]

config_schema = OtelConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
