"""The span exporter wrapper that counts what an exporter could not deliver.

Apart from :mod:`.pipeline` because it subclasses the SDK's ``SpanExporter``: it is imported
(and the SDK with it) when a tracer provider is built, not when the module is mounted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["CountingSpanExporter", "Drops"]


class Drops(Protocol):
    """Where the counts go (:class:`~.pipeline.DropCounter`)."""

    exported: int

    def drop(self, count: int, why: str) -> None: ...


class CountingSpanExporter(SpanExporter):
    """Wraps an exporter: a failed or raising export is a counted drop, never an exception."""

    def __init__(self, inner: SpanExporter, counter: Drops) -> None:
        self.inner = inner
        self.counter = counter

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as err:  # an exporter bug must not kill the export thread
            self.counter.drop(len(spans), f"{type(err).__name__}: {err}")
            return SpanExportResult.FAILURE
        if result is not SpanExportResult.SUCCESS:
            self.counter.drop(len(spans), "the exporter reported a failure")
        else:
            self.counter.exported += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)
