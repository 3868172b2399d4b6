"""The export pipeline: providers, batching processors and OTLP exporters built from the config.

Nothing here blocks emit: spans and log records go to a bounded queue that a background thread
exports in batches (the SDK's batch processors), metrics are collected by a periodic reader.
An exporter that fails (a collector that is down or slow) costs a counted drop, reported once
in the log; later drops are only counted (:attr:`Pipeline.dropped`). What the exporter library
logs itself (its retry warnings, its failure lines) is routed through this module's logger
(:func:`route_exporter_logs`): at debug level for spans, whose drops the one line reports; the
first line of a metric or log exporter as one ``hooks-otel: metric export failed (...)``
warning, the rest at debug level.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .config import MODULE_ID, OtelConfig

if TYPE_CHECKING:  # the SDK is imported where a provider or an exporter is built
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.sdk.trace.sampling import Sampler

__all__ = ["EXPORTER_LOGGER", "Pipeline", "build_pipeline", "route_exporter_logs"]

logger = logging.getLogger("amplifier_module_hooks_otel")

EXPORTER_LOGGER = "opentelemetry.exporter"
"""The logger (and its children) the OTLP exporters write their retries and failures to."""


class _Routed(logging.Handler):
    """Takes the exporter library's records off the root logger and says them in this
    module's words: span export at debug (the drop line reports it), the first metric or log
    export failure as one warning, the rest at debug."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self._warned: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = " ".join(record.getMessage().split())
        except Exception:  # a record whose arguments do not format: never break the exporter
            text = str(record.msg)
        signal = "metric" if "metric" in record.name else "log" if "_log" in record.name else ""
        if signal and record.levelno >= logging.WARNING and signal not in self._warned:
            self._warned.add(signal)
            logger.warning(
                "%s: %s export failed (%s); the session goes on, further failures are logged "
                "at debug level",
                MODULE_ID,
                signal,
                text,
            )
            return
        logger.debug("%s: exporter: %s", MODULE_ID, text)


def route_exporter_logs() -> None:
    """Route what the OTLP exporters log through this module's logger (module docstring);
    once per process, whoever builds the next pipeline."""
    exporters = logging.getLogger(EXPORTER_LOGGER)
    if not any(isinstance(h, _Routed) for h in exporters.handlers):
        exporters.addHandler(_Routed())
    exporters.propagate = False


class DropCounter:
    """Spans or records an exporter could not deliver: counted, the first failure logged;
    and those it delivered."""

    def __init__(self, signal: str, target: str) -> None:
        self.signal = signal
        self.target = target
        self.dropped = 0
        self.exported = 0
        self._reported = False
        self._lock = threading.Lock()

    def drop(self, count: int, why: str) -> None:
        with self._lock:
            self.dropped += count
            first = not self._reported
            self._reported = True
        if first:
            logger.warning(
                "%s: %s export to %s failed (%s): %d dropped; the session goes on, further "
                "drops are counted, not logged",
                MODULE_ID,
                self.signal,
                self.target,
                why,
                count,
            )


