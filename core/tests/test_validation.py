"""amplifier_core.validation: the module validators, the mount plan check, the wire-schema
checks, and the structural / behavioral test classes a module's own suite inherits."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from amplifier_core.validation import (
    ContextValidator,
    HookValidator,
    MountPlanValidator,
    OrchestratorValidator,
    ProviderValidator,
    ToolValidator,
    ValidationCheck,
    ValidationResult,
)
from amplifier_core.validation.base import check_on_session_ready, import_module_from_path
from amplifier_core.validation.proto_schema import validate_hook_result, validate_tool_result

_names = itertools.count()

HOOK = """
from amplifier_core import HookResult

async def mount(coordinator, config):
    async def on_tool_pre(event, data):
        return HookResult(action="continue")
    return coordinator.hooks.register("tool:pre", on_tool_pre, name="guard")
"""

TOOL = """
from amplifier_core import ToolResult

class Echo:
    name = "echo"
    description = "Says it back"
    input_schema = {"type": "object"}

    async def execute(self, input):
        if "text" not in input:
            return ToolResult(success=False, error={"message": "text is required"})
        return ToolResult(success=True, output=input["text"])

async def mount(coordinator, config):
    await coordinator.mount("tools", Echo(), name="echo")
"""

PROVIDER = """
from amplifier_core import ProviderInfo

class Quiet:
    name = "quiet"
    def get_info(self):
        return ProviderInfo(id="quiet", display_name="Quiet")
    async def list_models(self):
        return []
    async def complete(self, request, **kwargs):
        raise NotImplementedError
    def parse_tool_calls(self, response):
        return []

async def mount(coordinator, config):
    await coordinator.mount("providers", Quiet(), name="quiet")
"""

ORCHESTRATOR = """
class Echoing:
    async def execute(self, prompt, context, providers, tools, hooks):
        await context.add_message({"role": "user", "content": prompt})
        await context.add_message({"role": "assistant", "content": prompt})
        return prompt

async def mount(coordinator, config):
    await coordinator.mount("orchestrator", Echoing())
"""

CONTEXT = """
class Memory:
    def __init__(self):
        self.messages = []
    async def add_message(self, message):
        self.messages.append(message)
    async def get_messages(self):
        return list(self.messages)
    async def get_messages_for_request(self, token_budget=None, provider=None):
        return list(self.messages)
    async def set_messages(self, messages):
        self.messages = list(messages)
    async def clear(self):
        self.messages = []

async def mount(coordinator, config):
    await coordinator.mount("context", Memory())
