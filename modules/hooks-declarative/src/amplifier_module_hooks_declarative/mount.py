"""The entry point: ``mount(coordinator, config)`` loads every source, builds the runners,
registers one handler per event and returns the async cleanup."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amplifier_hooks_util.kernel import Kernel, hook_registry

from . import receipts
from .config import MINIMAL_ENVIRONMENT, MODULE_ID, DeclarativeConfig, parse_config
from .containment import contain_documents
from .discovery import (
    Loaded,
    find_sources,
    is_project_kind,
    load_sources,
    resolve_project_dir,
    resolve_user_dir,
)
from .dispatch import (
    Dispatcher,
    PlannedStep,
    RunnerFactory,
    default_runner_factory,
    plan_steps,
)
from .document import HooksDocument
from .managed_mount import mount_managed
from .once import once
from .reload import Built, Reloader, watched_roots
from .session_env import offer_session_environment
from .specs import CommandHookSpec, HookSpec
from .types import Runner

if TYPE_CHECKING:
    from amplifier_module_hooks_declarative.trust.watch import TrustGuard

__all__ = ["mount"]

logger = logging.getLogger("amplifier_module_hooks_declarative")


def _nothing() -> None:
    """No trust guard to close."""


def _kernel_of(coordinator: Any) -> Kernel:
    registry = hook_registry(coordinator)
    if registry is None:
        raise TypeError(
            f"{MODULE_ID}: mount: the coordinator ({type(coordinator).__name__}) has no hook "
            "registry (.hooks with register())"
        )
    return Kernel.of(coordinator, registry)


def _guarded_steps(
    loaded: Loaded, factory: RunnerFactory, *, receipts: bool
) -> tuple[TrustGuard | None, list[PlannedStep]]:
    """The steps of every document, in order; the command hooks a project trusted by its
    record brings run behind a guard that re-checks that trust before each run
    (:mod:`.trust_checked_runner`)."""
    project = [document for document, source in loaded.documents if is_project_kind(source.kind)]
    commands = any(
        isinstance(entry.spec, CommandHookSpec)
        for document in project
        for entry in document.entries()
    )
    if loaded.status is None or not commands:
        documents = [document for document, _ in loaded.documents]
        return None, plan_steps(documents, factory, receipts=receipts)
    from amplifier_module_hooks_declarative.trust.watch import TrustGuard

    from .trust_checked_runner import GuardedRunner

    guard = TrustGuard(loaded.status)

    def guarded(spec: HookSpec, label: str) -> Runner:
        runner = factory(spec, label)
        return GuardedRunner(runner, guard) if isinstance(spec, CommandHookSpec) else runner

    steps: list[PlannedStep] = []
    for document, source in loaded.documents:
        planner = guarded if is_project_kind(source.kind) else factory
        steps += plan_steps([document], planner, receipts=receipts)
    return guard, steps


def _speaks_claude_code(documents: Sequence[HooksDocument]) -> bool:
    """Whether a command hook speaks Claude Code's protocol (or hook-shell's)."""
    return any(
        isinstance(entry.spec, CommandHookSpec)
        and entry.spec.protocol in ("claude-code", "hook-shell")
        for document in documents
        for entry in document.entries()
    )


@dataclass(frozen=True, slots=True)
class _Mount:
    """What one mount plans its configurations from, at mount and at each reload."""

    settings: DeclarativeConfig
    coordinator: Any
    kernel: Kernel
    project_dir: Path
    user_dir: Path
    factory: RunnerFactory

    def load(self) -> Loaded:
        """Every source's documents, contained as the config asks."""
        settings, project_dir = self.settings, self.project_dir
        loaded = load_sources(settings, project_dir=project_dir, user_dir=self.user_dir)
        documents = contain_documents(loaded.documents, settings, project_dir=project_dir)
        pairs = zip(documents, loaded.documents, strict=True)
        return replace(loaded, documents=[(doc, source) for doc, (_, source) in pairs])

    def build(self) -> Built:
        """The configuration of the files as they are now (see :mod:`.reload`)."""
        loaded = self.load()
        documents = [document for document, _ in loaded.documents]
        kept = receipts.kept(self.coordinator)
        guard, steps = _guarded_steps(loaded, self.factory, receipts=kept)
        if _speaks_claude_code(documents):  # CLAUDE_ENV_FILE reaches the session's bash commands
            offer_session_environment(self.coordinator, str(self.project_dir))
        dispatcher = Dispatcher(
            steps,
            project_dir=str(self.project_dir),
            coordinator=self.coordinator,
            observe_sources=self.settings.observe_sources,
            kernel=self.kernel,
        )
        logger.info(
            "%s: %d hook step(s) on %s from %s",
            MODULE_ID,
            len(steps),
            ", ".join(dispatcher.keys) or "no events",
            ", ".join(d.source for d in documents) or "no source",
        )
        sources = find_sources(self.settings, project_dir=self.project_dir, user_dir=self.user_dir)
        receipts.bind(
            self.coordinator,
            loaded,
            dispatcher.steps,
            project_dir=self.project_dir,
            found=sources,
            observe_sources=self.settings.observe_sources,
            inline=self.settings.hooks_origin,
        )
        return dispatcher, (guard.close if guard is not None else _nothing), sources

    def reloader(self) -> Reloader:
        """The reloader of this mount's hook files (hook-shell's directories watched too)."""
        settings = self.settings
        return Reloader(
            self.build,
            self.kernel,
            priority=settings.priority,
            extra=watched_roots(
                self.project_dir,
                self.user_dir,
                project=settings.include_project and settings.hook_shell,
                user=settings.include_user and settings.hook_shell,
            ),
        )


