"""What to tell a person whose session stopped because modules of its bundle failed to load.

A guard is never to be dropped: a project whose trusted hook files changed is reviewed and
trusted again, a module that failed to mount is fixed; only one that cannot be imported may be
marked optional, when the session may run without it. ``run``, ``demo`` and
:class:`~amplifier_hooks_cli.session.AgentSession` give the same advice.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from amplifier_core.loader import ModuleFailure

__all__ = ["load_advice"]


def load_advice(
    failures: Sequence[ModuleFailure], workspace: Path, bundle_path: Path | None
) -> str:
    """What to do about the failures that stopped the session. A guard is never to be
    dropped: a project whose trusted hook files changed is reviewed and trusted again, a
    module that failed to mount is fixed; only one that cannot be imported may be marked
    optional, when the session may run without it."""
    stages = {f.stage for f in failures}
    if any(f.module_id == "hooks-declarative" and f.stage == "mount" for f in failures):
        changed = _changed_trust(workspace)
        if changed is not None:
            return changed
    if stages <= {"mount", "on_session_ready"}:
        check = (
            f"`amplifier-hooks validate --mount {bundle_path}` checks it"
            if bundle_path is not None
            else "`amplifier-hooks validate --mount BUNDLE` checks a bundle"
        )
        return (
            "a guard that cannot mount does not run, so the session does not either: fix what "
            f"is named above ({check})"
        )
    return (
        "every module a bundle names must load; mark its entry `optional: true` only when the "
        "session may run without it"
    )


def _changed_trust(workspace: Path) -> str | None:
    """How to review and trust again a project whose hook files changed since it was
    trusted; ``None`` when that is not why hooks-declarative failed."""
    import shlex

    try:
        from amplifier_module_hooks_declarative import trust_status
    except ImportError:
        return None
    try:
        status = trust_status(workspace)
    except (OSError, ValueError):
        return None
    if status.trusted or not status.known or not status.changed:
        return None
    project = shlex.quote(str(status.project))
    return (
        f"the project's hook files changed since you trusted it ({', '.join(status.changed)}): "
        f"review the changes (`git -C {project} diff`; `amplifier-hooks trust --check "
        f"{project}` names them), then trust it again with `amplifier-hooks trust {project}`"
    )
