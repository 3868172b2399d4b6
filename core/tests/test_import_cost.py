"""What ``import amplifier_core`` loads: only what a hook needs, nothing of the application.

Each check runs in a fresh interpreter and looks at ``sys.modules`` (no timing): the heavy or
optional parts (structlog for audit records, the coordinator, loader,
session and provider-facing models) load when first used, never on import, and the import
loads no module beyond what defining one pydantic model loads, besides this package's own.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

import pytest

NEVER = ("structlog", "yaml", "httpx", "click", "rich", "pluggy", "amplifier_hooks_util")
HOOK_PARTS = [
    "amplifier_core",
    "amplifier_core._version",
    "amplifier_core.errors",
    "amplifier_core.events",
    "amplifier_core.handlers",
    "amplifier_core.hooks",
    "amplifier_core.models",
]
PYDANTIC_FLOOR = """
import pydantic
class M(pydantic.BaseModel):
    a: int = 0
    b: str = ""
"""


def _loaded(code: str) -> dict[str, list[str]]:
    """What a fresh interpreter has in ``sys.modules`` after running ``code``: every module
    (``all``), the top-level names (``tops``) and this package's modules (``ours``)."""
    probe = f"import sys\n{textwrap.dedent(code).strip()}\nprint(sorted(sys.modules))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    names: list[str] = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    return {
        "all": names,
        "tops": sorted({name.split(".")[0] for name in names}),
        "ours": [name for name in names if name.startswith("amplifier_core")],
    }


HOOK_IMPORTS = [
    "import amplifier_core",
    "import amplifier_core\nfrom amplifier_core import HookResult, HookRegistry",
    "from amplifier_core import HookRegistry, HookResult, ToolResult, events",
]


@pytest.mark.parametrize("code", HOOK_IMPORTS)
def test_a_hook_authors_import_loads_the_hook_parts_only(code: str) -> None:
    loaded = _loaded(code)
    assert [name for name in NEVER if name in loaded["tops"]] == []
    assert loaded["ours"] == HOOK_PARTS


@pytest.mark.parametrize("code", HOOK_IMPORTS)
def test_a_hook_authors_import_loads_nothing_beyond_a_pydantic_model(code: str) -> None:
    floor = set(_loaded(PYDANTIC_FLOOR)["all"])
    extra = [
        name
        for name in _loaded(code)["all"]
        if name not in floor and name.split(".")[0] not in ("amplifier_core", "pydantic")
    ]
    assert extra == []  # asyncio, logging and json among others load on first use


def test_emit_with_timeouts_and_failures_works_after_the_light_import() -> None:
    loaded = _loaded(
        """
        import asyncio
        from amplifier_core import HookRegistry, HookResult

        async def slow(event, data):
            await asyncio.Event().wait()

        def broken(event, data):
            raise RuntimeError("boom")

        async def main():
            registry = HookRegistry()
            registry.register("tool:pre", slow, name="slow", timeout=0.01)
            registry.register("tool:pre", broken, name="broken")
            result = await registry.emit("tool:pre", {})
            assert result.action == "continue", result
            collected = await registry.emit_and_collect("tool:pre", {}, timeout=0.01)
            assert collected == [], collected

        asyncio.run(main())
        """
    )
    assert "logging" in loaded["tops"]  # the failures were logged


def test_a_coordinator_does_not_load_structlog_or_yaml_until_needed() -> None:
    loaded = _loaded(
        """
        import amplifier_core
        amplifier_core.ModuleCoordinator().hooks
        """
    )
    assert "structlog" not in loaded["tops"]
    assert "yaml" not in loaded["tops"]


def test_a_rendered_audit_record_loads_no_logging_library() -> None:
    loaded = _loaded(
        """
        import io
        from amplifier_core.audit import AuditTrail
        trail = AuditTrail(io.StringIO())
        trail.record("deny", hook="h", event="tool:pre", reason="no")
        assert '"hash": "' in trail._stream.getvalue()
        """
    )
    assert "structlog" not in loaded["tops"]


def test_no_public_name_of_the_kernel_loads_pyyaml() -> None:
    loaded = _loaded(
        """
        import amplifier_core
        for name in amplifier_core.__all__:
            getattr(amplifier_core, name)
        """
    )
    assert "amplifier_core.session" in loaded["ours"]
    assert "yaml" not in loaded["tops"]


@pytest.mark.parametrize("name", ["ModelInfo", "ProviderInfo", "SessionStatus", "ConfigField"])
def test_description_models_are_still_found_where_amplifier_core_has_them(name: str) -> None:
    loaded = _loaded(
        f"""
        from amplifier_core import models
        from amplifier_core.models import {name}
        import amplifier_core
        assert getattr(amplifier_core, "{name}") is {name}
        """
    )
    assert "amplifier_core.descriptions" in loaded["ours"]
