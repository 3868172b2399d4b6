"""The module contract as Amplifier's kernel defines it: the structural checks of
``amplifier_core.validation`` and the behavioral tests every context module inherits, run on
whichever kernel is installed (the module under test is found from this file's location)."""

from __future__ import annotations

from amplifier_core.validation.behavioral import ContextBehaviorTests
from amplifier_core.validation.structural import ContextStructuralTests


class TestContextBehavior(ContextBehaviorTests):
    pass


class TestContextStructure(ContextStructuralTests):
    pass
