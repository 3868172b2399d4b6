"""Configuration: the keys, the standard OTEL_* variables, both OTLP protocols, logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otel_memory import needs_redaction
from otel_receiver import GrpcReceiver, Receiver

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_otel import build_pipeline, mount, parse_config
from amplifier_module_hooks_otel.pipeline import protocol, resource, sampler, signal_exporter

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


async def _short_session(coordinator: Any) -> None:
    hooks = coordinator.hooks
    await hooks.emit("session:start", {})
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_call_id": "c1"}
    await hooks.emit("tool:pre", data)
    await hooks.emit("tool:post", {**data, "tool_result": {"success": True}})
    await hooks.emit("session:end", {})


def test_unset_keys_follow_the_standard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "from-env")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci,team=hooks")
    config = parse_config({"resource_attributes": {"team": "config-wins"}})
    assert protocol(config, "traces") == "grpc"
    assert signal_exporter(config, "metrics") == "none"
    assert signal_exporter(config, "traces") == "otlp"
    attributes = resource(config).attributes
    assert attributes["service.name"] == "from-env"
    assert attributes["deployment.environment"] == "ci"
    assert attributes["team"] == "config-wins"
    explicit = parse_config({"protocol": "http/protobuf", "service_name": "mine"})
    assert protocol(explicit, "traces") == "http/protobuf"
    assert resource(explicit).attributes["service.name"] == "mine"
    assert build_pipeline(config).meter_provider is None


def test_sampler_from_the_config() -> None:
    assert sampler(parse_config({})) is None  # the SDK's, from OTEL_TRACES_SAMPLER
    chosen = sampler(parse_config({"sampler": "parentbased_traceidratio", "sampler_arg": 0.25}))
    assert chosen is not None
    assert "0.25" in chosen.get_description()


async def test_endpoint_from_the_environment_over_http(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with Receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        coordinator = create_test_coordinator()
        cleanup = await mount(coordinator, {"metrics": False})
        assert cleanup is not None
        await _short_session(coordinator)
        cleanup()  # flushes
        names = {s.name for s in receiver.spans}
    assert names == {"amplifier.session", "execute_tool bash"}


async def test_grpc_export() -> None:
    with GrpcReceiver() as receiver:
        coordinator = create_test_coordinator()
        config = {"protocol": "grpc", "endpoint": receiver.endpoint, "metrics": False}
        cleanup = await mount(coordinator, config)
        assert cleanup is not None
        await _short_session(coordinator)
        cleanup()
        names = {s.name for s in receiver.spans}
    assert names == {"amplifier.session", "execute_tool bash"}


async def test_sdk_disabled_mounts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    coordinator = create_test_coordinator()
    assert await mount(coordinator, {}) is None
    assert not any(coordinator.hooks.list_handlers().values())


@needs_redaction
async def test_events_as_log_records_redacted() -> None:
    logs = InMemoryLogRecordExporter()
    config = parse_config({"logs": True, "metrics": False})
    pipeline = build_pipeline(
        config,
        span_exporter_override=InMemorySpanExporter(),
        log_processor_override=SimpleLogRecordProcessor(logs),
    )
    coordinator = create_test_coordinator()
    await mount(coordinator, {"logs": True, "metrics": False}, pipeline=pipeline)
    await coordinator.hooks.emit("user:notification", {"message": f"key {TOKEN}", "level": "info"})
    await _short_session(coordinator)
    records = logs.get_finished_logs()
    bodies = [r.log_record.body for r in records]
    assert bodies == ["user:notification", "session:start", "tool:pre", "tool:post", "session:end"]
    everything = repr([dict(r.log_record.attributes or {}) for r in records])
    assert "amplifier.tool_name" in everything
    assert "[REDACTED" in everything  # the notification's message, through the rules
    assert TOKEN not in everything