"""


def _module(tmp_path: Path, source: str, kind: str = "hooks") -> Path:
    """A package directory ``amplifier_module_<kind>_<n>`` holding ``source``."""
    package = tmp_path / f"amplifier_module_{kind}_v{next(_names)}"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(source))
    return package


def _failed(result: ValidationResult) -> dict[str, str]:
    return {check.name: check.message for check in result.errors}


@pytest.mark.parametrize(
    ("validator", "source", "kind"),
    [
        (HookValidator(), HOOK, "hooks"),
        (ToolValidator(), TOOL, "tool"),
        (ProviderValidator(), PROVIDER, "provider"),
        (OrchestratorValidator(), ORCHESTRATOR, "loop"),
        (ContextValidator(), CONTEXT, "context"),
    ],
)
async def test_a_module_that_keeps_its_contract_passes(
    tmp_path: Path, validator: HookValidator, source: str, kind: str
) -> None:
    result = await validator.validate(_module(tmp_path, source, kind))
    assert result.passed, result.checks
    names = [check.name for check in result.checks]
    first = ["module_importable", "mount_exists", "mount_signature", "protocol_compliance"]
    assert names[:4] == first
    assert result.summary().startswith(f"PASSED: {len(result.checks)}/{len(result.checks)}")


async def test_each_broken_step_is_named(tmp_path: Path) -> None:
    missing = await HookValidator().validate(tmp_path / "nowhere_to_be_found")
    assert "module_importable" in _failed(missing)
    empty = tmp_path / "amplifier_module_hooks_empty"
    empty.mkdir()
    no_init = await HookValidator().validate(empty)
    assert "__init__.py" in _failed(no_init)["module_importable"]
    no_mount = await ToolValidator().validate(_module(tmp_path, "X = 1\n", "tool"))
    assert _failed(no_mount) == {"mount_exists": "No mount() function found in module"}
    sync = await ProviderValidator().validate(
        _module(tmp_path, "def mount(coordinator, config):\n    return None\n", "provider")
    )
    assert "async" in _failed(sync)["mount_signature"]
    one = await ProviderValidator().validate(
        _module(tmp_path, "async def mount(coordinator):\n    return None\n", "provider")
    )
    assert "2 parameters" in _failed(one)["mount_signature"]


async def test_what_was_mounted_is_checked(tmp_path: Path) -> None:
    nothing = await ToolValidator().validate(
        _module(tmp_path, "async def mount(coordinator, config):\n    return None\n", "tool")
    )
    assert "No tool was mounted" in _failed(nothing)["protocol_compliance"]
    sync_execute = TOOL.replace("async def execute", "def execute")
    tool = await ToolValidator().validate(_module(tmp_path, sync_execute, "tool"))
    assert _failed(tool) == {"tool_execute": "Tool.execute() should be async"}
    no_clear = CONTEXT.replace("async def clear", "async def wipe")
    context = await ContextValidator().validate(_module(tmp_path, no_clear, "context"))
    assert "missing add_message" in _failed(context)["protocol_compliance"]
    raising = "async def mount(coordinator, config):\n    raise RuntimeError('no key')\n"
    failed = await HookValidator().validate(_module(tmp_path, raising))
    assert "no key" in _failed(failed)["protocol_compliance"]


async def test_a_tools_input_schema_is_reported_as_2_0_2_reports_it(tmp_path: Path) -> None:
    def schema_checks() -> list[tuple[bool, str, str]]:
        return [(c.passed, c.severity, c.message) for c in result.checks if c.name == name]

    name = "tool_input_schema"
    result = await ToolValidator().validate(_module(tmp_path, TOOL, "tool"))
    assert schema_checks() == [(True, "info", "Tool.input_schema returns dict with 1 properties")]
    names = [c.name for c in result.checks]
    assert names.index("tool_description") < names.index(name) < names.index("tool_execute")

    no_schema = TOOL.replace('    input_schema = {"type": "object"}\n', "")
    result = await ToolValidator().validate(_module(tmp_path, no_schema, "tool"))
    assert schema_checks() == [(True, "info", "Tool.input_schema returns dict with 0 properties")]

    listed = TOOL.replace('input_schema = {"type": "object"}', 'input_schema = ["type"]')
    result = await ToolValidator().validate(_module(tmp_path, listed, "tool"))
    assert schema_checks() == [
        (False, "warning", "Tool.input_schema should return a dict, got list")
    ]
    assert result.passed
    assert [c.name for c in result.warnings] == [name]


async def test_on_session_ready_must_be_async_and_take_the_coordinator(tmp_path: Path) -> None:
    sync = HOOK + "\ndef on_session_ready(coordinator):\n    pass\n"
    result = await HookValidator().validate(_module(tmp_path, sync))
    assert "must be async" in _failed(result)["on_session_ready_async"]
    names = [check.name for check in result.checks]
    assert names.index("on_session_ready_async") == names.index("mount_signature") + 1

    class NoArgument:
        @staticmethod
        async def on_session_ready() -> None:
            return None

    check = check_on_session_ready(NoArgument)
    assert check is not None
    assert "coordinator argument" in check.message
    assert check_on_session_ready(object()) is None


def test_a_module_name_loaded_from_elsewhere_is_refused(tmp_path: Path) -> None:
    first = _module(tmp_path, HOOK)
    assert import_module_from_path(first) is sys.modules[first.name]
    other = tmp_path / "b"
    other.mkdir()
    twin = other / first.name
    twin.mkdir()
    (twin / "__init__.py").write_text(HOOK)
    with pytest.raises(ImportError, match="already loaded from"):
        import_module_from_path(twin)


def test_result_counts() -> None:
    result = ValidationResult(module_type="hook", module_path="x")
    result.add(ValidationCheck("a", True, "fine", "info"))
    result.add(ValidationCheck("b", False, "odd", "warning"))
    assert result.passed
    assert [w.name for w in result.warnings] == ["b"]
    result.add(ValidationCheck("c", False, "bad", "error"))
    assert not result.passed
    assert result.summary() == "FAILED: 1/3 checks passed (1 errors, 1 warnings)"


SESSION = {"orchestrator": {"module": "loop-basic"}, "context": {"module": "context-simple"}}


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (None, "Mount plan must be a dict, got NoneType"),
        ({}, "Mount plan missing required 'session' section"),
        ({"session": []}, "Session section must be a dict, got list"),
        ({"session": {"context": {"module": "c"}}}, "missing required 'orchestrator'"),
        ({"session": {**SESSION, "orchestrator": "loop"}}, "must be a dict, got str"),
        ({"session": {**SESSION, "context": {"module": ""}}}, "cannot be empty"),
        ({"session": {**SESSION, "context": {"module": 3}}}, "must be a string, got int"),
        ({"session": {**SESSION, "context": {"module": "c", "config": []}}}, "Config at"),
        ({"session": {**SESSION, "context": {"module": "c", "source": 1}}}, "Source at"),
        ({"session": SESSION, "tools": {"module": "t"}}, "'tools' section must be a list"),
        ({"session": SESSION, "hooks": [{"config": {}}]}, "hooks[0] missing required 'module'"),
    ],
)
def test_mount_plan_mistakes(plan: object, message: str) -> None:
    result = MountPlanValidator().validate(plan)
    assert not result.passed
    assert any(message in check.message for check in result.errors), result.format_errors()
    assert result.format_errors().startswith("Mount Plan Validation Failed:")


def test_a_good_mount_plan_passes_and_unknown_sections_warn() -> None:
    plan = {"session": SESSION, "providers": [{"module": "p", "config": {}}], "extra": 1}
    result = MountPlanValidator().validate(plan)
    assert result.passed
    assert [w.name for w in result.warnings] == ["unknown_sections"]
    assert result.format_errors() == "No errors"


def test_wire_schema_checks() -> None:
    assert validate_tool_result({"success": True}) == []
    assert validate_tool_result({}) == ["Missing required field: 'success'"]
    assert validate_tool_result({"success": "yes"}) == ["Field 'success' must be bool, got str"]
    assert validate_hook_result({}) == []
    errors = validate_hook_result(
        {"action": "stop", "context_injection_role": "tool", "approval_default": "maybe"}
    )
    assert [e.split("'")[0] for e in errors] == [
        "Invalid action ",
        "Invalid context_injection_role ",
        "Invalid approval_default ",
    ]


AUTHOR_TESTS = """
from amplifier_core.validation.behavioral import {kind}BehaviorTests
from amplifier_core.validation.structural import {kind}StructuralTests


