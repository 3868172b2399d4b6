"""Documented hook outputs in real session turns, the same on amplifier-core 2.0.2 and on ours.

Each test runs ``outputs.py`` (loop-session, context-simple, provider-anthropic or
provider-openai against a loopback API server, tool-filesystem, hooks-declarative with a hooks
file using one output) with each kernel's interpreter and checks what the API server received,
what the turn answered and what the context holds; every assertion holds on both kernels:

- ``amplifier-core-2.0.2``: ``AMPLIFIER_CORE_202_PYTHON`` (``nox -s "compat(amplifier-core)"``
  sets it: amplifier-core 2.0.2 from PyPI with our modules);
- ``ours``: this interpreter, when it has our kernel and runtime modules (the workspace's
  environment, ``nox -s tests``).

What 2.0.2's coordinator does with the events these outputs rely on, as these runs show:
``provider:request`` / ``provider:response`` hooks' ``modify`` data comes back from its emit as
the final data (a JSON copy, action ``continue``), which loop-session reads; a ``deny`` there
comes back as it is and loop-session ends the turn; ``context:pre_compact``'s deny reaches
context-simple, which keeps the conversation; ``session:fork`` fires in a child
``AmplifierSession(parent_id=...)`` once its modules are mounted, and its
``process_hook_result`` puts an ``inject_context`` into that child's context manager.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).with_name("outputs.py")
KERNELS = ["ours", "amplifier-core-2.0.2"]
CONTEXT = "You are the reviewer: read, never write."

pytestmark = pytest.mark.slow


def _ours() -> bool:
    """This interpreter has our kernel (not 2.0.2's engine) and our runtime modules."""
    needed = ("amplifier_core", "amplifier_module_loop_session", "amplifier_hooks_testsupport")
    return importlib.util.find_spec("amplifier_core._engine") is None and all(
        importlib.util.find_spec(name) is not None for name in needed
    )


def _python(kernel: str) -> str:
    if kernel == "ours":
        if not _ours():
            pytest.skip("our kernel and runtime modules are not installed here (nox -s tests)")
        return sys.executable
    python = os.environ.get("AMPLIFIER_CORE_202_PYTHON", "")
    if not python:
        pytest.skip('set AMPLIFIER_CORE_202_PYTHON (nox -s "compat(amplifier-core)")')
    return python


def _run(kernel: str, case: str, tmp_path: Path) -> dict[str, Any]:
    workdir = tmp_path / "workspace"
    workdir.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        [_python(kernel), str(SCRIPT), case, str(workdir)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=workdir,
        env={**os.environ, "HOME": str(home), "AMPLIFIER_HOME": str(home / ".amplifier")},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["rejected"] == [], report["rejected"]  # every request was one the API takes
    return report


def _status(report: dict[str, Any]) -> list[str]:
    return [e["data"]["status"] for e in report["events"] if e["event"] == "orchestrator:complete"]


def _texts(body: dict[str, Any]) -> str:
    """Everything a request body says, as one string."""
    return json.dumps([body.get("system"), body["messages"]])


@pytest.fixture(params=KERNELS)
def kernel(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- Gemini CLI: BeforeModel, AfterModel ------------------------------------------------------


def test_before_model_llm_request_changes_the_request_sent(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "before_model_request", tmp_path)
    [body] = report["bodies"]
    assert body["model"] == "claude-small"
    assert (body["temperature"], body["top_p"]) == (0.1, 0.9)
    assert body["messages"] == [{"role": "user", "content": "PLEASE SHOUT"}]
    assert report["answers"] == ["ok"]
    [stdin] = report["stdin"]
    assert stdin["llm_request"]["messages"] == [{"role": "user", "content": "please shout"}]
    assert report["messages"][0] == {"role": "user", "content": "please shout"}


def test_before_model_llm_response_answers_without_the_model(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "before_model_response", tmp_path)
    assert report["bodies"] == []
    assert report["answers"] == ["from the cache"]
    assert report["messages"][-1]["role"] == "assistant"
    assert report["messages"][-1]["content"] == "from the cache"


def test_after_model_llm_response_replaces_the_answer(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "after_model_response", tmp_path)
    assert len(report["bodies"]) == 1
    assert report["answers"] == ["The password is [redacted]."]
    assert "hunter2" not in json.dumps(report["messages"])
    [stdin] = report["stdin"]
    assert stdin["llm_response"]["candidates"][0]["content"]["parts"] == [
        "The password is hunter2."
    ]


@pytest.mark.parametrize("event", ["BeforeModel", "BeforeToolSelection", "AfterModel"])
def test_a_deny_on_a_model_event_ends_the_turn(kernel: str, event: str, tmp_path: Path) -> None:
    """A deny ends the turn on each model event, ``BeforeToolSelection`` included: Gemini
    CLI's reference gives that event no ``decision``, but a guard's deny is never ignored."""
    report = _run(kernel, f"deny_{event}", tmp_path)
    assert len(report["bodies"]) == (1 if event == "AfterModel" else 0)
    assert report["answers"] == [""]
    assert "the model's answer" not in json.dumps(report["messages"])
    assert _status(report) == ["cancelled"]
    [violation] = [e["data"] for e in report["events"] if e["event"] == "policy:violation"]
    assert violation["reason"] == "model calls are paused"
    assert violation["hook"] == f".gemini/settings.json:hooks.{event}[0].hooks[0]"
    assert violation["event"] == (
        "provider:response" if event == "AfterModel" else "provider:request"
    )


# -- Gemini CLI: BeforeToolSelection ----------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "forced"),
    [("anthropic", {"type": "any"}), ("openai", "required")],
)
def test_before_tool_selection_forces_a_tool_call(
    kernel: str, provider: str, forced: Any, tmp_path: Path
) -> None:
    """``toolConfig`` ``mode: ANY`` with ``allowedFunctionNames``: the API gets only that tool
    and its own form of "a tool call is required"; the model reads the file."""
    report = _run(kernel, f"tool_selection_forces_read_{provider}", tmp_path)
    first, second = report["bodies"]
    names = [t.get("name") or t["function"]["name"] for t in first["tools"]]
    assert names == ["read_file"]
    assert first["tool_choice"] == forced
    assert "tool_choice" not in second  # the hook answered once: the next request is free
    assert len(second["tools"]) == 3
    assert "remember the milk" in _texts(second)
    assert report["answers"] == ["the notes say: remember the milk"]
    [result] = [m["content"] for m in report["messages"] if m["role"] == "tool"]
    assert next(iter(json.loads(result))) == "file_path"  # as the tool wrote it, not re-sorted
    shown = report["stdin"][0]["llm_request"]["toolConfig"]
    assert shown == {"mode": "AUTO", "allowedFunctionNames": ["read_file", "write_file", "replace"]}


def test_before_tool_selection_mode_none_offers_no_tools(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "tool_selection_none", tmp_path)
    [body] = report["bodies"]
    assert "tools" not in body
    assert "tool_choice" not in body
    assert report["answers"] == ["no tools today"]


# -- Claude Code: PreCompact, SubagentStart ---------------------------------------------------


def test_pre_compact_block_keeps_the_whole_conversation(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "pre_compact_block", tmp_path)
    assert report["compactions"] == 0
    assert report["compactions_blocked"] >= 1
    assert not [e for e in report["events"] if e["event"] == "context:compaction"]
    last = report["bodies"][-1]
    assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user"]
    assert last["messages"][0]["content"] == "first"
    assert last["messages"][1]["content"] == "x" * 1200
    [stdin] = report["stdin"]
    assert (stdin["hook_event_name"], stdin["trigger"]) == ("PreCompact", "auto")


def test_pre_compact_that_lets_it_happen_changes_nothing(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "pre_compact_allows", tmp_path)
    assert report["compactions"] == 1
    assert [e for e in report["events"] if e["event"] == "context:compaction"]
    assert "first" not in _texts(report["bodies"][-1])


def test_subagent_start_context_reaches_the_child_only(kernel: str, tmp_path: Path) -> None:
    report = _run(kernel, "subagent_start_context", tmp_path)
    parent, child = report["bodies"]
    assert CONTEXT not in _texts(parent)
    assert CONTEXT not in json.dumps(report["messages"])
    assert _texts(child).count(CONTEXT) == 1
    assert child["system"] == CONTEXT
    assert child["messages"] == [{"role": "user", "content": "review it"}]
    assert report["child_answer"] == "child answer"
    forks = [e for e in report["events"] if e["event"] == "session:fork"]
    assert [e["session"] for e in forks] == ["child"]
    [stdin] = report["stdin"]
    assert stdin["hook_event_name"] == "SubagentStart"
