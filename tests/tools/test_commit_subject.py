"""tools/check_commit_subject.py as git's commit-msg hook in a real repository: a subject over
72 characters is refused, naming its length; the body may be as long as it likes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "check_commit_subject.py"


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "someone@example.org")
    git(repo, "config", "user.name", "Someone")
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SCRIPT}" "$1"\n', encoding="utf-8")
    hook.chmod(0o755)
    (repo / "file.txt").write_text("x\n", encoding="utf-8")
    git(repo, "add", "file.txt")
    return repo


def test_a_subject_of_73_characters_is_refused(repo: Path) -> None:
    subject = "The product " + "x" * 61
    done = git(repo, "commit", "-q", "-m", subject)
    assert done.returncode != 0
    assert "the commit subject has 73 characters, at most 72 allowed" in done.stderr
    assert subject in done.stderr
    assert git(repo, "rev-parse", "--verify", "-q", "HEAD").stdout == ""  # nothing committed


def test_72_characters_and_a_long_body_are_accepted(repo: Path) -> None:
    subject = "The product " + "x" * 60
    body = "Detail that runs on well past seventy-two characters, as a body may do. " * 3
    done = git(repo, "commit", "-q", "-m", subject, "-m", body)
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%s").stdout.strip() == subject


def test_comment_lines_before_the_subject_are_not_the_subject(tmp_path: Path) -> None:
    message = tmp_path / "COMMIT_EDITMSG"
    message.write_text("# Please enter the commit message\n\nShort subject\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(message)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    message.write_text("# only a comment\n\n", encoding="utf-8")
    empty = subprocess.run(
        [sys.executable, str(SCRIPT), str(message)], capture_output=True, text=True, check=False
    )
    assert empty.returncode == 1
    assert "has no subject line" in empty.stderr
