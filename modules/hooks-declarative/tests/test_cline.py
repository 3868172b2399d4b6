"""Cline hooks: one executable per hook in ``.clinerules/hooks/`` and
``~/Documents/Cline/Hooks/``, found as Cline finds them, run with Cline's stdin, their answer
read as Cline reads it (whatever the exit code, the last JSON object of stdout), the user's
and the workspace's hooks of one event run at once; as real processes on a mounted module."""

from __future__ import annotations

import json
import logging
import os
import shutil
import string
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.config import parse_config
from amplifier_module_hooks_declarative.discovery import load_documents
from amplifier_module_hooks_declarative.formats.cline.protocol import (
    CONTEXT_LIMIT,
    cline_answer,
    hook_context_text,
)
from amplifier_module_hooks_declarative.trust import trust_project, trust_status

from .support import FormatContext, command_runner
from .support import recorded as recorded_by

LABEL = ".clinerules/hooks/PreToolUse:PreToolUse"
STAMP = "2026-01-15T10:30:00+00:00"
runner = partial(command_runner, label=LABEL, protocol="cline")
recorded = partial(recorded_by, label=LABEL, protocol="cline")


context = FormatContext(
    alias="PreToolUse",
    session_id="task-1",
    timestamp=STAMP,
    call_id="call_3",
    fields={"session_id": "task-1", "model": "claude-sonnet", "provider": "anthropic"},
)


def printing(answer: str, *, code: int = 0, before: str = "") -> str:
    """A hook that reads its input, prints ``before`` then ``answer``, exits with ``code``."""
    return f"cat > /dev/null; printf '%s' {json.dumps(before + answer)}; exit {code}"


def install(path: Path, body: str, *, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(mode)
    return path


async def emit(project: Path, event: str, data: dict[str, Any], **config: Any) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, config)
    try:
        return await coordinator.hooks.emit(event, data)
    finally:
        await cleanup()


BASH = {"tool_name": "bash", "tool_input": {"command": "rm -rf build"}, "session_id": "s"}


# ----------------------------------------------------------------------------- stdin


async def test_pre_tool_use_has_clines_fields(tmp_path: Path) -> None:
    seen = (await recorded(tmp_path, context(tmp_path, args={"command": "npm test"})))["input"]
    assert seen["hookName"] == "PreToolUse"
    assert seen["taskId"] == "task-1"
    assert seen["workspaceRoots"] == [str(tmp_path)]
    assert seen["timestamp"] == "1768473000000"
    assert seen["model"] == {"provider": "anthropic", "slug": "claude-sonnet"}
    assert isinstance(seen["clineVersion"], str)
    assert isinstance(seen["userId"], str)
    assert seen["preToolUse"] == {
        "toolName": "execute_command",
        "parameters": {"command": "npm test", "requires_approval": "false"},
    }


@pytest.mark.parametrize(
    ("tool", "args", "name", "parameters"),
    [
        ("read_file", {"file_path": "src/a.ts"}, "read_file", {"path": "src/a.ts"}),
        (
            "write_file",
            {"file_path": "a.js", "content": "x"},
            "write_to_file",
            {"path": "a.js", "content": "x"},
        ),
        (
            "edit_file",
            {"file_path": "a.ts", "old_string": "a", "new_string": "b"},
            "replace_in_file",
            {"path": "a.ts", "diff": "------- SEARCH\na\n=======\nb\n+++++++ REPLACE"},
        ),
        (
            "mcp__db__query",
            {"sql": "select 1"},
            "use_mcp_tool",
            {"server_name": "db", "tool_name": "query", "arguments": '{"sql": "select 1"}'},
        ),
        ("todo", {"items": [1]}, "todo", {"items": "[1]"}),
    ],
)
async def test_tool_names_and_parameters_are_clines(
    tmp_path: Path, tool: str, args: dict[str, Any], name: str, parameters: dict[str, str]
) -> None:
    seen = (await recorded(tmp_path, context(tmp_path, tool=tool, args=args)))["input"]
    assert seen["preToolUse"] == {"toolName": name, "parameters": parameters}


