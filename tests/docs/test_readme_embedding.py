"""The README's embedding example, run as a host would run it: the installed hooks-redaction
and hooks-logging mounted with ``mount_modules``, one event emitted, the secret redacted and
the event logged."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_host_mounts_modules_and_sees_the_redaction(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    (example,) = [b for b in blocks if "mount_modules" in b]
    done = subprocess.run(
        [sys.executable, "-c", example],
        cwd=tmp_path,
        env={**os.environ, "AMPLIFIER_HOME": str(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "{'output': 'API_TOKEN=[REDACTED:github_token]'}"
    (log,) = (tmp_path / "home").rglob("events.jsonl")
    assert '"tool:post"' in log.read_text("utf-8")
    assert "ghp_Zx81" not in log.read_text("utf-8")
