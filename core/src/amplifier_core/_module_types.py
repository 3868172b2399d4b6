"""What kind of module an id or a directory holds, and the check a module loaded from a
directory passes before it mounts: amplifier-core 2.0.2's rules, kept in one place.

- The type of a module is its package's ``__amplifier_module_type__`` when it declares one,
  else read from its id: ``orchestrat`` or ``loop`` -> orchestrator, ``provider``, ``tool``,
  ``hook``, ``context``, the first that occurs in the id; ``tool`` when none does.
- A module the coordinator's ``module-source-resolver`` maps to a directory is validated with
  its type's validator (:mod:`amplifier_core.validation`) before it mounts; one that fails is
  refused with :class:`ModuleValidationError` (``amplifier_core.loader`` exports it, as
  2.0.2's does), worded as 2.0.2 words it.

See docs/module-loading.md.
"""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from .descriptions import ModuleInfo

__all__ = [
    "MODULES_ENV",
    "TYPE_TO_MOUNT_POINT",
    "ModuleType",
    "ModuleValidationError",
    "declared_type",
    "discover_directory",
    "module_info",
    "module_type_of",
    "package_dir",
    "validate_at_load",
]

logger = logging.getLogger(__name__)

ModuleType = Literal["orchestrator", "provider", "tool", "context", "hook", "resolver"]

MODULES_ENV: Final = "AMPLIFIER_MODULES"
"""Colon-separated directories ``ModuleLoader.discover`` lists when it was given no
``search_paths`` (amplifier-core 2.0.2's variable)."""

TYPE_TO_MOUNT_POINT: Final[dict[str, str]] = {
    "orchestrator": "orchestrator",
    "provider": "providers",
    "tool": "tools",
    "hook": "hooks",
    "context": "context",
    "resolver": "module-source-resolver",
}

_BY_ID: Final[tuple[tuple[str, ModuleType], ...]] = (
    ("orchestrat", "orchestrator"),
    ("loop", "orchestrator"),
    ("provider", "provider"),
    ("tool", "tool"),
    ("hook", "hook"),
    ("context", "context"),
)
_DIRECTORY_PREFIX: Final = "amplifier-module-"
_FAILED_AT_ENTRY: Final = frozenset({"mount_exists", "mount_signature", "on_session_ready_async"})


class ModuleValidationError(Exception):
    """A module that loaded but does not keep the module contract; ``reason_code`` says how
    (``validation_failed`` unless the raiser says more)."""

    def __init__(self, message: str, *, reason_code: str = "validation_failed") -> None:
        super().__init__(message)
        self.reason_code = reason_code


def module_type_of(module_id: str) -> ModuleType:
    """The module type read from the id (``hooks-logging`` -> ``hook``); ``tool`` when the id
    names none."""
    lowered = module_id.lower()
    for keyword, kind in _BY_ID:
        if keyword in lowered:
            return kind
    return "tool"


def module_info(module_id: str, kind: ModuleType) -> ModuleInfo:
    """A :class:`~amplifier_core.models.ModuleInfo` as 2.0.2's ``discover`` fills it."""
    from .descriptions import ModuleInfo

    return ModuleInfo(
        id=module_id,
        name=module_id.replace("-", " ").title(),
        version="1.0.0",
        type=kind,
        mount_point=TYPE_TO_MOUNT_POINT[kind],
        description=f"Module: {module_id}",
    )


def discover_directory(path: Path) -> list[ModuleInfo]:
    """One :class:`ModuleInfo` per ``amplifier-module-<id>`` directory in ``path``."""
    if not path.exists():
        logger.warning("Module path does not exist: %s", path)
        return []
    found: list[ModuleInfo] = []
    for item in sorted(path.iterdir()):
        if not (item.is_dir() and item.name.startswith(_DIRECTORY_PREFIX)):
            continue
        module_id = item.name.removeprefix(_DIRECTORY_PREFIX)
        try:
            found.append(module_info(module_id, declared_type(module_id, item)))
        except Exception as err:  # one bad directory does not hide the others
            logger.error("Error discovering module %s: %s", item.name, err)
    return found


