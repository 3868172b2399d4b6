"""What a validation reports: one :class:`ValidationCheck` per check, gathered in a
:class:`ValidationResult`; and the import and ``on_session_ready`` checks every module type
shares."""

from __future__ import annotations

import importlib
import inspect
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

__all__ = [
    "CheckList",
    "Severity",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "import_module_from_path",
]

Severity = Literal["error", "warning", "info"]


@dataclass
class ValidationCheck:
    """One check: its name, whether it passed, what it found and how much a failure weighs."""

    name: str
    passed: bool
    message: str
    severity: Severity


class CheckList:
    """What a list of checks says: it passes when no error-level check failed."""

    checks: list[ValidationCheck]

    @property
    def passed(self) -> bool:
        return not self.errors

    @property
    def errors(self) -> list[ValidationCheck]:
        """The failed error-level checks."""
        return [c for c in self.checks if c.severity == "error" and not c.passed]

    @property
    def warnings(self) -> list[ValidationCheck]:
        """The failed warning-level checks."""
        return [c for c in self.checks if c.severity == "warning" and not c.passed]

    def add(self, check: ValidationCheck) -> None:
        self.checks.append(check)

    def summary(self) -> str:
        """``PASSED: 4/4 checks passed (0 errors, 0 warnings)``."""
        ok = sum(1 for check in self.checks if check.passed)
        status = "PASSED" if self.passed else "FAILED"
        counts = f"({len(self.errors)} errors, {len(self.warnings)} warnings)"
        return f"{status}: {ok}/{len(self.checks)} checks passed {counts}"


@dataclass
class ValidationResult(CheckList):
    """Every check run on one module."""

    module_type: str
    module_path: str
    checks: list[ValidationCheck] = field(default_factory=list)


_IMPORT_LOCK = threading.Lock()


def import_module_from_path(module_path: str | Path) -> ModuleType:
    """Import the package directory or ``.py`` file at ``module_path`` by its own name.

    The module is imported through the normal machinery (its directory's parent is put first
    on ``sys.path`` for the import only), so it is the very object a loader would mount. A
    module of that name already loaded from elsewhere, or a cached submodule from elsewhere,
    is an ``ImportError`` rather than replaced.
    """
    path = Path(module_path)
    source = path / "__init__.py" if path.is_dir() else path
    name = path.name if path.is_dir() else path.stem
    root = str(path.parent if path.is_dir() else source.parent)
    package_dir = source.parent.resolve()
    with _IMPORT_LOCK:
        for cached_name, cached in list(sys.modules.items()):
            if cached_name.startswith(f"{name}.") and not _from(cached, package_dir):
                raise ImportError(
                    f"Refusing to import '{name}' from {source}: cached submodule "
                    f"'{cached_name}' is from {getattr(cached, '__file__', None)}"
                )
        existing = sys.modules.get(name)
        if existing is not None:
            existing_file = getattr(existing, "__file__", None)
            if existing_file is not None and Path(existing_file).resolve() == source.resolve():
                return existing
            raise ImportError(
                f"Refusing to import '{name}' from {source}: it is already loaded from "
                f"{existing_file}"
            )
        sys.path.insert(0, root)
        try:
            module = importlib.import_module(name)
        finally:
            sys.path.remove(root)
    imported = getattr(module, "__file__", None)
    if imported is None or Path(imported).resolve() != source.resolve():
        raise ImportError(
            f"Refusing to validate '{name}' from {source}: Python imported {imported}"
        )
    return module


def _from(module: Any, directory: Path) -> bool:
    file = getattr(module, "__file__", None)
    return file is not None and Path(file).resolve().is_relative_to(directory)


def check_on_session_ready(module: Any) -> ValidationCheck | None:
    """A failed ``on_session_ready_async`` check when the module's ``on_session_ready`` is not
    ``async def on_session_ready(coordinator)``; ``None`` when it is, or when there is none."""
    hook = getattr(module, "on_session_ready", None)
    if hook is None:
        return None
    if not inspect.iscoroutinefunction(hook):
        return ValidationCheck(
            name="on_session_ready_async",
            passed=False,
            message="on_session_ready() must be async: found sync function. "
            "Use 'async def on_session_ready(coordinator) -> None:'",
            severity="error",
        )
    try:
        parameters = inspect.signature(hook).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [
        p for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty
    ]
    if not required:
        return ValidationCheck(
            name="on_session_ready_async",
            passed=False,
            message="on_session_ready() must accept a coordinator argument: "
            "async def on_session_ready(coordinator) -> None",
            severity="error",
        )
    return None
