"""What ``import amplifier_core`` loads: only what a hook needs, nothing of the application.

Each check runs in a fresh interpreter and looks at ``sys.modules`` (no timing): the heavy or
optional parts (PyYAML for bundles, structlog for audit records, the coordinator, loader,
session and provider-facing models) load when first used, never on import.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

NEVER = ("structlog", "yaml", "httpx", "click", "rich", "pluggy", "amplifier_hooks_util")


def _loaded(code: str) -> dict[str, list[str]]:
    probe = textwrap.dedent(
        f"""
        import json, sys
        {textwrap.indent(textwrap.dedent(code), "        ").strip()}
        tops = sorted({{m.split(".")[0] for m in sys.modules}})
        ours = sorted(m for m in sys.modules if m.startswith("amplifier_core"))
        print(json.dumps({{"tops": tops, "ours": ours}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_hook_authors_import_loads_the_hook_parts_only() -> None:
    loaded = _loaded("from amplifier_core import HookRegistry, HookResult, ToolResult, events")
    assert [name for name in NEVER if name in loaded["tops"]] == []
    assert loaded["ours"] == [
        "amplifier_core",
        "amplifier_core.errors",
        "amplifier_core.events",
        "amplifier_core.hooks",
        "amplifier_core.models",
    ]


def test_a_coordinator_does_not_load_structlog_or_yaml_until_needed() -> None:
    loaded = _loaded(
        """
        import amplifier_core
        amplifier_core.ModuleCoordinator().hooks
        """
    )
    assert "structlog" not in loaded["tops"]
    assert "yaml" not in loaded["tops"]


def test_the_first_rendered_audit_record_loads_structlog() -> None:
    loaded = _loaded(
        """
        import io
        from amplifier_core.audit import AuditTrail
        trail = AuditTrail(io.StringIO())
        assert "structlog" not in sys.modules
        trail.record("deny", hook="h", event="tool:pre", reason="no")
        """
    )
    assert "structlog" in loaded["tops"]


def test_reading_a_bundle_loads_pyyaml() -> None:
    loaded = _loaded(
        """
        import amplifier_core
        amplifier_core.parse_bundle("bundle: {name: b}\\n", "b.yaml")
        """
    )
    assert "yaml" in loaded["tops"]


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
