"""Claude Code plugins and hook-shell directories in a full session: installed the way their
own READMEs say (a plugin checkout and a marketplace listed in the bundle's ``plugins``, a
hook-shell hook copied into ``.amplifier/hooks/``), the bundle mounts hooks-declarative, the
scripted model works, and the plugins' Python and Node scripts and hook-shell's script decide,
add context and leave their side effects."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.trust import trust_project

from . import support
from .support import DECLARATIVE_FIXTURES, call, make_bundle, module, sent, tool_results

PLUGINS = DECLARATIVE_FIXTURES / "claude-plugins"
HOOK_SHELL = DECLARATIVE_FIXTURES / "hook-shell"
GUARD_REASON = "security-guard: rm -rf is blocked; delete specific files instead"
ACME_CONTEXT = "ACME convention: name branches feature/<ticket>."


pytestmark = pytest.mark.usefixtures("python3_on_path")


@pytest.fixture
def checkouts(tmp_path: Path) -> Path:
    """Where the user keeps plugin checkouts (``git clone`` of each): a path with a space."""
    path = tmp_path / "plugin checkouts"
    for name in ("security-guard", "acme-marketplace"):
        shutil.copytree(PLUGINS / name, path / name)
    return path.resolve()


@pytest.fixture
def victim(workspace: Path) -> Path:
    (workspace / "victim").mkdir()
    (workspace / "victim" / "data.txt").write_text("keep me")
    return workspace / "victim"


def bundle(**config: Any) -> Any:
    return make_bundle(hooks=[module("hooks-declarative", config)])


async def test_the_guard_plugin_stops_rm_rf_and_the_model_reads_why(
    workspace: Path, victim: Path, checkouts: Path
) -> None:
    script = [
        call("bash", command="rm -rf victim"),
        {"text": "Understood, I will leave it.", "expect": GUARD_REASON},
    ]
    session, recorder, provider = support.session_for(
        workspace, script, bundle(plugins=[str(checkouts / "security-guard")]), strict=True
    )
    async with session:
        outcome = await session.run("clean up the workspace")
    assert outcome.status == "completed"
    assert outcome.response == "Understood, I will leave it."
    assert (victim / "data.txt").read_text() == "keep me"
    assert "tool:post" not in recorder.names
    [result] = tool_results(provider)
    assert result == (
        "Error: tool call denied by hook 'plugin security-guard: "
        f"hooks/hooks.json:hooks.PreToolUse[0].hooks[0]': {GUARD_REASON}"
    )


async def test_a_marketplace_plugin_adds_context_and_a_disabled_one_stays_out(
    workspace: Path, checkouts: Path
) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed; the prompt-context plugin's hook is a Node script")
    config = {
        "plugins": [str(checkouts / "acme-marketplace")],
        "disabled_plugins": ["edit-formatter@acme-tools"],
    }
    script = [call("bash", command="echo started"), {"text": "Branch started."}]
    session, _, provider = support.session_for(workspace, script, bundle(**config), strict=True)
    async with session:
        outcome = await session.run("start a branch for ticket 42")
    assert outcome.response == "Branch started."
    first = json.dumps(sent(provider.requests[0]))
    assert ACME_CONTEXT in first
    [record] = [json.loads(line) for line in (workspace / ".acme" / "prompts.jsonl").open()]
    assert record == {
        "prompt": "start a branch for ticket 42",
        "plugin_root": str(checkouts / "acme-marketplace" / "plugins" / "prompt-context"),
    }
    assert not (workspace / "formatted.txt").exists()


async def test_the_enabled_formatter_plugin_runs_its_python_script_after_bash(
    workspace: Path, checkouts: Path
) -> None:
    config = {
        "plugins": [str(checkouts / "acme-marketplace")],
        "disabled_plugins": ["prompt-context"],
    }
    script = [call("bash", command="echo formatted"), {"text": "Done."}]
    session, recorder, _ = support.session_for(workspace, script, bundle(**config), strict=True)
    async with session:
        await session.run("run it")
    [(_, post)] = recorder.get_events("tool:post")
    assert post["tool_result"]["output"]["stdout"] == "formatted\n"
    assert (workspace / "formatted.txt").read_text() == "formatted\n"


async def test_a_hook_shell_hook_logs_bash_commands_in_a_trusted_project(
    workspace: Path,
) -> None:
    hooks_dir = workspace / ".amplifier" / "hooks"
    hooks_dir.mkdir(parents=True)
    shutil.copytree(HOOK_SHELL / "bash-logger", hooks_dir / "bash-logger")  # cp -r
    (hooks_dir / "bash-logger" / "log.sh").chmod(0o755)  # chmod +x
    trust_project(workspace)
    script = [
        call("bash", command="echo one"),
        call("bash", command="echo two"),
        {"text": "Logged."},
    ]
    session, _, _ = support.session_for(workspace, script, bundle(), strict=True)
    async with session:
        outcome = await session.run("echo twice")
    assert outcome.response == "Logged."
    assert (workspace / "bash-commands.log").read_text() == "echo one\necho two\n"


async def test_an_untrusted_projects_hook_shell_hook_does_not_run(workspace: Path) -> None:
    hooks_dir = workspace / ".amplifier" / "hooks"
    hooks_dir.mkdir(parents=True)
    shutil.copytree(HOOK_SHELL / "bash-logger", hooks_dir / "bash-logger")
    (hooks_dir / "bash-logger" / "log.sh").chmod(0o755)
    script = [call("bash", command="echo one"), {"text": "Done."}]
    session, _, _ = support.session_for(workspace, script, bundle(), strict=True)
    async with session:
        await session.run("echo once")
    assert not (workspace / "bash-commands.log").exists()
