"""The Codex, Factory Droid and GitHub Copilot files treated as the older formats are: a file
named in ``files`` is read as its format's, ``observe_sources`` observes them, ``sandbox:
project`` contains them, and the project's trust record covers them (a changed or added file
stops the session)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.config import parse_config
from amplifier_module_hooks_declarative.discovery import find_sources, load_documents
from amplifier_module_hooks_declarative.document import HooksConfigError
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.trust import trust_project

GUARD = "echo 'blocked by policy' >&2; exit 2"
FILES = {
    ".codex/hooks.json": {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": GUARD}]}]}
    },
    ".factory/hooks.json": {"PreToolUse": [{"hooks": [{"type": "command", "command": GUARD}]}]},
    ".github/hooks/guard.json": {"hooks": {"PreToolUse": [{"type": "command", "command": GUARD}]}},
}
PROTOCOLS = {
    ".codex/hooks.json": "codex",
    ".factory/hooks.json": "factory",
    ".github/hooks/guard.json": "copilot",
}


def install(project: Path, name: str, data: Any | None = None) -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(FILES[name] if data is None else data, indent=2))
    return path


async def decide(project: Path, config: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    observed: list[dict[str, Any]] = []

    async def note(_event: str, data: dict[str, Any]) -> None:
        observed.append(data)

    coordinator.hooks.register("hook:observed", note, name="test-observer")
    cleanup = await mount(coordinator, {"include_user": False, **config})
    try:
        bash = {"tool_name": "bash", "tool_input": {"command": "ls"}}
        result = await coordinator.hooks.emit("tool:pre", bash)
        return result.action, observed
    finally:
        await cleanup()


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_file_named_in_files_is_read_as_its_format(tmp_path: Path, name: str) -> None:
    path = install(tmp_path / "elsewhere", name)
    settings = parse_config({"files": [str(path)], "include_user": False, "include_project": False})
    documents = load_documents(settings, project_dir=tmp_path, user_dir=tmp_path / "home")
    [document] = documents
    [entry] = list(document.entries())
    assert isinstance(entry.spec, CommandHookSpec)
    assert entry.spec.protocol == PROTOCOLS[name]


@pytest.mark.parametrize("name", sorted(FILES))
async def test_observe_sources_observes_the_format_file(project: Path, name: str) -> None:
    install(project, name)
    trust_project(project)
    assert (await decide(project, {}))[0] == "deny"
    action, observed = await decide(project, {"observe_sources": [name]})
    assert action != "deny"
    assert len(observed) == 1
    assert observed[0]["hook"].startswith(f"{name}:")
    assert (observed[0]["decision"], observed[0]["reason"]) == ("deny", "blocked by policy")


needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap is not installed",
)


@needs_bwrap
@pytest.mark.parametrize("name", sorted(FILES))
async def test_sandbox_project_contains_the_format_file(
    project: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    escape = f"touch '{outside / 'escaped'}' 2>/dev/null; echo 'ran' >&2; exit 2"
    data = json.loads(json.dumps(FILES[name]).replace(json.dumps(GUARD)[1:-1], escape))
    install(project, name, data)
    trust_project(project)
    assert (await decide(project, {"sandbox": "project"}))[0] == "deny"  # it ran ...
    assert not (outside / "escaped").exists()  # ... and could not write outside the project


@pytest.mark.parametrize("name", sorted(FILES))
async def test_a_file_added_after_trust_stops_the_session(project: Path, name: str) -> None:
    (project / "README.md").write_text("a project\n")
    trust_project(project)
    install(project, name)
    settings = parse_config({"include_user": False})
    kinds = [s.kind for s in find_sources(settings, project_dir=project, user_dir=project / "u")]
    assert {"codex-hooks", "factory-hooks"} <= set(kinds)
    with pytest.raises(HooksConfigError, match="changed since you trusted it"):
        await decide(project, {})