@dataclass
class Pipeline:
    """What a mount exports through; ``shutdown`` flushes (bounded) and stops it."""

    tracer_provider: TracerProvider | None
    meter_provider: MeterProvider | None
    logger_provider: Any = None  # opentelemetry.sdk._logs.LoggerProvider (a private module)
    counters: list[DropCounter] = field(default_factory=list)
    owned: bool = True

    @property
    def dropped(self) -> int:
        return sum(c.dropped for c in self.counters)

    @property
    def exported(self) -> int:
        return sum(c.exported for c in self.counters)

    def shutdown(self, bound: float | None = None) -> bool:
        """Flush and stop the providers, waiting at most ``bound`` seconds (``None``: until
        done). Past the bound the flush goes on in a daemon thread and this returns ``False``:
        a collector that is down never holds the session's end for the exporter's retries."""
        if not self.owned:
            return True
        if bound is None:
            self._shutdown()
            return True
        worker = threading.Thread(target=self._shutdown, name="hooks-otel-shutdown", daemon=True)
        worker.start()
        worker.join(bound)
        if worker.is_alive():
            logger.warning(
                "%s: telemetry not flushed within %gs (is the collector up?); the flush goes on "
                "in the background and what it cannot deliver is dropped",
                MODULE_ID,
                bound,
            )
            return False
        return True

    def _shutdown(self) -> None:
        for provider in (self.tracer_provider, self.meter_provider, self.logger_provider):
            if provider is None:
                continue
            try:
                provider.shutdown()
            except Exception as err:  # shutting down telemetry never fails the session
                logger.warning("%s: shutdown of %s failed: %s", MODULE_ID, provider, err)


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def signal_exporter(config: OtelConfig, signal: str) -> str:
    """``otlp``, ``console`` or ``none`` for ``signal`` (traces, metrics, logs)."""
    if config.exporter is not None:
        return config.exporter
    value = _env(f"OTEL_{signal.upper()}_EXPORTER")
    return value.split(",")[0].strip().lower() if value else "otlp"


