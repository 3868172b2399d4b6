"""The module contract as Amplifier's kernel defines it: the structural checks of
``amplifier_core.validation`` and the behavioral tests every hook module inherits, run on
whichever kernel is installed (the module under test is found from this file's location)."""

from __future__ import annotations

from amplifier_core.validation.behavioral import HookBehaviorTests
from amplifier_core.validation.structural import HookStructuralTests


class TestHookBehavior(HookBehaviorTests):
    pass


class TestHookStructure(HookStructuralTests):
    pass