async def test_post_tool_use_and_task_events(tmp_path: Path) -> None:
    post = context(tmp_path, "PostToolUse", "tool:post", data={"tool_result": {"output": "ok"}})
    seen = (await recorded(tmp_path, post))["input"]["postToolUse"]
    assert (seen["result"], seen["success"], seen["executionTimeMs"]) == ("ok", True, 0)
    failed = context(tmp_path, "PostToolUse", "tool:error", data={"error": {"message": "boom"}})
    assert (await recorded(tmp_path, failed))["input"]["postToolUse"]["success"] is False
    start = context(tmp_path, "TaskStart", "session:start", tool=None, data={"prompt": "go"})
    task = (await recorded(tmp_path, start))["input"]["taskStart"]["taskMetadata"]
    assert task == {"taskId": "task-1", "ulid": "task-1", "initialTask": "go"}
    prompt = context(
        tmp_path, "UserPromptSubmit", "prompt:submit", tool=None, data={"prompt": "hi"}
    )
    seen = (await recorded(tmp_path, prompt))["input"]["userPromptSubmit"]
    assert seen == {"prompt": "hi", "attachments": []}


# ----------------------------------------------------------------------------- answers


async def test_cancel_stops_the_action_with_the_error_message(tmp_path: Path) -> None:
    answer = json.dumps({"cancel": True, "errorMessage": "no rm", "contextModification": "x"})
    decided = await runner(printing(answer), tmp_path).run(context(tmp_path))
    assert (decided.action, decided.stop, decided.message) == ("block", True, "no rm")
    assert decided.context is None


async def test_context_is_worded_as_cline_adds_it(tmp_path: Path) -> None:
    answer = json.dumps({"cancel": False, "contextModification": "TS_RULES: use .ts\nonly"})
    decided = await runner(printing(answer), tmp_path).run(context(tmp_path))
    assert decided.action == "continue"
    assert decided.context == (
        '<hook_context source="PreToolUse" type="ts_rules">\nuse .ts\nonly\n</hook_context>'
    )


async def test_the_answer_is_read_after_debug_lines_and_whatever_the_exit_code(
    tmp_path: Path,
) -> None:
    answer = json.dumps({"cancel": True, "errorMessage": "tests failed"})
    before = "Running checks...\n{not json}\n"
    for code in (0, 1, 2):
        hook = printing(answer + "\ndone\n", code=code, before=before)
        decided = await runner(hook, tmp_path).run(context(tmp_path))
        assert (decided.action, decided.message) == ("block", "tests failed")


async def test_no_answer_lets_the_action_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for hook in (
        printing("all good"),
        printing("", code=2),
        printing(json.dumps({"shouldContinue": False}), code=0),
        printing(json.dumps({"cancel": "yes"})),
        "cat > /dev/null; exit 7",
    ):
        with caplog.at_level(logging.WARNING):
            decided = await runner(hook, tmp_path).run(context(tmp_path))
        assert (decided.action, decided.message, decided.context) == ("continue", None, None)
    assert "shouldContinue" in caplog.text
    assert "exited with code 7" in caplog.text


async def test_task_complete_and_task_cancel_answers_are_not_read(tmp_path: Path) -> None:
    answer = json.dumps({"cancel": True, "contextModification": "more"})
    for alias, event in (("TaskComplete", "prompt:complete"), ("TaskCancel", "cancel:requested")):
        ctx = context(tmp_path, alias, event, tool=None)
        decided = await runner(printing(answer), tmp_path).run(ctx)
        assert (decided.action, decided.context) == ("continue", None)


def test_long_context_is_cut_as_cline_cuts_it() -> None:
    text = hook_context_text("x" * (CONTEXT_LIMIT + 10), "PostToolUse")
    assert "x" * CONTEXT_LIMIT in text
    assert "x" * (CONTEXT_LIMIT + 1) not in text
    assert "[... context truncated due to size limit ...]" in text


_PLAIN = st.text(alphabet=string.ascii_letters + string.digits + " .:-_\n", max_size=60)


@settings(max_examples=200, deadline=None)
@given(
    cancel=st.one_of(st.none(), st.booleans()),
    context=st.one_of(st.none(), st.text(max_size=40)),
    error=st.one_of(st.none(), st.text(max_size=40)),
    before=_PLAIN,
    after=_PLAIN,
)
def test_the_last_json_object_is_the_answer_whatever_surrounds_it(
    cancel: bool | None, context: str | None, error: str | None, before: str, after: str
) -> None:
    fields = {"cancel": cancel, "contextModification": context, "errorMessage": error}
    answer = {key: value for key, value in fields.items() if value is not None}
    text = before + "\n" + json.dumps({"debug": {"n": 1}}) + "\n" + json.dumps(answer) + after
    assert cline_answer(text) == answer


