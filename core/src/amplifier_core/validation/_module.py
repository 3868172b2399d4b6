"""The checks every module type shares, in order: importable, ``mount()`` exists, its
signature, ``on_session_ready``; then the type's own checks on what ``mount()`` mounted on a
:class:`~amplifier_core.testing.MockCoordinator` (each type's validator supplies those)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from .base import (
    Severity,
    ValidationCheck,
    ValidationResult,
    check_on_session_ready,
    import_module_from_path,
)

__all__ = ["ModuleValidator", "MountPointValidator", "is_async", "plain_callable"]


def is_async(function: Any) -> bool:
    """A coroutine function, or an object whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004 - the method itself is inspected
    )


def plain_callable(value: Any) -> bool:
    """A function or bound method: what a cleanup is, rather than a module instance."""
    return inspect.isfunction(value) or inspect.ismethod(value)


class ModuleValidator:
    """Validates one kind of module; subclasses set ``module_type`` and add ``_mounted``."""

    module_type: ClassVar[str] = ""

    async def validate(
        self,
        module_path: str | Path,
        entry_point: str | None = None,
        config: dict[str, Any] | None = None,
    ) -> ValidationResult:
        """Run every check on the module at ``module_path`` (a directory, a ``.py`` file or
        an importable name), mounting it with ``config`` (``{}`` when not given)."""
        result = ValidationResult(module_type=self.module_type, module_path=str(module_path))
        module = self._importable(result, module_path)
        if module is None:
            return result
        mount = self._mount_exists(result, module)
        if mount is None:
            return result
        self._mount_signature(result, mount)
        ready = check_on_session_ready(module)
        if ready is not None:
            result.add(ready)
        await self._compliance(result, mount, {} if config is None else config)
        return result

    @staticmethod
    def check(result: ValidationResult, name: str, passed: bool, message: str) -> None:
        """Add a check that is ``info`` when it passed and an ``error`` when it did not."""
        result.add(ValidationCheck(name, passed, message, "info" if passed else "error"))

    @staticmethod
    def note(result: ValidationResult, name: str, message: str, severity: Severity) -> None:
        """Add a passed check of ``severity`` (a warning that does not fail the module)."""
        result.add(ValidationCheck(name, True, message, severity))

    def _importable(self, result: ValidationResult, module_path: str | Path) -> Any:
        path = Path(module_path)
        try:
            if not path.exists():
                module = importlib.import_module(str(module_path))
                self.check(
                    result,
                    "module_importable",
                    True,
                    f"Module '{module_path}' imported successfully",
                )
                return module
            if path.is_dir() and not (path / "__init__.py").exists():
                self.check(result, "module_importable", False, f"No __init__.py found in {path}")
                return None
            module = import_module_from_path(path)
        except ImportError as err:
            self.check(result, "module_importable", False, f"Failed to import module: {err}")
            return None
        except Exception as err:  # a module that raises while it loads
            self.check(result, "module_importable", False, f"Error loading module: {err}")
            return None
        self.check(result, "module_importable", True, f"Module loaded from {path}")
        return module

    def _mount_exists(self, result: ValidationResult, module: Any) -> Any:
        mount = getattr(module, "mount", None)
        if mount is None:
            self.check(result, "mount_exists", False, "No mount() function found in module")
            return None
        if not callable(mount):
            self.check(result, "mount_exists", False, "mount is not callable")
            return None
        self.check(result, "mount_exists", True, "mount() function found")
        return mount

    def _mount_signature(self, result: ValidationResult, mount: Callable[..., Any]) -> None:
        try:
            count = len(inspect.signature(mount).parameters)
        except (TypeError, ValueError):
            count = 2
        if count < 2:
            message = (
                f"mount() should have at least 2 parameters (coordinator, config), found {count}"
            )
            self.check(result, "mount_signature", False, message)
        elif not inspect.iscoroutinefunction(mount):
            self.check(
                result, "mount_signature", False, "mount() should be async (async def mount(...))"
            )
        else:
            self.check(result, "mount_signature", True, "mount() is async with correct signature")

    async def _compliance(
        self, result: ValidationResult, mount: Callable[..., Any], config: dict[str, Any]
    ) -> None:
        from ..testing import MockCoordinator

        coordinator = MockCoordinator()
        returned: Any = None
        try:
            returned = mount(coordinator, config)
            if inspect.isawaitable(returned):
                returned = await returned
            self._mounted(result, coordinator, returned)
        except Exception as err:
            self.check(
                result,
                "protocol_compliance",
                False,
                f"Error during protocol compliance check: {err}",
            )
        finally:
            await _clean_up(coordinator, returned)

    def _mounted(self, result: ValidationResult, coordinator: Any, returned: Any) -> None:
        raise NotImplementedError


