"""Tables about the events, beside :mod:`amplifier_core.events` (whose every upper-case name
is an event, as amplifier-core 2.0.2's suite requires).

``ALIASES``
    PascalCase names of the app-cli hooks proposal -> canonical name (``Error`` -> the
    ``*:error`` pattern). :func:`canonical` resolves one.
``ERROR_EVENTS``
    Every canonical ``*:error`` event.
``UPSTREAM_EVENTS``
    The 43 events of amplifier-core 2.0.2's ``ALL_EVENTS``, in its order.
"""

from __future__ import annotations

from typing import Final

from . import events as _events
from .events import canonical, is_pattern

__all__ = ["ALIASES", "ERROR_EVENTS", "UPSTREAM_EVENTS", "canonical", "is_pattern"]

ALIASES: Final[dict[str, str]] = _events._ALIASES
ERROR_EVENTS: Final[tuple[str, ...]] = _events._ERROR_EVENTS
UPSTREAM_EVENTS: Final[tuple[str, ...]] = _events._UPSTREAM_EVENTS
