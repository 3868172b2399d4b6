"""The module contract as Amplifier's kernel defines it: the structural checks of
``amplifier_core.validation`` and the behavioral tests every tool module inherits, run on
whichever kernel is installed (the module under test is found from this file's location)."""

from __future__ import annotations

from amplifier_core.validation.behavioral import ToolBehaviorTests
from amplifier_core.validation.structural import ToolStructuralTests


class TestToolBehavior(ToolBehaviorTests):
    pass


class TestToolStructure(ToolStructuralTests):
    pass
