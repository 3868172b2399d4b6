"""The ecosystem's public names import from where modules written for Amplifier import them."""

from __future__ import annotations

import ast
import inspect
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
    assert len(events.ALL_EVENTS) == 48
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


def test_the_runtime_names_are_at_the_top_level_and_are_the_submodules_objects() -> None:
    import amplifier_core
    from amplifier_core import cancellation, content_models, interfaces, llm_errors, models
    from amplifier_core import message_models as mm

    assert amplifier_core.ChatRequest is mm.ChatRequest
    assert amplifier_core.Usage is mm.Usage
    assert amplifier_core.ResponseFormat is mm.ResponseFormat
    assert amplifier_core.RateLimitError is llm_errors.RateLimitError
    assert amplifier_core.CancellationToken is cancellation.CancellationToken
    assert amplifier_core.TextContent is content_models.TextContent
    assert amplifier_core.Provider is interfaces.Provider
    assert amplifier_core.ModelInfo is models.ModelInfo
    for name in amplifier_core.__all__:
        assert getattr(amplifier_core, name) is not None, name


def test_importing_the_kernel_leaves_the_provider_facing_modules_unloaded() -> None:
    lazy = (
        "amplifier_core.message_models",
        "amplifier_core.llm_errors",
        "amplifier_core.cancellation",
        "amplifier_core.content_models",
    )
    probe = (
        "import sys, amplifier_core; "
        f"print(sorted(m for m in {lazy!r} if m in sys.modules)); "
        "amplifier_core.ModuleCoordinator().hooks; "
        f"print(sorted(m for m in {lazy!r} if m in sys.modules)); "
        "from amplifier_core import ChatRequest; "
        "print('amplifier_core.message_models' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split("\n")[:3] == ["[]", "[]", "True"]


def _type_checking_imports() -> dict[str, str]:
    """The names ``amplifier_core/__init__.py`` imports for type checkers, with their
    submodule (``.llm_errors``), read from its ``if TYPE_CHECKING:`` block."""
    import amplifier_core

    tree = ast.parse(inspect.getsource(amplifier_core))
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                for alias in statement.names:
                    names[alias.asname or alias.name] = "." * statement.level + (
                        statement.module or ""
                    )
    return names


def test_the_names_shown_to_type_checkers_are_the_names_loaded_on_first_use() -> None:
    """The package lists a lazily loaded name twice (for type checkers and in ``_LAZY``, the
    owner); the type checkers' list names no name, nor submodule, that ``_LAZY`` does not."""
    import amplifier_core

    shown = _type_checking_imports()
    assert shown.items() <= amplifier_core._LAZY.items(), (
        "each name amplifier_core/__init__.py imports under TYPE_CHECKING must be in _LAZY, "
        f"from the same submodule: {sorted(shown.items() - amplifier_core._LAZY.items())}"
    )


def test_every_provider_error_is_loaded_from_the_error_module() -> None:
    import amplifier_core
    from amplifier_core import llm_errors

    loaded = {n for n, m in amplifier_core._LAZY.items() if m == ".llm_errors"}
    assert loaded == set(llm_errors.__all__), (
        "amplifier_core/__init__.py's _LAZY must list llm_errors.__all__ (the owner)"
    )
    assert loaded <= set(amplifier_core.__all__)
