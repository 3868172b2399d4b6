"""The regular-expression parser the ``re`` module compiles with, and its constants.

CPython 3.11+ keeps them in the private modules ``re._parser`` and ``re._constants``; the
engine reads a pattern's parsed form through them (its inline flags, its leading run, its
literal triggers). On another implementation, where they are missing, both names are
``None`` and each reader falls back to what it does without them (plain search, flags found
by compiling).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["CONSTANTS", "PARSER"]

CONSTANTS: Any
PARSER: Any
try:
    CONSTANTS = importlib.import_module("re._constants")
    PARSER = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - another implementation
    CONSTANTS = PARSER = None