class TestBehavior({kind}BehaviorTests):
    pass


class TestStructure({kind}StructuralTests):
    pass
"""


def _author_project(root: Path, kind: str, source: str, package: str, ini: str = "") -> Path:
    """A module repository as Amplifier's authors lay it out, with inherited contract tests."""
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text(textwrap.dedent(source))
    (root / "tests").mkdir()
    (root / "tests" / "test_contract.py").write_text(AUTHOR_TESTS.format(kind=kind))
    (root / "pyproject.toml").write_text(f'[project]\nname = "{root.name}"\n' + ini)
    return root


def _pytest(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("kind", "source", "package", "count"),
    [
        ("Hook", HOOK, "amplifier_module_hooks_guard", 9),
        ("Tool", TOOL, "src/amplifier_module_tool_echo", 8),
        ("Provider", PROVIDER, "amplifier_module_provider_quiet", 6),
        ("Orchestrator", ORCHESTRATOR, "amplifier_module_loop_echo", 7),
        ("Context", CONTEXT, "amplifier_module_context_memory", 11),
    ],
)
def test_an_author_inherits_the_contract_tests(
    tmp_path: Path, kind: str, source: str, package: str, count: int
) -> None:
    project = _author_project(tmp_path / "amplifier-module-x", kind, source, package)
    done = _pytest(project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{count} passed" in done.stdout, done.stdout


def test_strict_asyncio_projects_run_them_too_and_a_broken_module_fails_by_name(
    tmp_path: Path,
) -> None:
    broken = HOOK.replace("async def mount(coordinator, config)", "async def mount(coordinator)")
    ini = '[tool.pytest.ini_options]\nasyncio_mode = "strict"\n'
    project = _author_project(tmp_path / "proj", "Hook", broken, "amplifier_module_hooks_b", ini)
    done = _pytest(project)
    assert done.returncode == 1
    assert "mount_signature: mount() should have at least 2 parameters" in done.stdout


@pytest.mark.parametrize("style", ["def", "async def"])
def test_a_hook_module_whose_cleanup_raises_fails_by_its_error(tmp_path: Path, style: str) -> None:
    raising = HOOK.replace(
        '    return coordinator.hooks.register("tool:pre", on_tool_pre, name="guard")',
        '    coordinator.hooks.register("tool:pre", on_tool_pre, name="guard")\n'
        f"    {style} cleanup():\n"
        '        raise RuntimeError("socket already closed")\n'
        "    return cleanup",
    )
    project = _author_project(tmp_path / "proj", "Hook", raising, "amplifier_module_hooks_r")
    done = _pytest(project)
    assert done.returncode == 1, done.stdout
    assert "1 failed, 8 passed" in done.stdout, done.stdout
    assert "test_cleanup_does_not_raise" in done.stdout
    assert "raised RuntimeError: socket already closed" in done.stdout


def _compacting_context(should_compact: str, compact: str, add_message: str) -> str:
    """CONTEXT with amplifier-core's compaction methods and the given method bodies."""
    return CONTEXT.replace(
        "    async def add_message(self, message):\n        self.messages.append(message)\n",
        f"    async def add_message(self, message):\n        {add_message}\n"
        f"    def _should_compact(self, token_count, budget):\n        return {should_compact}\n"
        f"    async def _compact_internal(self):\n        {compact}\n",
    )


# A code error on an empty message only: len(None).
_SIZES_CONTENT = "self.messages.append({**message, 'size': len(message.get('content'))})"
_KEEPS_CONTRACT = {
    "should_compact": "token_count > budget",
    "compact": "self.messages = self.messages[-1:]",
    "add_message": "if not message: raise ValueError('a message needs a role')\n"
    "        self.messages.append(message)",
}


@pytest.mark.parametrize(
    ("change", "failing", "says"),
    [
        ({}, None, None),
        (
            {"should_compact": "'later'"},
            "test_internal_should_compact_returns_bool",
            "_should_compact() must return a bool, got str",
        ),
        (
            {"compact": "self.summary.append(self.messages)"},
            "test_internal_compact_does_not_crash",
            "_compact_internal() crashed: AttributeError",
        ),
        (
            {"add_message": _SIZES_CONTENT},
            "test_add_invalid_message_does_not_crash",
            "add_message({}) crashed: TypeError",
        ),
    ],
)
def test_a_context_module_keeps_the_compaction_and_odd_message_contract(
    tmp_path: Path, change: dict[str, str], failing: str | None, says: str | None
) -> None:
    """amplifier-core 2.0.2's ContextBehaviorTests call ``_should_compact`` (with no argument
    or ``(token_count, budget)``) and ``_compact_internal`` when a context manager has them,
    and ``add_message({})``: a non-bool answer or a code error (AttributeError, TypeError)
    fails, any other error is the module refusing bad input."""
    source = _compacting_context(**{**_KEEPS_CONTRACT, **change})
    project = _author_project(tmp_path / "proj", "Context", source, "amplifier_module_context_c")
    done = _pytest(project)
    if failing is None:
        assert done.returncode == 0, done.stdout + done.stderr
        assert "11 passed" in done.stdout, done.stdout
        return
    assert done.returncode == 1, done.stdout
    assert "1 failed, 10 passed" in done.stdout, done.stdout
    assert f"TestBehavior::{failing}" in done.stdout, done.stdout
    assert says is None or says in done.stdout, done.stdout