def _pass_env(settings: DeclarativeConfig) -> list[str] | None:
    """The variables command hooks get: the minimal names and ``pass_env`` in a minimal
    environment (the minimal names pass only with fitting values), else all (``None``)."""
    if settings.environment != "minimal":
        return None
    return [*MINIMAL_ENVIRONMENT, *settings.pass_env]


async def mount(
    coordinator: Any,
    config: Mapping[str, Any] | None = None,
    *,
    runner_factory: RunnerFactory | None = None,
) -> Callable[[], Awaitable[None]]:
    """Register the declared hooks on ``coordinator.hooks``; return the async cleanup.

    :param runner_factory: builds each hook's runner (default: the hook types of the registry,
        :mod:`.runner_plugins`); tests pass their own.
    :raises ValueError: a bad config key (``hooks-declarative: config ...``) or an invalid
        hooks file (:class:`~.document.HooksConfigError`, naming file, line and key path), also
        a trusted project's, or a trusted project whose hooks changed since it was trusted
        (naming the files and the ``trust`` command), unless ``strict: false``; a format or
        hook type of the registry that cannot be loaded (:class:`~.registry.PluginError`,
        naming its entry point and distribution); the machine's managed policy file exists and
        cannot be trusted or read (:class:`~.managed.ManagedPolicyError`, whatever the config
        says).
    :raises TypeError: the coordinator has no hook registry.

    The cleanup unregisters every handler, then lets running ``async: true`` hooks finish for
    up to ``async_grace_s`` seconds, cancels the rest and closes what runners hold (an llm
    runner's HTTP connections). Calling it twice is harmless.
    """
    settings = parse_config(config)
    kernel = _kernel_of(coordinator)
    managed = await mount_managed(coordinator)  # first, unless the application did (.managed_mount)
    project_dir = resolve_project_dir(coordinator, settings)
    factory = runner_factory or default_runner_factory(
        str(project_dir), coordinator, pass_env=_pass_env(settings), settings=settings
    )
    planned = _Mount(
        settings, coordinator, kernel, project_dir, resolve_user_dir(settings), factory
    )
    reloader = planned.reloader()
    try:
        reloader.start(planned.build())
    except BaseException:
        if managed is not None:
            await managed()
        raise
    return _cleanup(reloader, settings.async_grace_s, managed)


def _cleanup(
    reloader: Reloader, grace_s: float, managed: Callable[[], Awaitable[None]] | None
) -> Callable[[], Awaitable[None]]:
    """The mount's cleanup: closes ``reloader``, then unmounts the managed policy's hooks this
    mount mounted (``managed``), once, however often it is called."""

    async def cleanup() -> None:
        await reloader.close(grace_s)
        if managed is not None:
            await managed()

    return once(cleanup)
