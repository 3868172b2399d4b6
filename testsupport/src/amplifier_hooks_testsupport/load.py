"""Import a Python file that is no installed module (a bench script, an application's helper,
a file taken from a release archive) by its path, the way a test reads one."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_file"]


def load_file(path: Path, name: str) -> ModuleType:
    """The module of the file ``path``, run once under ``name`` and registered in
    ``sys.modules`` (dataclasses and pickling look their module up there).

    :raises ImportError: ``path`` cannot be loaded as a module.
    """
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be loaded as module {name!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
