"""Mounted from a bundle in a real session: the block reaches every provider request once, is
never stored in the conversation, and follows what the session's own tools change."""

from __future__ import annotations

from typing import Any

from amplifier_core.bundle import parse_bundle
from amplifier_core.providers import ScriptedProvider
from amplifier_core.session import AmplifierSession
from amplifier_module_hooks_status_context import OPEN_TAG

BUNDLE = """
hooks:
  - module: hooks-status-context
    config:
      git_include_commits: 2
"""


def blocks_in(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if OPEN_TAG in str(m.get("content", ""))]


async def test_each_request_carries_the_block_once_and_the_context_never_keeps_it(
    repo: Any,
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
    provider = ScriptedProvider(script)
    bundle = parse_bundle(BUNDLE, "bundle.yaml")
    async with AmplifierSession(bundle, workspace=repo.path, provider=provider) as session:
        assert session.coordinator.hooks.list_handlers("provider:request") == {
            "provider:request": ["hooks-status-context"]
        }
        first = await session.run("append a line to src/app.py")
        second = await session.run("write notes")
        stored = session.context.messages
    assert (first.response, second.response) == ("edited", "noted")
    assert len(provider.requests) == 5

    blocks = []
    for request in provider.requests:
        (message,) = blocks_in(request.messages)  # exactly once per request
        assert message["role"] == "system"
        assert message["content"].count(OPEN_TAG) == 1
        assert message is request.messages[-1]  # after the conversation: the prefix is stable
        blocks.append(message["content"])
    assert blocks_in(stored) == []  # ephemeral: not in the conversation
    checkpoints = list((repo.path / ".amplifier").rglob("checkpoint-*.json"))
    assert checkpoints
    assert all(OPEN_TAG not in p.read_text() for p in checkpoints)

    assert f"Working directory: {repo.path}\n" in blocks[0]
    assert "Current branch: main" in blocks[0]
    assert "Status: clean" in blocks[0]
    assert " M src/app.py" in blocks[1]  # bash wrote below the top: tool:post refreshed
    assert blocks[2] == blocks[1]  # read_file changed nothing: the very same bytes
    assert "?? .amplifier/" in blocks[3]  # the checkpoint of turn 1 is a new top-level entry
    assert "?? NOTES.md" in blocks[4]
    assert "second commit" in blocks[4]
    assert "first commit" in blocks[4]
