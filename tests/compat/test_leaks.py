"""No secret reaches the provider or the log with Amplifier's loop-basic, on either kernel.

Each test runs ``leaks.py`` (Amplifier's loop-basic, context-simple, provider-mock and
tool-bash, with our hooks-redaction and hooks-logging) with an interpreter named by an
environment variable; ``nox -s compat`` builds both:

- ``AMPLIFIER_MODULES_PYTHON``: our kernel;
- ``AMPLIFIER_RUNTIME_202_PYTHON``: amplifier-core 2.0.2 from PyPI.

Each is written as the leak: the exact text goes in, and the test asserts that the secret is
absent from every request provider-mock received and from the log file, and that its redacted
form is there instead (so the text did travel that path).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).with_name("leaks.py")
KERNELS = {
    "ours": "AMPLIFIER_MODULES_PYTHON",
    "amplifier-core-2.0.2": "AMPLIFIER_RUNTIME_202_PYTHON",
}


def _python(kernel: str) -> str:
    variable = KERNELS[kernel]
    python = os.environ.get(variable)
    if not python:
        pytest.skip(f"set {variable} (nox -s compat) to run loop-basic on {kernel}")
    return python


def _run(kernel: str, kind: str, workdir: Path, config: dict[str, Any] | None = None) -> Any:
    done = subprocess.run(
        [_python(kernel), str(SCRIPT), kind, str(workdir), json.dumps(config or {})],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=workdir,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _records(log: str, event: str) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in log.splitlines() if line.strip()]
    return [r for r in records if r["event"] == event]


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_a_secret_in_the_prompt_and_in_a_hooks_injection_reaches_neither(
    kernel: str, tmp_path: Path
) -> None:
    """loop-basic ignores a modify at prompt:submit and its provider:request carries no
    messages: the prompt goes into the context as typed, and so does an injection."""
    report = _run(kernel, "prompt", tmp_path)
    github, slack = report["secrets"]
    requests = "\n".join(report["requests"])
    assert report["requests"], "the provider was never called"
    assert github not in requests
    assert slack not in requests
    assert "[REDACTED:github_token]" in requests
    assert "[REDACTED:slack_token]" in requests
    assert github not in report["log"]
    assert slack not in report["log"]
    (submitted,) = _records(report["log"], "prompt:submit")
    assert "[REDACTED:github_token]" in submitted["data"]["prompt"]


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_a_secret_in_a_file_bash_cats_reaches_neither(kernel: str, tmp_path: Path) -> None:
    """The model asks bash to cat a file holding a GitHub token; a hook adds an ephemeral
    injection holding a Slack token that loop-basic appends after reading the context."""
    report = _run(kernel, "tool-result", tmp_path)
    github, slack = report["secrets"]
    assert report["result_types"] == ["str"]  # a hook reads loop-basic's result as its text
    assert len(report["requests"]) == 2, "the tool call did not come back to the model"
    after_tool = report["requests"][1]
    assert github not in after_tool
    assert slack not in after_tool
    assert "GITHUB_TOKEN=[REDACTED:github_token]" in after_tool
    assert "[REDACTED:slack_token]" in after_tool
    assert github not in report["log"]
    (post,) = _records(report["log"], "tool:post")
    assert "GITHUB_TOKEN=[REDACTED:github_token]" in json.dumps(post["data"])


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_without_the_guards_the_prompt_and_the_ephemeral_injection_do_leak(
    kernel: str, tmp_path: Path
) -> None:
    """What the tests above hold rests on the context and provider guards: off, loop-basic
    sends the prompt's token and the ephemeral injection's token as they are. On 2.0.2 the
    file's token goes too: when another handler injects at ``tool:post``, 2.0.2's result is
    that handler's ``inject_context`` without the data hooks-redaction modified, so loop-basic
    sends the tool's own output (ours keeps the modified data in that result)."""
    off = {"guard_context": False, "guard_providers": False}
    for name in ("prompt", "tool"):
        (tmp_path / name).mkdir()
    prompt = _run(kernel, "prompt", tmp_path / "prompt", off)
    github, slack = prompt["secrets"]
    assert github in "\n".join(prompt["requests"])
    tool = _run(kernel, "tool-result", tmp_path / "tool", off)
    assert slack in tool["requests"][1]
    if kernel == "ours":
        assert github not in tool["requests"][1]
    else:
        assert github in tool["requests"][1]
