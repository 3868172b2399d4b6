"""The stand-in of a hook whose entry holds a key or value this version does not know
(:class:`~..specs.UnreadableHookSpec`): under the module's ``strict`` (the default) it blocks
every event and call it matches with the problem (file, line, key path) as the reason; with
``strict: false`` it lets them through with a warning. Its siblings run either way."""

from __future__ import annotations

from ..specs import UnreadableHookSpec
from ..types import Decision, HookContext, failure_decision

__all__ = ["UnreadableRunner"]


class UnreadableRunner:
    """Decides for a hook that cannot be read (see the module docstring)."""

    def __init__(self, spec: UnreadableHookSpec, *, label: str, strict: bool) -> None:
        self.spec = spec.model_copy(update={"on_failure": "block" if strict else "warn"})
        self.label = label

    async def run(self, ctx: HookContext) -> Decision:
        return failure_decision(self.spec.on_failure, self.label, self.spec.problem)
