"""The reference modules mounted together from a bundle, the way a user mounts them."""

from __future__ import annotations

import json
from pathlib import Path

from .support import call, make_bundle, module, session_for

TOKEN = "ghp_" + "Q7wErTy8uIoP1aSdFgHjKl2ZxCvBnM3qWeRt"


async def test_secrets_reach_neither_the_model_nor_the_log(tmp_path: Path, workspace: Path) -> None:
    logs = tmp_path / "logs"
    bundle = make_bundle(
        hooks=[
            module("hooks-logging", {"path": f"{logs}/{{session_id}}.jsonl"}),
            module("hooks-redaction"),
        ]
    )
    (workspace / "deploy.env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    script = [
        call("bash", command="cat deploy.env"),
        {"text": "printed it", "expect": "[REDACTED:github_token]"},
    ]
    session, _, provider = session_for(workspace, script, bundle)
    async with session:
        outcome = await session.run(f"my token is {TOKEN}, print it")
    assert outcome.response == "printed it"
    sent = json.dumps([request.model_dump() for request in provider.requests])
    assert TOKEN not in sent
    assert "[REDACTED:github_token]" in sent
    lines = next(logs.glob("*.jsonl")).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {r["event"] for r in records} >= {"session:start", "tool:post", "session:end"}
    assert TOKEN not in "\n".join(lines)
