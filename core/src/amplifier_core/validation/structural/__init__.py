"""Test base classes a module's own suite inherits to run the structural checks::

    from amplifier_core.validation.structural import HookStructuralTests

    class TestStructural(HookStructuralTests):
        pass

Each runs the type's validator on the module found by the ``module_path`` fixture of the
kernel's pytest plugin and fails with every failed check (or, when no module package is found,
with the one line that says why).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..._module_fixtures import NO_MODULE
from .._module import ModuleValidator
from ..base import check_on_session_ready
from ..context import ContextValidator
from ..hook import HookValidator
from ..orchestrator import OrchestratorValidator
from ..provider import ProviderValidator
from ..tool import ToolValidator

__all__ = [
    "ContextStructuralTests",
    "HookStructuralTests",
    "OrchestratorStructuralTests",
    "ProviderStructuralTests",
    "ToolStructuralTests",
    "check_on_session_ready",
]


async def _structural(validator: ModuleValidator, module_path: Path | None) -> None:
    if module_path is None:
        pytest.fail(NO_MODULE, pytrace=False)
    result = await validator.validate(module_path)
    if not result.passed:
        failed = "\n".join(f"  - {check.name}: {check.message}" for check in result.errors)
        pytest.fail(f"Structural validation failed:\n{failed}")


class ProviderStructuralTests:
    """The provider module keeps the provider contract."""

    pytestmark = pytest.mark.asyncio

    async def test_structural_validation(self, module_path: Path | None) -> None:
        await _structural(ProviderValidator(), module_path)


class ToolStructuralTests:
    """The tool module keeps the tool contract."""

    pytestmark = pytest.mark.asyncio

    async def test_structural_validation(self, module_path: Path | None) -> None:
        await _structural(ToolValidator(), module_path)


class HookStructuralTests:
    """The hook module keeps the hook contract."""

    pytestmark = pytest.mark.asyncio

    async def test_structural_validation(self, module_path: Path | None) -> None:
        await _structural(HookValidator(), module_path)


class OrchestratorStructuralTests:
    """The orchestrator module keeps the orchestrator contract."""

    pytestmark = pytest.mark.asyncio

    async def test_structural_validation(self, module_path: Path | None) -> None:
        await _structural(OrchestratorValidator(), module_path)


class ContextStructuralTests:
    """The context manager module keeps the context manager contract."""

    pytestmark = pytest.mark.asyncio

    async def test_structural_validation(self, module_path: Path | None) -> None:
        await _structural(ContextValidator(), module_path)