def package_dir(module_id: str, path: Path) -> Path | None:
    """The Python package of a module directory: the directory itself when it is a package,
    else its ``amplifier_module_<id>`` (also under ``src/``), else the first
    ``amplifier_module_*`` package in it; ``None`` when there is none."""
    if not path.is_dir():
        return None
    if (path / "__init__.py").exists():
        return path
    name = "amplifier_module_" + module_id.replace("-", "_")
    for candidate in (path / name, path / "src" / name):
        if (candidate / "__init__.py").exists():
            return candidate
    for root in (path, path / "src"):
        if not root.is_dir():
            continue
        for item in sorted(root.iterdir()):
            if item.name.startswith("amplifier_module_") and (item / "__init__.py").exists():
                return item
    return None


def declared_type(module_id: str, path: Path) -> ModuleType:
    """The type the package in ``path`` declares as ``__amplifier_module_type__``, else the
    type read from the id.

    :raises ModuleValidationError: the declared type is not one of :data:`TYPE_TO_MOUNT_POINT`.
    """
    package = package_dir(module_id, path)
    if package is None:
        return module_type_of(module_id)
    root = str(package.parent)
    added = root not in sys.path
    if added:
        sys.path.insert(0, root)
    try:
        module = importlib.import_module(package.name)
    except Exception as err:
        logger.debug("could not inspect module %r: %s", module_id, err)
        return module_type_of(module_id)
    finally:
        if added:
            sys.path.remove(root)
    declared = getattr(module, "__amplifier_module_type__", None)
    if not declared:
        return module_type_of(module_id)
    if not isinstance(declared, str) or declared not in TYPE_TO_MOUNT_POINT:
        raise ModuleValidationError(
            f"Module '{module_id}' has unknown type '{declared}'. "
            f"Valid types: {list(TYPE_TO_MOUNT_POINT)}",
            reason_code="invalid_module_metadata",
        )
    kind: ModuleType = declared  # type: ignore[assignment]
    return kind


async def validate_at_load(
    module_id: str, path: Path, config: dict[str, Any] | None
) -> Path | None:
    """Check the module in directory ``path`` with its type's validator; its package
    directory when it passes (``None`` for a type without a validator and no package).

    :raises ModuleValidationError: it has no package, or a check failed (the message lists
        each failed check as ``name: message``).
    """
    from .validation import (
        ContextValidator,
        HookValidator,
        OrchestratorValidator,
        ProviderValidator,
        ToolValidator,
    )

    kind = declared_type(module_id, path)
    validators: dict[str, Any] = {
        "provider": ProviderValidator,
        "tool": ToolValidator,
        "hook": HookValidator,
        "orchestrator": OrchestratorValidator,
        "context": ContextValidator,
    }
    package = package_dir(module_id, path)
    validator = validators.get(kind)
    if validator is None:
        logger.warning("Unknown module type '%s' for '%s', skipping validation", kind, module_id)
        return package
    if package is None:
        raise _no_package(module_id, path)
    result = await validator().validate(package, config=config)
    if not result.passed:
        details = "; ".join(f"{check.name}: {check.message}" for check in result.errors)
        entry = any(check.name in _FAILED_AT_ENTRY for check in result.errors)
        raise ModuleValidationError(
            f"Module '{module_id}' failed validation: {result.summary()}. Errors: {details}",
            reason_code="invalid_entry_point" if entry else "validation_failed",
        )
    logger.info("[module:validated] %s - %s", module_id, result.summary())
    return package


def _no_package(module_id: str, path: Path) -> Exception:
    return ModuleValidationError(
        f"Module '{module_id}' has no valid Python package at {path}",
        reason_code="invalid_package_layout" if path.exists() else "missing_source",
    )