class MountPointValidator(ModuleValidator):
    """A module that mounts objects at one mount point (``tools``, ``providers`` ...).

    ``kind`` names the interface in messages, ``required`` the members it must have; a
    subclass checks each mounted object's members in ``_members``.
    """

    kind: ClassVar[str] = ""
    point: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()

    def implements(self, value: Any) -> bool:
        """Has every ``required`` member (callable, except ``name`` and ``description``)."""
        for member in self.required:
            if not hasattr(value, member):
                return False
            if member not in ("name", "description") and not callable(getattr(value, member)):
                return False
        return True

    def _mounted(self, result: ValidationResult, coordinator: Any, returned: Any) -> None:
        found = coordinator.mount_points.get(self.point)
        if isinstance(found, dict):
            mounted = list(found.items())
        else:
            mounted = [] if found is None else [(None, found)]
        kind = self.kind
        article = "an" if kind[0] in "AEIOU" else "a"
        if not mounted:
            if returned is not None and self.implements(returned) and not plain_callable(returned):
                self.check(
                    result, "protocol_compliance", True, f"mount() returned a valid {kind} instance"
                )
                self._members(result, returned)
            elif callable(returned):
                message = (
                    f"mount() returned a cleanup callable (no {self.noun} mounted yet - "
                    "may be conditional)"
                )
                self.note(result, "protocol_compliance", message, "warning")
            else:
                message = (
                    f"No {self.noun} was mounted and mount() did not return {article} {kind} "
                    "instance"
                )
                self.check(result, "protocol_compliance", False, message)
            return
        for name, value in mounted:
            label = f"{kind} '{name}'" if name is not None else f"Mounted {self.noun}"
            if self.implements(value):
                shown = label if name is not None else self.noun.capitalize()
                message = f"{shown} implements {kind} interface"
                self.check(result, "protocol_compliance", True, message)
                self._members(result, value)
            else:
                missing = ", ".join(self.required[:-1]) + f", or {self.required[-1]}"
                if len(self.required) == 1:
                    missing = self.required[0]
                message = f"{label} does not implement {kind} interface (missing {missing})"
                self.check(result, "protocol_compliance", False, message)

    @property
    def noun(self) -> str:
        """The mount point's thing in a sentence: tool, provider, orchestrator, context."""
        return self.point.removesuffix("s")

    def _members(self, result: ValidationResult, value: Any) -> None:
        raise NotImplementedError

    def async_method(self, result: ValidationResult, value: Any, method: str, check: str) -> None:
        """``check`` passes when ``value.method`` exists and is a coroutine function."""
        function = getattr(value, method, None)
        if function is None or not callable(function):
            self.check(result, check, False, f"{self.kind} missing {method}() method")
        elif not is_async(function):
            self.check(result, check, False, f"{self.kind}.{method}() should be async")
        else:
            self.check(result, check, True, f"{self.kind}.{method}() has correct async signature")

    def text_member(self, result: ValidationResult, value: Any, member: str, check: str) -> None:
        """``check`` passes when ``value.member`` is a non-empty string."""
        text = getattr(value, member, None)
        if isinstance(text, str) and text:
            self.check(result, check, True, f"{self.kind} has {member}: '{text}'")
        else:
            message = f"{self.kind}.{member} should be a non-empty string"
            self.check(result, check, False, message)


async def _clean_up(coordinator: Any, returned: Any) -> None:
    """Run what mount() returned and the coordinator's cleanups; their errors are ignored
    (a failing cleanup does not change the verdict)."""
    if returned is not None and plain_callable(returned):
        with contextlib.suppress(Exception):
            outcome = returned()
            if inspect.isawaitable(outcome):
                await outcome
    with contextlib.suppress(Exception):
        await coordinator.cleanup()
