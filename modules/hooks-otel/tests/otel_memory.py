"""An export pipeline into the SDK's in-memory span exporter and metric reader."""

from __future__ import annotations

import importlib.util

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from amplifier_module_hooks_otel import Pipeline

__all__ = ["Memory", "needs_redaction"]

needs_redaction = pytest.mark.skipif(
    importlib.util.find_spec("amplifier_hooks_redact") is None,
    reason="amplifier-hooks-redact is not installed (its rules redact the attributes)",
)


class Memory:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.reader = InMemoryMetricReader()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.pipeline = Pipeline(tracer_provider, MeterProvider(metric_readers=[self.reader]))

    def finished(self) -> list[object]:
        return list(self.spans.get_finished_spans())

    def metrics(self) -> dict[str, list[tuple[dict[str, object], object]]]:
        found: dict[str, list[tuple[dict[str, object], object]]] = {}
        data = self.reader.get_metrics_data()
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.data.data_points:
                        value = getattr(point, "value", None)
                        if value is None:
                            value = getattr(point, "count", None)
                        found.setdefault(metric.name, []).append(
                            (dict(point.attributes or {}), value)
                        )
        return found
