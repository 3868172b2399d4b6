"""A real OTLP/HTTP receiver on loopback: decodes what exporters POST (protobuf) and keeps it.

Used by the whole-session tests and the bench in place of a collector.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

__all__ = ["Receiver", "Span"]


class Span:
    """One received span, its attributes as plain values."""

    def __init__(self, raw: Any) -> None:
        self.name: str = raw.name
        self.trace_id: str = raw.trace_id.hex()
        self.span_id: str = raw.span_id.hex()
        self.parent_id: str = raw.parent_span_id.hex()
        self.status_code: int = raw.status.code
        self.status_message: str = raw.status.message
        self.start: int = raw.start_time_unix_nano
        self.end: int = raw.end_time_unix_nano
        self.attributes: dict[str, Any] = {a.key: _value(a.value) for a in raw.attributes}
        self.events: list[tuple[str, dict[str, Any]]] = [
            (e.name, {a.key: _value(a.value) for a in e.attributes}) for e in raw.events
        ]

    def __repr__(self) -> str:
        return f"Span({self.name!r}, {self.attributes})"


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


class Receiver:
    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.metric_names: set[str] = set()
        self.requests = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.requests += 1
                    if self.path == "/v1/traces":
                        request = ExportTraceServiceRequest.FromString(body)
                        for resource in request.resource_spans:
                            for scope in resource.scope_spans:
                                receiver.spans.extend(Span(s) for s in scope.spans)
                    elif self.path == "/v1/metrics":
                        metrics = ExportMetricsServiceRequest.FromString(body)
                        for resource in metrics.resource_metrics:
                            for scope in resource.scope_metrics:
                                receiver.metric_names.update(m.name for m in scope.metrics)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class GrpcReceiver:
    """A real OTLP/gRPC trace receiver on loopback (the collector's TraceService)."""

    def __init__(self) -> None:
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceResponse,
        )

        self.spans: list[Span] = []
        receiver = self

        class Service(trace_service_pb2_grpc.TraceServiceServicer):  # type: ignore[misc]
            def Export(self, request: Any, context: Any) -> Any:
                for resource in request.resource_spans:
                    for scope in resource.scope_spans:
                        receiver.spans.extend(Span(s) for s in scope.spans)
                return ExportTraceServiceResponse()

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Service(), self.server)
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.endpoint = f"http://127.0.0.1:{port}"

    def __enter__(self) -> GrpcReceiver:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop(grace=None)
