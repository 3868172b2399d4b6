"""The audit log holds no secret in plain text and is readable by its owner only.

Commands, prompts and reasons that carry generated credentials (a GitHub token, an AWS secret
key assignment, a private key header with a body) are written through the hook: the file
never holds the secret, and the file is 0600 in directories made 0700, whatever the umask.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_approval import mount

from .support import bash

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@st.composite
def secrets(draw: st.DrawFn) -> str:
    body = draw(st.text(alphabet=ALNUM, min_size=36, max_size=36))
    kind = draw(st.sampled_from(["ghp", "aws", "bearer"]))
    if kind == "ghp":
        return "ghp_" + body
    if kind == "aws":
        return body[:20].replace("A", "B") + body  # 40 characters, mixed case and digits
    return "sk-ant-api03-" + body + body


def wrap(secret: str, how: str) -> str:
    return {
        "echo": f"echo AWS_SECRET_ACCESS_KEY={secret}; ls",
        "curl": f"curl -H 'Authorization: Bearer {secret}' https://example.com",
        "export": f"export GITHUB_TOKEN={secret} && git push",
    }[how]


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(secret=secrets(), how=st.sampled_from(["echo", "curl", "export"]))
async def test_no_secret_reaches_the_audit_log(tmp_path: Path, secret: str, how: str) -> None:
    log = tmp_path / f"{abs(hash((secret, how)))}" / "approvals.jsonl"
    coordinator = MockCoordinator()
    cleanup = await mount(coordinator, {"audit_log": str(log)})
    await coordinator.hooks.emit("tool:pre", bash(wrap(secret, how)))
    cleanup()
    text = log.read_text(encoding="utf-8")
    assert text.count("\n") >= 1
    assert secret not in text
    assert "REDACTED" in text


async def test_the_audit_log_is_private_whatever_the_umask(tmp_path: Path) -> None:
    log = tmp_path / "state" / "projects" / "p" / "approvals.jsonl"
    old = os.umask(0o022)
    try:
        coordinator = MockCoordinator()
        cleanup = await mount(coordinator, {"audit_log": str(log)})
        await coordinator.hooks.emit("tool:pre", bash("ls -la"))
        cleanup()
    finally:
        os.umask(old)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    for directory in (log.parent, log.parent.parent, tmp_path / "state"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


async def test_an_existing_wider_audit_log_is_narrowed(tmp_path: Path) -> None:
    log = tmp_path / "approvals.jsonl"
    log.write_text("")
    log.chmod(0o644)
    coordinator = MockCoordinator()
    cleanup = await mount(coordinator, {"audit_log": str(log)})
    await coordinator.hooks.emit("tool:pre", bash("ls"))
    cleanup()
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert log.read_text().count("\n") == 1


async def test_redaction_can_be_turned_off(tmp_path: Path) -> None:
    log = tmp_path / "approvals.jsonl"
    secret = "ghp_" + "a1B2" * 9
    coordinator = MockCoordinator()
    cleanup = await mount(coordinator, {"audit_log": str(log), "redact_audit_log": False})
    await coordinator.hooks.emit("tool:pre", bash(f"echo {secret}"))
    cleanup()
    assert secret in log.read_text()
