"""The built-in commands of ``amplifier-hooks``, one module each."""

from __future__ import annotations

import click

from .coverage import coverage
from .demo import demo
from .emit import emit
from .events import events
from .hooks import hooks
from .install import install
from .logs import logs
from .modules import modules
from .receipts import receipts
from .replay import replay
from .run import run
from .trust import trust
from .validate import validate

__all__ = [
    "BUILTIN_COMMANDS",
    "coverage",
    "demo",
    "emit",
    "events",
    "hooks",
    "install",
    "logs",
    "modules",
    "receipts",
    "replay",
    "run",
    "trust",
    "validate",
]

BUILTIN_COMMANDS: tuple[click.Command, ...] = (
    run,
    demo,
    modules,
    validate,
    install,
    trust,
    hooks,
    emit,
    replay,
    receipts,
    coverage,
    events,
    logs,
)
"""Every built-in command, in the order ``--help`` lists them."""
