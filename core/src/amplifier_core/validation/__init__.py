"""Checks that a module keeps the Amplifier module contract, as amplifier-core 2.0.2 has them.

Each validator imports a module (a directory, a ``.py`` file or an importable name), checks
that ``mount(coordinator, config)`` exists and is async, that ``on_session_ready`` (if any)
is ``async def on_session_ready(coordinator)``, mounts it on a
:class:`~amplifier_core.testing.MockCoordinator` and checks what it mounted::

    result = await HookValidator().validate("./my_hook_module")
    if not result.passed:
        for check in result.errors:
            print(check.name, check.message)

:class:`MountPlanValidator` checks a mount plan's shape before anything loads. Test base
classes for a module's own suite are in :mod:`.structural` and :mod:`.behavioral`.
"""

from __future__ import annotations

from .base import ValidationCheck, ValidationResult
from .context import ContextValidator
from .hook import HookValidator
from .mount_plan import MountPlanValidationResult, MountPlanValidator
from .orchestrator import OrchestratorValidator
from .provider import ProviderValidator
from .tool import ToolValidator

__all__ = [
    "ContextValidator",
    "HookValidator",
    "MountPlanValidationResult",
    "MountPlanValidator",
    "OrchestratorValidator",
    "ProviderValidator",
    "ToolValidator",
    "ValidationCheck",
    "ValidationResult",
]
