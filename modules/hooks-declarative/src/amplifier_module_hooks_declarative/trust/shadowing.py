"""The names a module in Python's working directory would shadow.

``python -m`` and ``python -c`` put the working directory first on ``sys.path``: a module
there is found before the standard library's and the installed packages' (a ``re.py`` at the
project's top level runs when a trusted guard's ``import json`` loads ``re``). Builtin and
frozen modules cannot be shadowed (their importers come first).

:func:`shadowing_globs` are the names of the entries of such a directory that trust covers,
present or appearing later: every Python module file (``*.py``, ``*.pyc``, an extension
module ``*.so`` / ``*.pyd``) and a package directory named as a standard-library module (its
``__init__.py``, which ``import`` runs; a directory without one cannot shadow a module).
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Final

__all__ = ["shadowing_globs"]

_MODULE_GLOBS: Final = ("*.py", "*.pyw", "*.pyc", "*.so", "*.pyd")


@cache
def shadowing_globs() -> tuple[str, ...]:
    """Globs of the entries of a directory on ``sys.path`` that shadow an import."""
    builtin = set(sys.builtin_module_names)
    packages = sorted(
        name for name in sys.stdlib_module_names if name not in builtin and "." not in name
    )
    return (*_MODULE_GLOBS, *packages)
