"""The module contract: ``mount(coordinator, config)`` and ``on_session_ready(coordinator)``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from amplifier_hooks_util.kernel import hook_registry

from .config import parse_config
from .hook import LoggingHook, active_hooks
from .subscribe import declared_events, flatten_names

__all__ = ["mount", "on_session_ready"]

logger = logging.getLogger("amplifier_module_hooks_logging")


def _registry_of(coordinator: Any) -> Any:
    hooks = hook_registry(coordinator)
    if hooks is None:
        raise TypeError(
            "hooks-logging: mount: the coordinator "
            f"({type(coordinator).__name__}) has no hook registry (.hooks with register())"
        )
    return hooks


def _working_dir(coordinator: Any) -> str | None:
    get_capability = getattr(coordinator, "get_capability", None)
    if not callable(get_capability):
        return None
    try:
        value = get_capability("session.working_dir")
    except Exception:
        return None
    return str(value) if value else None


async def mount(
    coordinator: Any, config: Mapping[str, Any] | None = None
) -> Callable[[], Awaitable[None]]:
    """Start logging every event of ``coordinator``'s session; return the async cleanup.

    Raises :class:`ValueError` (``hooks-logging: config ...``) for a bad config and
    :class:`TypeError` when the coordinator has no hook registry. The cleanup unsubscribes,
    writes everything still queued and closes the files.
    """
    settings = parse_config(config)
    hooks = _registry_of(coordinator)
    hook = LoggingHook(settings, coordinator=coordinator, working_dir=_working_dir(coordinator))
    try:
        hook.attach(hooks)
    except Exception as err:
        hook.close()
        raise RuntimeError(
            f"hooks-logging: mount: subscribing to {type(hooks).__name__} failed: {err}"
        ) from err
    logger.debug(
        "hooks-logging: mounted (%s), writing to %s",
        "wildcard" if hook.wildcard else f"{len(hook.subscriptions)} event names",
        settings.path,
    )

    async def cleanup() -> None:
        hook.close()

    return cleanup


async def on_session_ready(coordinator: Any) -> None:
    """Once every module is mounted: on kernels without wildcards, subscribe the events that
    modules declared meanwhile (``observability.events``, capability and contributions)."""
    hooks = [h for h in active_hooks(coordinator) if not h.wildcard and h.config.auto_discover]
    if not hooks:
        return
    names = declared_events(coordinator)
    collect = getattr(coordinator, "collect_contributions", None)
    if callable(collect):
        try:
            names.extend(flatten_names(await collect("observability.events")))
        except Exception:
            logger.warning("hooks-logging: collecting observability.events failed", exc_info=True)
    for hook in hooks:
        hook.subscribe(names)
