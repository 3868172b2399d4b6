"""The handlers a bundle's Python hook modules register, for ``hooks list``.

Each hook module entry other than hooks-declarative (whose hooks are listed from its files) is
mounted, as a session mounts it, on a scratch coordinator working in the project directory;
the handlers it registers at mount and in ``on_session_ready`` are what it runs. The modules
that only record (hooks-logging, hooks-otel) are listed without being mounted: mounting them
would open log files and exporters. Nothing is emitted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_hooks_bundle import ModuleEntry

from .output import SHOWN_CAPABILITY
from .replay_run import NOT_REPLAYED

__all__ = ["ModuleHandlers", "RegisteredHandler", "module_handlers"]


@dataclass(frozen=True, slots=True)
class RegisteredHandler:
    """One handler a module registered."""

    handler: str
    event: str
    priority: int
    timeout: float | None
    fail_closed: bool


@dataclass(slots=True)
class ModuleHandlers:
    """What one hook module entry registers, and whether it runs in observe mode."""

    where: str
    module_id: str
    observe: bool
    handlers: list[RegisteredHandler] = field(default_factory=list)
    note: str | None = None
    """Why the handlers are not listed (a recorder that is not mounted, a module that failed)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "module": self.where,
            "module_id": self.module_id,
            "kind": "python",
            "observe": self.observe,
            "note": self.note,
            "hooks": [
                {
                    "source": self.module_id,
                    "handler": h.handler,
                    "event": h.event,
                    "priority": h.priority,
                    "timeout": h.timeout,
                    "fail_closed": h.fail_closed,
                    "type": "python",
                    "observed": self.observe,
                }
                for h in self.handlers
            ],
        }


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR


async def module_handlers(
    entries: Sequence[tuple[str, ModuleEntry]],
    *,
    base_dir: Path | None,
    project: Path,
    redaction: list[Callable[[str], str]] | None = None,
) -> list[ModuleHandlers]:
    """Mount each entry on a scratch coordinator and list the handlers it registers.

    ``redaction``: given, it receives the redaction a mounted module offers for what is shown
    (``redaction.redact_text``, hooks-redaction's), so that what is listed can be shown
    through it as a session's terminal is."""
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.loader import ModuleLoader

    coordinator = ModuleCoordinator(config={"session": {"working_dir": str(project)}})
    coordinator.register_capability("session.working_dir", str(project))
    loader = ModuleLoader(coordinator, strict=False)
    quiet = _Quiet()
    logging.getLogger("amplifier_core.loader").addFilter(quiet)
    listed: list[ModuleHandlers] = []
    try:
        for where, entry in entries:
            shown = ModuleHandlers(where, entry.module, bool(entry.observe))
            listed.append(shown)
            if entry.module in NOT_REPLAYED:
                shown.note = "records events; not mounted to list it"
                continue
            failures = len(loader.failures)
            mounted = await loader.mount(
                entry.module, dict(entry.config), entry.source, base_dir=base_dir
            )
            if mounted is None:
                causes = "; ".join(f.cause for f in loader.failures[failures:])
                shown.note = f"did not mount: {causes}"
        await loader.session_ready()
        redact = coordinator.get_capability(SHOWN_CAPABILITY)
        if redaction is not None and callable(redact):
            redaction.append(redact)
        for shown in listed:
            shown.handlers = [
                RegisteredHandler(
                    info.name, info.event, info.priority, info.timeout, info.fail_closed
                )
                for info in loader.registrations_of(shown.module_id)
            ]
    finally:
        await loader.cleanup()
        logging.getLogger("amplifier_core.loader").removeFilter(quiet)
    return listed
