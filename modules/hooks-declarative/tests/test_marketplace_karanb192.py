"""A real marketplace mounted as the README says: karanb192/claude-code-hooks at commit
811aeb7279e2 (MIT; ``fixtures/claude-code-hooks-811aeb7.tar.gz`` is ``git archive`` of its
``.claude-plugin/``, ``plugins/`` and ``LICENSE``). Its 20 plugins use Claude Code's
``"async": true``; every one loads, and its guards answer a real tool call."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_testsupport.environment import working_dir

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount, parse_config
from amplifier_module_hooks_declarative.survey import survey_sources

ARCHIVE = Path(__file__).parent / "fixtures" / "claude-code-hooks-811aeb7.tar.gz"
PLUGINS = 20


@pytest.fixture
def marketplace(tmp_path: Path) -> Path:
    with tarfile.open(ARCHIVE) as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "claude-code-hooks"


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    return working_dir(tmp_path, "project")


def test_every_plugin_of_the_marketplace_is_listed_with_its_hooks(
    marketplace: Path, project: Path
) -> None:
    settings = parse_config({"include_user": False, "plugins": [str(marketplace)]})
    survey = survey_sources(settings, project_dir=project, user_dir=project)
    with_hooks = {hook.source.split(":")[0] for hook in survey.hooks}
    names = {
        label.removeprefix("plugin ").removesuffix("@claude-code-hooks") for label in with_hooks
    }
    assert len(names) == PLUGINS  # config-watch too: ConfigChange fires on hook file changes
    assert not [s for s in survey.skipped if s.fatal]


async def test_the_marketplace_mounts_and_its_guards_answer_a_tool_call(
    marketplace: Path, project: Path
) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed; the marketplace's hooks are Node scripts")
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, "plugins": [str(marketplace)]})

    def bash(command: str) -> dict[str, Any]:
        return {"tool_name": "bash", "tool_input": {"command": command}, "session_id": "s-1"}

    try:
        safe = await coordinator.hooks.emit("tool:pre", bash("ls -la"))
        dangerous = await coordinator.hooks.emit("tool:pre", bash("rm -rf ~/"))
    finally:
        await cleanup()
    assert safe is None or safe.action != "deny"
    assert dangerous.action == "deny"
    assert dangerous.reason
