"""Test base classes a module's own suite inherits to check how the mounted module behaves::

    from amplifier_core.validation.behavioral import HookBehaviorTests

    class TestBehavior(HookBehaviorTests):
        pass

The fixtures they use (``coordinator``, ``hook_cleanup``, ``tool_module``, ``provider_module``,
``orchestrator_module``, ``context_module``, ``mock_deps``) come from the kernel's pytest
plugin, which finds the module from the test file's location (or ``--module-path``).
"""

from __future__ import annotations

from .context import ContextBehaviorTests
from .hook import HookBehaviorTests
from .orchestrator import OrchestratorBehaviorTests
from .provider import ProviderBehaviorTests
from .tool import ToolBehaviorTests

__all__ = [
    "ContextBehaviorTests",
    "HookBehaviorTests",
    "OrchestratorBehaviorTests",
    "ProviderBehaviorTests",
    "ToolBehaviorTests",
]
