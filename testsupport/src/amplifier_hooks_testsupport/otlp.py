"""A real OTLP/HTTP trace receiver on loopback, in place of a collector: it decodes the
protobuf requests exporters POST to ``/v1/traces`` and keeps each span's name and
attributes.

Needs ``opentelemetry-proto`` (installed with hooks-otel), imported when a receiver is made.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OtlpReceiver", "ReceivedSpan"]


@dataclass(frozen=True, slots=True)
class ReceivedSpan:
    """One span as received: its name and its attributes as plain values."""

    name: str
    attributes: dict[str, Any]


def _plain(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_plain(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


class OtlpReceiver:
    """``with OtlpReceiver() as receiver:`` listens on ``receiver.endpoint`` (a base URL, as
    hooks-otel's ``endpoint`` takes it) until the block ends; ``receiver.spans`` is what
    arrived, in order."""

    def __init__(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        self.spans: list[ReceivedSpan] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    received = [
                        ReceivedSpan(span.name, {a.key: _plain(a.value) for a in span.attributes})
                        for resource in request.resource_spans
                        for scope in resource.scope_spans
                        for span in scope.spans
                    ]
                    with receiver._lock:
                        receiver.spans.extend(received)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="otlp-receiver"
        )

    def taken(self) -> list[ReceivedSpan]:
        """The spans received so far, which are forgotten."""
        with self._lock:
            spans, self.spans = self.spans, []
        return spans

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