def protocol(config: OtelConfig, signal: str) -> str:
    return (
        config.protocol
        or _env(f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL")
        or _env("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    )


def resource(config: OtelConfig) -> Resource:
    """Service name and resource attributes; ``OTEL_RESOURCE_ATTRIBUTES`` and
    ``OTEL_SERVICE_NAME`` apply where the config does not set a key."""
    from opentelemetry.sdk.resources import Resource

    attributes: dict[str, str | int | float | bool] = dict(config.resource_attributes)
    if config.service_name:
        attributes["service.name"] = config.service_name
    elif not _env("OTEL_SERVICE_NAME") and "service.name=" not in (
        _env("OTEL_RESOURCE_ATTRIBUTES") or ""
    ):
        attributes.setdefault("service.name", "amplifier")
    return Resource.create(attributes)


def sampler(config: OtelConfig) -> Sampler | None:
    """The configured sampler, or ``None`` for the SDK's (``OTEL_TRACES_SAMPLER``)."""
    if config.sampler is None:
        return None
    from opentelemetry.sdk.trace.sampling import (
        ALWAYS_OFF,
        ALWAYS_ON,
        ParentBased,
        TraceIdRatioBased,
    )

    ratio = 1.0 if config.sampler_arg is None else config.sampler_arg
    chosen: dict[str, Sampler] = {
        "always_on": ALWAYS_ON,
        "always_off": ALWAYS_OFF,
        "traceidratio": TraceIdRatioBased(ratio),
        "parentbased_always_on": ParentBased(ALWAYS_ON),
        "parentbased_always_off": ParentBased(ALWAYS_OFF),
        "parentbased_traceidratio": ParentBased(TraceIdRatioBased(ratio)),
    }
    return chosen[config.sampler]


def _endpoint(config: OtelConfig, kind: str, path: str) -> str | None:
    """The config's endpoint for one signal: a base URL, to which the HTTP exporters add
    ``/v1/<signal>`` as they do for ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    if config.endpoint is None:
        return None
    if kind == "grpc":
        return config.endpoint
    return config.endpoint.rstrip("/") + path


def span_exporter(config: OtelConfig) -> tuple[SpanExporter, str] | None:
    kind = signal_exporter(config, "traces")
    if kind == "none":
        return None
    if kind == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(), "console"
    headers = dict(config.headers) or None
    if protocol(config, "traces") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        endpoint = _endpoint(config, "grpc", "")
        grpc_exporter = GrpcSpanExporter(
            endpoint=endpoint, headers=headers, timeout=config.timeout_s
        )
        return grpc_exporter, endpoint or _env("OTEL_EXPORTER_OTLP_ENDPOINT") or "grpc default"
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    endpoint = _endpoint(config, "http", "/v1/traces")
    exporter = OTLPSpanExporter(endpoint=endpoint, headers=headers, timeout=config.timeout_s)
    return exporter, endpoint or _env("OTEL_EXPORTER_OTLP_ENDPOINT") or "http default"


def metric_reader(config: OtelConfig) -> MetricReader | None:
    kind = signal_exporter(config, "metrics")
    if kind == "none":
        return None
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

    interval = config.metric_interval_ms
    if kind == "console":
        from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

        return PeriodicExportingMetricReader(ConsoleMetricExporter(), interval)
    headers = dict(config.headers) or None
    if protocol(config, "metrics") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (
            OTLPMetricExporter as GrpcMetricExporter,
        )

        grpc_exporter = GrpcMetricExporter(
            endpoint=_endpoint(config, "grpc", ""), headers=headers, timeout=config.timeout_s
        )
        return PeriodicExportingMetricReader(grpc_exporter, interval)
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    exporter = OTLPMetricExporter(
        endpoint=_endpoint(config, "http", "/v1/metrics"), headers=headers, timeout=config.timeout_s
    )
    return PeriodicExportingMetricReader(exporter, interval)


def log_processor(config: OtelConfig) -> Any:
    """A batch processor of OTel log records, or ``None``."""
    kind = signal_exporter(config, "logs")
    if kind == "none":
        return None
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

    exporter: Any
    if kind == "console":
        from opentelemetry.sdk._logs.export import ConsoleLogRecordExporter

        exporter = ConsoleLogRecordExporter()
    elif protocol(config, "logs") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc._log_exporter import (
            OTLPLogExporter as GrpcLogExporter,
        )

        exporter = GrpcLogExporter(
            endpoint=_endpoint(config, "grpc", ""),
            headers=dict(config.headers) or None,
            timeout=config.timeout_s,
        )
    else:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        exporter = OTLPLogExporter(
            endpoint=_endpoint(config, "http", "/v1/logs"),
            headers=dict(config.headers) or None,
            timeout=config.timeout_s,
        )
    return BatchLogRecordProcessor(exporter, max_queue_size=config.max_queue_size)


def build_pipeline(
    config: OtelConfig,
    *,
    span_exporter_override: SpanExporter | None = None,
    metric_reader_override: MetricReader | None = None,
    log_processor_override: Any = None,
) -> Pipeline:
    """Providers for ``config``; the overrides replace the exporters (tests, benches)."""
    route_exporter_logs()
    made: list[Resource] = []

    def res() -> Resource:  # one resource for every provider, made with the first
        if not made:
            made.append(resource(config))
        return made[0]

    counters: list[DropCounter] = []
    tracer_provider: TracerProvider | None = None
    if config.traces:
        built = (
            (span_exporter_override, "override")
            if span_exporter_override is not None
            else span_exporter(config)
        )
        if built is not None:
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            from .counting import CountingSpanExporter

            inner, target = built
            counter = DropCounter("span", target)
            counters.append(counter)
            tracer_provider = TracerProvider(
                resource=res(), sampler=sampler(config), shutdown_on_exit=False
            )
            tracer_provider.add_span_processor(
                BatchSpanProcessor(
                    CountingSpanExporter(inner, counter),
                    max_queue_size=config.max_queue_size,
                    schedule_delay_millis=config.schedule_delay_ms,
                )
            )
    meter_provider: MeterProvider | None = None
    if config.metrics:
        reader = metric_reader_override or metric_reader(config)
        if reader is not None:
            from opentelemetry.sdk.metrics import MeterProvider

            meter_provider = MeterProvider(
                metric_readers=[reader], resource=res(), shutdown_on_exit=False
            )
    logger_provider: Any = None
    if config.logs:
        processor = log_processor_override or log_processor(config)
        if processor is not None:
            from opentelemetry.sdk._logs import LoggerProvider

            logger_provider = LoggerProvider(resource=res(), shutdown_on_exit=False)
            logger_provider.add_log_record_processor(processor)
    return Pipeline(tracer_provider, meter_provider, logger_provider, counters)
