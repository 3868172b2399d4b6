"""What a call returns: output, exit codes, signals, environment and working directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core import ToolResult

from .conftest import Mount


def _output(result: ToolResult) -> dict[str, Any]:
    assert isinstance(result.output, dict), result
    return result.output


def _real(path: Path) -> str:
    return str(path.resolve())


async def test_success_returns_stdout_stderr_and_returncode(bash: Mount) -> None:
    result = await (await bash()).execute({"command": "echo hello; echo note >&2"})
    assert result.success
    assert result.error is None
    assert result.output == {"stdout": "hello\n", "stderr": "note\n", "returncode": 0}


async def test_non_zero_exit_is_a_failure_with_the_output_kept(bash: Mount) -> None:
    result = await (await bash()).execute({"command": "echo out; echo bad >&2; exit 3"})
    assert not result.success
    assert result.error == {"type": "NonZeroExit", "message": "exit code 3"}
    assert result.output == {"stdout": "out\n", "stderr": "bad\n", "returncode": 3}


async def test_death_by_signal_names_the_signal(bash: Mount) -> None:
    result = await (await bash()).execute({"command": "kill -KILL $$"})
    assert not result.success
    assert _output(result)["returncode"] == -9
    assert result.error == {"type": "NonZeroExit", "message": "exit code -9 (killed by SIGKILL)"}


async def test_runs_in_the_working_directory_with_stdin_closed(bash: Mount, tmp_path: Path) -> None:
    tool = await bash(timeout=5)
    result = await tool.execute({"command": "pwd; cat; echo made > here.txt"})
    assert result.success, result.error
    assert _output(result)["stdout"] == f"{_real(tmp_path)}\n"
    assert (tmp_path / "here.txt").read_text() == "made\n"


async def test_environment_is_inherited_plus_configured_extras(
    bash: Mount, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INHERITED_FOR_BASH", "from-parent")
    tool = await bash(env={"EXTRA_PORT": 8080, "EXTRA_FLAG": True, "EXTRA_NAME": "x y"})
    result = await tool.execute(
        {"command": 'echo "$INHERITED_FOR_BASH|$EXTRA_PORT|$EXTRA_FLAG|$EXTRA_NAME"'}
    )
    assert _output(result)["stdout"] == "from-parent|8080|true|x y\n"


async def test_the_shell_is_bash(bash: Mount) -> None:
    result = await (await bash()).execute({"command": "echo ${BASH_VERSION:+bash} $((1 << 4))"})
    assert _output(result)["stdout"] == "bash 16\n"


async def test_description_is_accepted_and_ignored_by_the_run(bash: Mount) -> None:
    result = await (await bash()).execute({"command": "true", "description": "does nothing"})
    assert result.success


async def test_missing_working_directory_is_a_spawn_failure(bash: Mount, tmp_path: Path) -> None:
    result = await (await bash(working_dir=str(tmp_path / "gone"))).execute({"command": "true"})
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "SpawnError"
    assert str(tmp_path / "gone") in result.error["message"]
