"""Checks a mount plan's shape before any module loads: a ``session`` with ``orchestrator`` and
``context`` module specs, lists of module specs under ``providers``, ``tools`` and ``hooks``;
each spec a dict with a non-empty ``module`` string, a dict ``config`` and a string ``source``
when given. Unknown top-level sections are a warning."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .base import CheckList, ValidationCheck

__all__ = ["MountPlanValidationResult", "MountPlanValidator"]

_SPEC_EXAMPLE = "{'module': 'module-name', 'source': '...', 'config': {...}}"


@dataclass
class MountPlanValidationResult(CheckList):
    """Every check run on one mount plan."""

    checks: list[ValidationCheck] = field(default_factory=list)

    def format_errors(self) -> str:
        """The errors numbered one per line under a heading, or ``No errors``."""
        errors = self.errors
        if not errors:
            return "No errors"
        lines = ["Mount Plan Validation Failed:", ""]
        lines += [f"  {n}. [{e.name}] {e.message}" for n, e in enumerate(errors, 1)]
        lines += ["", f"Total: {len(errors)} error(s)"]
        return "\n".join(lines)


class MountPlanValidator:
    """``MountPlanValidator().validate(plan)`` -> :class:`MountPlanValidationResult`."""

    REQUIRED_SECTIONS: ClassVar[set[str]] = {"session"}
    OPTIONAL_SECTIONS: ClassVar[set[str]] = {"providers", "tools", "hooks", "agents"}
    REQUIRED_SESSION_FIELDS: ClassVar[set[str]] = {"orchestrator", "context"}
    REQUIRED_MODULE_SPEC_FIELDS: ClassVar[set[str]] = {"module"}

    def validate(self, mount_plan: Any) -> MountPlanValidationResult:
        result = MountPlanValidationResult()
        if not isinstance(mount_plan, dict):
            _fail(result, "root_type", f"Mount plan must be a dict, got {_type(mount_plan)}")
            return result
        _pass(result, "root_type", "Mount plan is a dict")
        if "session" not in mount_plan:
            _fail(result, "session_present", "Mount plan missing required 'session' section")
            return result
        _pass(result, "session_present", "Session section present")
        unknown = set(mount_plan) - self.REQUIRED_SECTIONS - self.OPTIONAL_SECTIONS
        if unknown:
            message = f"Unknown sections will be ignored: {sorted(unknown)}"
            result.add(ValidationCheck("unknown_sections", False, message, "warning"))
        session = mount_plan["session"]
        if not isinstance(session, dict):
            _fail(result, "session_type", f"Session section must be a dict, got {_type(session)}")
            return result
        for name in ("orchestrator", "context"):
            if name not in session:
                message = f"Session section missing required '{name}' field"
                _fail(result, f"session_{name}_present", message)
            else:
                self._spec(result, session[name], f"session.{name}")
        for section in ("providers", "tools", "hooks"):
            if section not in mount_plan:
                continue
            specs = mount_plan[section]
            if not isinstance(specs, list):
                message = f"'{section}' section must be a list, got {_type(specs)}"
                _fail(result, f"{section}_type", message)
                continue
            for index, spec in enumerate(specs):
                self._spec(result, spec, f"{section}[{index}]")
        return result

    def _spec(self, result: MountPlanValidationResult, spec: Any, where: str) -> None:
        key = f"{where}_"
        if not isinstance(spec, dict):
            _fail(result, f"{key}type", f"Module spec at {where} must be a dict, got {_type(spec)}")
            return
        if "module" not in spec:
            message = (
                f"Module spec at {where} missing required 'module' field.\n"
                f"  Got: {spec!r}\n  Expected: {_SPEC_EXAMPLE}"
            )
            _fail(result, f"{key}module_required", message)
        else:
            module = spec["module"]
            if not isinstance(module, str):
                message = f"Module path at {where} must be a string, got {_type(module)}"
                _fail(result, f"{key}module_type", message)
            elif not module.strip():
                _fail(result, f"{key}module_empty", f"Module path at {where} cannot be empty")
            else:
                _pass(result, f"{key}module_valid", f"Module path '{module}' at {where} is valid")
        if "config" in spec and not isinstance(spec["config"], dict):
            message = f"Config at {where} must be a dict, got {_type(spec['config'])}"
            _fail(result, f"{key}config_type", message)
        if "source" in spec and not isinstance(spec["source"], str):
            message = f"Source at {where} must be a string, got {_type(spec['source'])}"
            _fail(result, f"{key}source_type", message)


def _type(value: Any) -> str:
    return type(value).__name__


def _pass(result: MountPlanValidationResult, name: str, message: str) -> None:
    result.add(ValidationCheck(name, True, message, "info"))


def _fail(result: MountPlanValidationResult, name: str, message: str) -> None:
    result.add(ValidationCheck(name, False, message, "error"))
