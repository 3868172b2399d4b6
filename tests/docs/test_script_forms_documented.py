"""docs/scripted-provider.md's script with both sides (``prompts:`` and ``turns:``) plays as
the page says: ``amplifier-hooks run --script FILE`` sends its prompts, one turn each, and the
provider answers with its turns."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "amplifier-hooks"


def test_the_prompts_and_turns_script_runs_both_sides(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "scripted-provider.md").read_text("utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.S)
    (conversation,) = [b for b in blocks if b.startswith("# conversation.yaml")]
    (tmp_path / "conversation.yaml").write_text(conversation, "utf-8")
    (tmp_path / "README.md").write_text("# A project\n", "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AMPLIFIER_"))}
    done = subprocess.run(
        [str(SCRIPT), "run", "--script", "conversation.yaml", "--workspace", str(tmp_path)],
        cwd=tmp_path,
        env={**env, "AMPLIFIER_HOME": str(tmp_path / "state"), "CI": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith(("user:", "assistant:"))]
    assert said == [
        "user: Summarise README.md",
        "assistant: Let me look at the file.",
        "assistant: It is the README of the project.",
        "user: Thanks!",
        "assistant: You are welcome.",
    ]
