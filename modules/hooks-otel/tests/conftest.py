"""Fixtures: an export pipeline into the SDK's in-memory exporter and metric reader."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # otel_memory, otel_scenario, otel_receiver

from otel_memory import Memory


@pytest.fixture
def memory() -> Memory:
    return Memory()
