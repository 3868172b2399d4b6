"""The reference modules mounted together from a bundle, the way a user mounts them."""

from __future__ import annotations

import json
from pathlib import Path

from amplifier_core.bundle import parse_bundle
from amplifier_core.providers import ScriptedProvider
from amplifier_core.session import AmplifierSession

TOKEN = "ghp_" + "Q7wErTy8uIoP1aSdFgHjKl2ZxCvBnM3qWeRt"


async def test_secrets_reach_neither_the_model_nor_the_log(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    bundle = parse_bundle(
        f"""
hooks:
  - module: hooks-logging
    config: {{path: "{logs}/{{session_id}}.jsonl"}}
  - module: hooks-redaction
""",
        "bundle.yaml",
    )
    (tmp_path / "deploy.env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    script = [
        {"tool_calls": [{"name": "bash", "input": {"command": "cat deploy.env"}}]},
        {"text": "printed it", "expect": "[REDACTED:github_token]"},
    ]
    provider = ScriptedProvider(script)
    async with AmplifierSession(bundle, workspace=tmp_path, provider=provider) as session:
        outcome = await session.run(f"my token is {TOKEN}, print it")
    assert outcome.response == "printed it"
    sent = json.dumps([request.model_dump() for request in provider.requests])
    assert TOKEN not in sent
    assert "[REDACTED:github_token]" in sent
    lines = next(logs.glob("*.jsonl")).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {r["event"] for r in records} >= {"session:start", "tool:post", "session:end"}
    assert TOKEN not in "\n".join(lines)
