"""Importing and mounting the module with no exporter loads no part of the OpenTelemetry SDK:
the SDK (about 50 ms of imports) comes when a provider is built."""

from __future__ import annotations

from amplifier_hooks_testsupport.imports import modules_loaded_by

_PROBE = """
import asyncio, json, sys
import amplifier_module_hooks_otel as otel

class Registry:
    def register(self, event, handler, priority=0, name=None):
        return lambda: None

class Coordinator:
    hooks = Registry()

async def main():
    cleanup = await otel.mount(Coordinator(), {"exporter": "none"})
    cleanup()

asyncio.run(main())
print(json.dumps(sorted(sys.modules)))
"""


def test_mount_without_exporter_imports_no_sdk() -> None:
    loaded = modules_loaded_by(_PROBE)
    assert "amplifier_module_hooks_otel.mount" in loaded
    sdk = [name for name in loaded if name.startswith("opentelemetry.sdk")]
    assert sdk == [], f"imported at mount: {sdk}"
    assert "opentelemetry.metrics" not in loaded
    assert "opentelemetry.trace.propagation.tracecontext" not in loaded


def test_a_pipeline_with_an_exporter_still_builds_the_sdk() -> None:
    code = """
import json, sys
from amplifier_module_hooks_otel import build_pipeline, parse_config
pipeline = build_pipeline(parse_config({"exporter": "console", "metrics": False}))
print(type(pipeline.tracer_provider).__module__)
pipeline.shutdown(5)
print(json.dumps(sorted(sys.modules)))
"""
    loaded = modules_loaded_by(code)
    assert "opentelemetry.sdk.trace" in loaded
    assert "amplifier_module_hooks_otel.counting" in loaded
