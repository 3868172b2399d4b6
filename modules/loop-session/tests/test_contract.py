"""The module contract as Amplifier's kernel defines it: the structural checks of
``amplifier_core.validation`` and the behavioral tests every orchestrator module inherits, run on
whichever kernel is installed (the module under test is found from this file's location)."""

from __future__ import annotations

from amplifier_core.validation.behavioral import OrchestratorBehaviorTests
from amplifier_core.validation.structural import OrchestratorStructuralTests


class TestOrchestratorBehavior(OrchestratorBehaviorTests):
    pass


class TestOrchestratorStructure(OrchestratorStructuralTests):
    pass
