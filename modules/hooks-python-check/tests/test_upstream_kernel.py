"""The module runs unchanged on amplifier-core 2.0.2 (PyPI), in that release's own environment."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

RUFF = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))

SCRIPT = """
import asyncio, json, os, sys
import amplifier_core
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_python_check import mount

project, ruff = sys.argv[1], sys.argv[2]

async def main():
    coordinator = create_test_coordinator()
    config = {
        "checks": ["ruff", "format", "stubs", "mypy"] if ruff else ["stubs", "mypy"],
        "commands": {"ruff": ruff or "ruff", "mypy": project + "/no-such-mypy"},
        "working_dir": project,
    }
    cleanup = await mount(coordinator, config)
    data = {
        "tool_name": "write_file",
        "tool_input": {"file_path": "mod.py", "content": "..."},
        "tool_result": {"success": True, "output": {"file_path": project + "/mod.py"}},
    }
    first = await coordinator.hooks.emit("tool:post", data)
    second = await coordinator.hooks.emit("tool:post", data)
    other = await coordinator.hooks.emit("tool:post", {**data, "tool_name": "read_file"})
    registered = coordinator.hooks.list_handlers()
    cleanup()
    fields = ("action", "context_injection", "ephemeral", "append_to_last_tool_result",
              "user_message", "user_message_level", "user_message_source")
    print(json.dumps({
        "version": amplifier_core.__version__,
        "first": {name: getattr(first, name) for name in fields},
        "second_message": second.user_message,
        "other": [other.action, other.context_injection],
        "registered": registered,
        "after_cleanup": coordinator.hooks.list_handlers(),
    }))

asyncio.run(main())
"""


@needs_upstream
def test_checks_a_written_file_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    (tmp_path / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')
    (tmp_path / "mod.py").write_text("import os\n\n\ndef later() -> None:\n    pass  # TODO\n")
    out = run_upstream(
        SCRIPT, tmp_path, sources=[module_source(__file__)], args=[str(tmp_path), RUFF or ""]
    )
    report = json.loads(out.strip().splitlines()[-1])
    assert report["version"] == "2.0.2"
    first = report["first"]
    assert first["action"] == "inject_context"
    assert first["ephemeral"] is True
    assert first["append_to_last_tool_result"] is True
    assert (first["user_message_level"], first["user_message_source"]) == (
        "warning",
        "python-check",
    )
    found, _, unchecked = first["context_injection"].partition("\n\n")
    found = found.splitlines()[1:]
    stubs = [
        "mod.py:4:1: [stubs empty-body] function `later` has no implementation: its body is "
        "only `pass`",
        "mod.py:5:13: [stubs TODO] TODO marker",
    ]
    if RUFF:
        assert found[0].startswith("mod.py:1:8: [ruff F401] ")
        assert found[1:] == stubs
        assert unchecked.splitlines()[1:] == ["mypy did not run: mypy is not available"]
        assert first["user_message"].startswith(
            "python-check: 3 issues in mod.py (ruff 1, stubs 2); mypy is not available ("
        )
        assert report["second_message"] == "python-check: 3 issues in mod.py (ruff 1, stubs 2)"
    else:
        assert found == stubs
        assert report["second_message"] == "python-check: 2 issues in mod.py (stubs 2)"
    assert report["other"] == ["continue", None]
    assert report["registered"] == {"tool:post": ["hooks-python-check"]}
    assert all(not names for names in report["after_cleanup"].values())
