"""The machine's managed policy on an application session: mounted before the bundle's modules.

``AgentSession`` (and ``emit`` and ``replay``, which mount a bundle's hooks on a bare
coordinator) call :func:`mount_policy` before the kernel mounts anything, so the policy's
hooks (hooks-declarative's ``mount_managed``) are the
first registrations of the session and no bundle entry, ``observe: true`` included, wraps
them; :func:`check_first` then refuses a session in which some handler was registered ahead
of them. A policy file on a machine without hooks-declarative, which runs it, stops the
session too: a guard that cannot load never fails open.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from amplifier_hooks_util.managed_file import ROOT_UID, PolicyLocation, locate_policy

__all__ = ["CheckedPolicy", "ManagedPolicyRefused", "check_first", "check_policy", "mount_policy"]


def _declarative() -> ModuleType:
    """hooks-declarative, which runs a managed policy (its ``mount_managed``,
    ``handlers_ahead`` and ``read_policy``).

    :raises ImportError: it is not installed.
    """
    import amplifier_module_hooks_declarative

    return amplifier_module_hooks_declarative


class ManagedPolicyRefused(ValueError):
    """The session cannot start under the machine's managed policy; the message says why."""


def _stopped(what: str, why: str) -> ManagedPolicyRefused:
    return ManagedPolicyRefused(f"{what}: {why}")


async def mount_policy(coordinator: Any, what: str) -> Callable[[], Awaitable[None]] | None:
    """Register the managed policy's hooks on ``coordinator``; their cleanup, or ``None``
    without a policy. ``what`` starts an error (``session ID stopped before its first
    turn``).

    :raises ManagedPolicyRefused: the file exists and cannot be trusted, read or parsed, or
        hooks-declarative is not installed to run it.
    """
    try:
        location = locate_policy()
    except ValueError as err:
        raise _stopped(what, f"managed policy: {err}") from err
    try:
        declarative = _declarative()
    except ImportError as err:
        if not location.exists():
            return None
        raise _stopped(
            what,
            f"the managed policy {location.path} needs hooks-declarative to run its hooks, and "
            f"it cannot be imported ({err})",
        ) from err
    try:
        cleanup: Callable[[], Awaitable[None]] | None = await declarative.mount_managed(coordinator)
    except ValueError as err:  # ManagedPolicyError: its message names the file and why
        raise _stopped(what, str(err).removeprefix("hooks-declarative: ")) from err
    return cleanup


def check_first(coordinator: Any, what: str) -> None:
    """Refuse the session when a handler was registered ahead of the managed policy's.

    :raises ManagedPolicyRefused: naming those handlers.
    """
    try:
        declarative = _declarative()
    except ImportError:
        return
    ahead: list[str] = declarative.handlers_ahead(coordinator)
    if ahead:
        raise _stopped(
            what,
            "the managed policy's hooks must run first, and these handlers are ordered "
            f"before them: {', '.join(ahead)}",
        )


@dataclass(frozen=True, slots=True)
class CheckedPolicy:
    """A managed policy file as ``validate`` and ``hooks list`` see it: ``policy`` (the
    module's ``ManagedPolicy``) when it can be used, else ``problem``; neither: no file."""

    path: Path
    policy: Any = None
    problem: str | None = None
    in_force: bool = True
    """It is the policy sessions of this machine obey (not a file given to check)."""

    def summary(self) -> str:
        """One line: its hooks and settings."""
        if self.policy is None:
            return self.problem or f"no managed policy at {self.path}"
        hooks = sum(1 for _ in self.policy.document.entries())
        settings = self.policy.settings
        rules = [
            f"{key}: {value}"
            for key, value in settings.model_dump().items()
            if value not in (None, False)
        ]
        return f"{self.path}: ok: managed policy trusted by ownership, {hooks} hook(s)" + (
            f", {'; '.join(rules)}" if rules else ", no restriction of other sources"
        )


def check_policy(path: Path | None = None) -> CheckedPolicy:
    """The policy in force (``path`` ``None``), or the file ``path``, checked as sessions
    check it: by ownership (the administrators of the policy in force when ``path`` is that
    file, root otherwise), then parsed."""
    try:
        location = locate_policy()
    except ValueError as err:
        return CheckedPolicy(Path(path or "."), problem=f"managed policy: {err}")
    in_force = True
    if path is not None and path.absolute() != location.path:
        location = PolicyLocation(path.absolute(), frozenset({ROOT_UID}))
        in_force = False
    if not location.exists():
        problem = None if path is None else f"{location.path}: no such file"
        return CheckedPolicy(location.path, problem=problem, in_force=in_force)
    try:
        declarative = _declarative()
    except ImportError as err:
        problem = (
            f"{location.path}: hooks-declarative, which runs a managed policy, cannot be "
            f"imported ({err})"
        )
        return CheckedPolicy(location.path, problem=problem, in_force=in_force)
    try:
        policy = declarative.read_policy(location)
    except ValueError as err:
        text = str(err).removeprefix("hooks-declarative: ")
        return CheckedPolicy(location.path, problem=text, in_force=in_force)
    return CheckedPolicy(location.path, policy=policy, in_force=in_force)
