"""The entry point: ``mount(coordinator, config)`` loads every source, builds the runners,
registers one handler per event and returns the async cleanup."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import receipts
from .config import MINIMAL_ENVIRONMENT, MODULE_ID, parse_config
from .containment import contain_documents
from .dispatch import (
    Dispatcher,
    PlannedStep,
    RunnerFactory,
    default_runner_factory,
    plan_steps,
)
from .reload import Built, Reloader, watched_roots
from .session_env import offer_session_environment
from .sources import (
    PROJECT_KINDS,
    Loaded,
    find_sources,
    load_sources,
    resolve_project_dir,
    resolve_user_dir,
)
from .specs import CommandHookSpec, HookSpec
from .types import Runner

if TYPE_CHECKING:
    from amplifier_module_hooks_declarative.trust.watch import TrustGuard

__all__ = ["mount"]

logger = logging.getLogger("amplifier_module_hooks_declarative")


def _nothing() -> None:
    """No trust guard to close."""


def _registry_of(coordinator: Any) -> Any:
    hooks = getattr(coordinator, "hooks", None) or getattr(coordinator, "hook_registry", None)
    if hooks is None and callable(getattr(coordinator, "get", None)):
        try:
            hooks = coordinator.get("hooks")
        except Exception:
            hooks = None
    if hooks is None or not callable(getattr(hooks, "register", None)):
        raise TypeError(
            f"{MODULE_ID}: mount: the coordinator ({type(coordinator).__name__}) has no hook "
            "registry (.hooks with register())"
        )
    return hooks


def _guarded_steps(
    loaded: Loaded, factory: RunnerFactory
) -> tuple[TrustGuard | None, list[PlannedStep]]:
    """The steps of every document, in order; the command hooks a project trusted by its
    record brings run behind a guard that re-checks that trust before each run
    (:mod:`.trust_guard`)."""
    project = [document for document, source in loaded.documents if source.kind in PROJECT_KINDS]
    commands = any(
        isinstance(entry.spec, CommandHookSpec)
        for document in project
        for entry in document.entries()
    )
    if loaded.status is None or not commands:
        return None, plan_steps([document for document, _ in loaded.documents], factory)
    from amplifier_module_hooks_declarative.trust.watch import TrustGuard

    from .trust_guard import GuardedRunner

    guard = TrustGuard(loaded.status)

    def guarded(spec: HookSpec, label: str) -> Runner:
        runner = factory(spec, label)
        return GuardedRunner(runner, guard) if isinstance(spec, CommandHookSpec) else runner

    steps: list[PlannedStep] = []
    for document, source in loaded.documents:
        steps += plan_steps([document], guarded if source.kind in PROJECT_KINDS else factory)
    return guard, steps


async def mount(
    coordinator: Any,
    config: Mapping[str, Any] | None = None,
    *,
    runner_factory: RunnerFactory | None = None,
) -> Callable[[], Awaitable[None]]:
    """Register the declared hooks on ``coordinator.hooks``; return the async cleanup.

    :param runner_factory: builds each hook's runner (default: the command, matcher and llm
        runners of this package); tests pass their own.
    :raises ValueError: a bad config key (``hooks-declarative: config ...``) or an invalid
        hooks file (:class:`~.document.HooksConfigError`, naming file, line and key path), also
        a trusted project's, or a trusted project whose hooks changed since it was trusted
        (naming the files and the ``trust`` command), unless ``strict: false``.
    :raises TypeError: the coordinator has no hook registry.

    The cleanup unregisters every handler, then lets running ``async: true`` hooks finish for
    up to ``async_grace_s`` seconds, cancels the rest and closes what runners hold (an llm
    runner's HTTP connections). Calling it twice is harmless.
    """
    settings = parse_config(config)
    registry = _registry_of(coordinator)
    project_dir = resolve_project_dir(coordinator, settings)
    user_dir = resolve_user_dir(settings)
    pass_env = None
    if settings.environment == "minimal":  # the minimal names pass only with fitting values
        pass_env = [*MINIMAL_ENVIRONMENT, *settings.pass_env]
    factory = runner_factory or default_runner_factory(
        str(project_dir), coordinator, pass_env=pass_env, settings=settings
    )

    def build() -> Built:  # at mount, and again when the hook files change (.reload)
        loaded = load_sources(settings, project_dir=project_dir, user_dir=user_dir)
        documents = contain_documents(loaded.documents, settings, project_dir=project_dir)
        loaded = replace(
            loaded,
            documents=[
                (doc, source) for doc, (_, source) in zip(documents, loaded.documents, strict=True)
            ],
        )
        guard, steps = _guarded_steps(loaded, factory)
        if any(
            isinstance(entry.spec, CommandHookSpec)
            and entry.spec.protocol in ("claude-code", "hook-shell")
            for document in documents
            for entry in document.entries()
        ):  # CLAUDE_ENV_FILE reaches the session's bash commands
            offer_session_environment(coordinator, str(project_dir))
        dispatcher = Dispatcher(
            steps,
            project_dir=str(project_dir),
            coordinator=coordinator,
            observe_sources=settings.observe_sources,
        )
        logger.info(
            "%s: %d hook step(s) on %s from %s",
            MODULE_ID,
            len(steps),
            ", ".join(dispatcher.keys) or "no events",
            ", ".join(d.source for d in documents) or "no source",
        )
        sources = find_sources(settings, project_dir=project_dir, user_dir=user_dir)
        receipts.bind(
            coordinator,
            loaded,
            dispatcher.steps,
            project_dir=project_dir,
            found=sources,
            observe_sources=settings.observe_sources,
        )
        return dispatcher, (guard.close if guard is not None else _nothing), sources

    reloader = Reloader(
        build,
        registry,
        priority=settings.priority,
        coordinator=coordinator,
        extra=watched_roots(
            project_dir,
            user_dir,
            project=settings.include_project and settings.hook_shell,
            user=settings.include_user and settings.hook_shell,
        ),
    )
    reloader.start(build())
    done = False

    async def cleanup() -> None:
        nonlocal done
        if done:
            return
        done = True
        await reloader.close(settings.async_grace_s)

    return cleanup
