"""The ecosystem's public names import from where modules written for Amplifier import them."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_the_names_hook_modules_use_are_where_they_expect_them() -> None:
    from amplifier_core import (
        AmplifierSession,
        ApprovalProvider,
        ApprovalRequest,
        ApprovalResponse,
        HookRegistry,
        HookResult,
        ModuleCoordinator,
        events,
    )
    from amplifier_core.coordinator import ModuleCoordinator as CoordinatorFromModule
    from amplifier_core.hooks import HookRegistry as RegistryFromModule
    from amplifier_core.interfaces import ApprovalProvider as ProviderFromInterfaces
    from amplifier_core.models import HookResult as ResultFromModels
    from amplifier_core.testing import EventRecorder, MockCoordinator, create_test_coordinator

    assert HookResult is ResultFromModels
    assert HookRegistry is RegistryFromModule
    assert ModuleCoordinator is CoordinatorFromModule
    assert ApprovalProvider is ProviderFromInterfaces
    assert events.TOOL_PRE == "tool:pre"
    assert len(events.ALL_EVENTS) == 46
    assert ApprovalRequest(tool_name="bash", action="run ls", risk_level="low").timeout is None
    assert ApprovalResponse(approved=True).remember is False
    assert AmplifierSession.__name__ == "AmplifierSession"
    coordinator = create_test_coordinator()
    assert isinstance(coordinator, MockCoordinator)
    assert coordinator.get("hooks") is coordinator.hooks is coordinator.hook_registry
    assert EventRecorder().get_events() == []


def test_importing_the_kernel_leaves_the_session_runtime_unloaded() -> None:
    probe = (
        "import sys, amplifier_core; "
        "print(sorted(m for m in ('amplifier_core.session', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    import amplifier_core

    with pytest.raises(AttributeError, match="NoSuchThing"):
        getattr(amplifier_core, "NoSuchThing")  # noqa: B009 - the name is the point
