"""Importing and mounting the module loads no part of the first snapshot: reading git's state
(``snapshot``) and rendering the block (``render``) are imported when first used."""

from __future__ import annotations

from amplifier_hooks_testsupport.imports import modules_loaded_by

_LATER = (
    "amplifier_module_hooks_status_context.render",
    "amplifier_module_hooks_status_context.snapshot",
)


def test_mount_imports_no_snapshot_or_render() -> None:
    code = """
import asyncio, json, sys
import amplifier_module_hooks_status_context as status

class Registry:
    def register(self, event, handler, priority=0, name=None):
        return lambda: None

class Coordinator:
    hooks = Registry()
    session_id = "s"
    def get_capability(self, name):
        return None

asyncio.run(status.mount(Coordinator(), {}))
print(json.dumps(sorted(sys.modules)))
"""
    loaded = modules_loaded_by(code)
    assert "amplifier_module_hooks_status_context.hook" in loaded
    early = [name for name in _LATER if name in loaded]
    assert early == [], f"imported at mount: {early}"


def test_the_names_kept_for_later_are_still_there() -> None:
    code = """
import json, sys
import amplifier_module_hooks_status_context as status
from amplifier_module_hooks_status_context import render, snapshot
for name in ("CLOSE_TAG", "OPEN_TAG", "Environment", "render_block"):
    assert getattr(status, name) is getattr(render, name), name
for name in ("GitFacts", "RepoLayout", "find_dot_git", "take_git_facts"):
    assert getattr(status, name) is getattr(snapshot, name), name
for name in status.__all__:
    getattr(status, name)
try:
    status.nothing_here
except AttributeError as err:
    assert "nothing_here" in str(err)
else:
    raise SystemExit("no AttributeError")
print(json.dumps(sorted(sys.modules)))
"""
    assert set(_LATER) <= set(modules_loaded_by(code))
