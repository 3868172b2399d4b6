"""hooks-status-context mounted from a bundle in a real session: the block reaches every
provider request once, is never stored in the conversation, and follows what the session's own
tools change."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession
from amplifier_hooks_util.state import session_dir

from amplifier_module_hooks_status_context import OPEN_TAG
from amplifier_module_provider_scripted import ScriptedProvider

from .support import make_bundle, module, sent

GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(where: Path, *args: str) -> None:
    command = [shutil.which("git") or "git", "-c", "user.name=T", "-c", "user.email=t@e.x"]
    subprocess.run([*command, *args], cwd=where, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository on ``main`` with two commits; the machine's git config left out."""
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "repo"
    (path / "src").mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    commits = {"first commit": ("README.md", "src/app.py"), "second commit": ("src/util.py",)}
    for message, files in commits.items():
        for name in files:
            (path / name).write_text(f"{name}: {message}\n")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", message)
    return path


def blocks_in(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if OPEN_TAG in str(m.get("content", ""))]


async def test_each_request_carries_the_block_once_and_the_context_never_keeps_it(
    repo: Path,
) -> None:
    script = [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo more >> src/app.py"}}]},
        {"tool_calls": [{"name": "read_file", "input": {"file_path": "src/app.py"}}]},
        {"text": "edited"},
        {
            "tool_calls": [
                {"name": "write_file", "input": {"file_path": "NOTES.md", "content": "n"}}
            ]
        },
        {"text": "noted"},
    ]
    bundle = make_bundle(hooks=[module("hooks-status-context", {"git_include_commits": 2})])
    provider = ScriptedProvider(script)
    async with AgentSession(bundle, workspace=repo, provider=provider) as session:
        assert session.coordinator.hooks.list_handlers("provider:request") == {
            "provider:request": ["hooks-status-context"]
        }
        first = await session.run("append a line to src/app.py")
        second = await session.run("write notes")
        stored = await session.context.get_messages()
    assert (first.response, second.response) == ("edited", "noted")
    assert len(provider.requests) == 5

    blocks = []
    for request in provider.requests:
        messages = sent(request)
        (message,) = blocks_in(messages)  # exactly once per request
        assert message["role"] == "system"
        assert message["content"].count(OPEN_TAG) == 1
        assert message == messages[-1]  # after the conversation: the prefix is stable
        blocks.append(message["content"])
    assert blocks_in(stored) == []  # ephemeral: not in the conversation
    checkpoints = list(session_dir(session.session_id, working_dir=repo).glob("checkpoint-*.json"))
    assert checkpoints
    assert not (repo / ".amplifier").exists()  # the session's state is not in the repository
    assert all(OPEN_TAG not in p.read_text() for p in checkpoints)

    assert f"Working directory: {repo}\n" in blocks[0]
    assert "Current branch: main" in blocks[0]
    assert "Status: clean" in blocks[0]
    assert " M src/app.py" in blocks[1]  # bash wrote below the top: tool:post refreshed
    assert blocks[2] == blocks[1]  # read_file changed nothing: the very same bytes
    assert ".amplifier" not in blocks[3]  # checkpoints are kept in the state directory
    assert "?? NOTES.md" in blocks[4]
    assert "second commit" in blocks[4]
    assert "first commit" in blocks[4]