# ----------------------------------------------------------------------------- layout


def test_only_executable_files_named_after_a_hook_are_hooks(
    home: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = project / ".clinerules" / "hooks"
    install(hooks / "PreToolUse", "cat")
    install(hooks / "PostToolUse", "cat", mode=0o644)
    install(hooks / "PreToolUse.example", "cat")
    (hooks / "README.md").write_text("# hooks\n")
    (hooks / "TaskCancel").mkdir()
    install(home / "Documents" / "Cline" / "Hooks" / "TaskStart", "cat")
    trust_project(project)
    with caplog.at_level(logging.WARNING):
        documents = load_documents(parse_config({}), project_dir=project, user_dir=home)
    found = [(d.source, [(b.name, b.event) for b in d.events]) for d in documents]
    assert found == [
        ("~/Documents/Cline/Hooks/TaskStart", [("TaskStart", "session:start")]),
        (".clinerules/hooks/PreToolUse", [("PreToolUse", "tool:pre")]),
    ]
    assert "PostToolUse: not an executable file" in caplog.text
    assert "TaskCancel: a directory, not a hook executable" in caplog.text
    assert load_documents(parse_config({"cline": False}), project_dir=project, user_dir=home) == []


async def test_user_and_workspace_hooks_run_at_once_and_any_cancel_cancels(
    home: Path, project: Path
) -> None:
    markers = project / "markers"
    markers.mkdir()
    wait = (
        f"cat > /dev/null; touch '{markers}'/$1; n=0; "
        f"while [ \"$(ls '{markers}' | wc -l)\" -lt 2 ]; do n=$((n+1)); "
        '[ $n -gt 3000 ] && { echo \'{"contextModification": "gave up"}\'; exit 0; }; '
        "sleep 0.01; done; "
    )
    install(
        home / "Documents" / "Cline" / "Hooks" / "PreToolUse",
        wait.replace("$1", "user") + 'echo \'{"cancel": true, "errorMessage": "user policy"}\'',
    )
    install(
        project / ".clinerules" / "hooks" / "PreToolUse",
        wait.replace("$1", "workspace") + 'echo \'{"contextModification": "ran"}\'',
    )
    trust_project(project)
    result = await emit(project, "tool:pre", BASH)
    assert result.action == "deny"
    assert "user policy" in result.reason
    assert sorted(p.name for p in markers.iterdir()) == ["user", "workspace"]


async def test_an_untrusted_workspace_hook_runs_nothing(home: Path, project: Path) -> None:
    install(
        project / ".clinerules" / "hooks" / "PreToolUse", "touch ran; echo '{\"cancel\": true}'"
    )
    result = await emit(project, "tool:pre", BASH, include_user=False)
    assert result.action == "continue"
    assert not (project / "ran").exists()


def test_trust_covers_the_hooks_directory(home: Path, project: Path) -> None:
    hooks = project / ".clinerules" / "hooks"
    install(hooks / "PreToolUse", "cat")
    trust_project(project)
    assert trust_status(project).trusted
    install(hooks / "TaskStart", "curl evil")
    status = trust_status(project)
    assert not status.trusted
    assert ".clinerules/hooks/TaskStart" in (status.why_not() or "")


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap missing (CI sets AMPLIFIER_HOOKS_REQUIRE_BWRAP: there it must run)",
)
async def test_sandbox_project_contains_a_workspace_hook(home: Path, project: Path) -> None:
    hooks = project / ".clinerules" / "hooks"
    install(
        hooks / "PreToolUse",
        "cat > /dev/null; touch ran; echo x >> .clinerules/hooks/TaskStart; echo '{}'",
    )
    trust_project(project)
    result = await emit(project, "tool:pre", BASH, include_user=False, sandbox="project")
    assert result.action == "continue"
    assert (project / "ran").exists()  # the project is writable
    assert not (hooks / "TaskStart").exists()  # its hooks are not
