"""amplifier_hooks_cli: the ``amplifier-hooks`` command line and the application's session.

- :class:`~amplifier_hooks_cli.session.AgentSession`: a session composed from modules by a
  bundle (turn outcomes, cancel, checkpoints, resume, fork, model switches);
- :func:`~amplifier_hooks_cli.plan.mount_plan`: a bundle as the kernel's mount plan;
- :func:`load_bundle`: a bundle file read and validated (from :mod:`amplifier_hooks_bundle`);
- :mod:`~amplifier_hooks_cli.main`: the command line, and
  :mod:`~amplifier_hooks_cli.hookspecs`: how installed packages add commands to it.

``import amplifier_hooks_cli`` imports none of them; each loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from amplifier_hooks_bundle import load_bundle

    from .plan import mount_plan
    from .session import AgentSession

__all__ = ["AgentSession", "load_bundle", "mount_plan"]


def __getattr__(name: str) -> Any:
    if name == "AgentSession":
        from .session import AgentSession

        return AgentSession
    if name == "load_bundle":
        from amplifier_hooks_bundle import load_bundle

        return load_bundle
    if name == "mount_plan":
        from .plan import mount_plan

        return mount_plan
    raise AttributeError(f"module 'amplifier_hooks_cli' has no attribute {name!r}")
