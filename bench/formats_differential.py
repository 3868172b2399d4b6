"""Codex, Factory Droid and GitHub Copilot hook installations: each tool's documented decision
against hooks-declarative's, on real processes.

    python bench/formats_differential.py [--only TOOL] [--json PATH] [--check]

The corpus is ``bench/format_corpus.py``: projects laid out as published hook configurations
are (the hooks file at its tool's path, its scripts), each decided on the same twelve events.
For every case and event a *decision* is computed twice:

* by an oracle written here from each tool's documentation and, where the docs are silent,
  its public source (Codex: ``codex-rs/hooks``): it picks the hooks the tool would run (its
  own matcher rule on its own tool names), gives each the stdin its tool gives, runs the
  scripts as processes, and reads exit codes and stdout by the tool's rules;
* by our runtime: hooks-declarative mounted in the project (trusted through
  ``AMPLIFIER_TRUST_PROJECT``), the event emitted, the combined ``HookResult`` read.

A decision is one of ``deny``, ``ask``, ``modify`` or ``allow`` for a tool call and a prompt;
``continue-agent`` or ``allow`` at the end of a turn; ``feedback`` or ``none`` after a tool ran
(whether the agent is given the hook's text). Prints ``N of M decisions agree`` per tool and
overall, and each disagreement; ``--check`` exits 1 unless all agree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from format_corpus import CASES, EVENTS, Case

try:
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_declarative import mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(f"formats_differential: the packages are not installed ({err}); use .venv/bin/python")

# ----------------------------------------------------------------------------- the oracle

_CODEX_EVENTS = {
    "tool:pre": "PreToolUse",
    "prompt:submit": "UserPromptSubmit",
    "prompt:complete": "Stop",
    "tool:post": "PostToolUse",
}
_CLI_EVENTS = {
    "tool:pre": "preToolUse",
    "prompt:submit": "userPromptSubmitted",
    "prompt:complete": "agentStop",
    "tool:post": "postToolUse",
}
_ORDER = ["deny", "ask", "modify", "allow"]


def _claude_rule(matcher: str | None, names: list[str]) -> bool:
    """Claude Code's matcher rule, which Codex and Droid follow."""
    if matcher is None or matcher in ("", "*"):
        return True
    if re.fullmatch(r"[A-Za-z0-9_|]+", matcher):
        return any(name in matcher.split("|") for name in names)
    try:
        return any(re.search(matcher, name) for name in names)
    except re.error:
        return False


def _run(command: str, stdin: dict[str, Any], cwd: Path, env: dict[str, str], shell: str) -> Any:
    return subprocess.run(
        [shell, "-c", command],
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=60,
        check=False,
    )


def _patch(tool: str, args: dict[str, Any]) -> str:
    path = args.get("file_path", "")
    if tool == "write_file":
        body = "".join(f"+{line}\n" for line in args.get("content", "").splitlines())
        return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"
    old = "".join(f"-{line}\n" for line in args.get("old_string", "").splitlines())
    new = "".join(f"+{line}\n" for line in args.get("new_string", "").splitlines())
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{old}{new}*** End Patch\n"


def _claude_shaped_hooks(path: Path, *, bare: bool) -> dict[str, Any]:
    data = json.loads(path.read_text())
    if bare and "hooks" not in data:
        return dict(data)
    hooks: dict[str, Any] = data.get("hooks") or {}
    return hooks


def _codex_outcome(event: str, done: Any) -> tuple[str, str]:
    """One Codex hook's outcome: (kind, text) with kind block / context / stop / fail / none."""
    if done.returncode == 2:
        reason = done.stderr.strip()
        return ("block", reason) if reason else ("fail", "")
    if done.returncode != 0:
        return ("fail", "")
    text = done.stdout.strip()
    if not text:
        return ("none", "")
    if not text.startswith(("{", "[")):
        return ("fail", "") if event == "Stop" else ("none", "")
    try:
        answer = json.loads(text)
    except ValueError:
        return ("fail", "")
    universal = {"continue", "stopReason", "suppressOutput", "systemMessage"}
    allowed = {
        "PreToolUse": universal | {"decision", "reason", "hookSpecificOutput"},
        "PostToolUse": universal | {"decision", "reason", "hookSpecificOutput"},
        "UserPromptSubmit": universal | {"decision", "reason", "hookSpecificOutput"},
        "Stop": universal | {"decision", "reason"},
    }[event]
    if not isinstance(answer, dict) or set(answer) - allowed:
        return ("fail", "")
    specific = answer.get("hookSpecificOutput") or {}
    if specific and "hookEventName" not in specific:
        return ("fail", "")
    if event == "PreToolUse":
        return _codex_pre_tool_use(answer, specific)
    if answer.get("continue") is False:
        return ("stop", "")
    if answer.get("decision") == "block":
        reason = (answer.get("reason") or "").strip()
        return ("block", reason) if reason else ("fail", "")
    if specific.get("additionalContext"):
        return ("context", specific["additionalContext"])
    return ("none", "")


def _codex_pre_tool_use(answer: dict[str, Any], specific: dict[str, Any]) -> tuple[str, str]:
    """A Codex PreToolUse answer's outcome, read as Codex reads it."""
    if answer.get("continue") is False or "stopReason" in answer:
        return ("fail", "")
    decision = specific.get("permissionDecision")
    if decision == "deny":
        reason = (specific.get("permissionDecisionReason") or "").strip()
        return ("block", reason) if reason else ("fail", "")
    if decision == "allow":
        return ("modify", "") if "updatedInput" in specific else ("fail", "")
    if decision == "ask":
        return ("fail", "")
    if answer.get("decision") == "block":
        reason = (answer.get("reason") or "").strip()
        return ("block", reason) if reason else ("fail", "")
    if answer.get("decision") == "approve":
        return ("fail", "")
    return ("none", "")


def _codex_oracle(project: Path, kernel_event: str, data: dict[str, Any]) -> str:
    event = _CODEX_EVENTS[kernel_event]
    tool = data.get("tool_name")
    args = data.get("tool_input") or {}
    names = {"bash": ["Bash"], "write_file": ["apply_patch", "Write", "Edit"]}
    names["edit_file"] = names["write_file"]
    codex_tool = {"bash": "Bash", "write_file": "apply_patch", "edit_file": "apply_patch"}
    stdin: dict[str, Any] = {
        "session_id": "bench",
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
    }
    if tool is not None:
        stdin["tool_name"] = codex_tool.get(tool, tool)
        stdin["tool_input"] = (
            {"command": args["command"]}
            if tool == "bash"
            else {"command": _patch(tool, args)}
            if tool in ("write_file", "edit_file")
            else args
        )
        stdin["tool_use_id"] = "call-1"
    if event == "UserPromptSubmit":
        stdin["prompt"] = data["prompt"]
    if event == "Stop":
        stdin |= {"stop_hook_active": False, "last_assistant_message": data["response"]}
    if event == "PostToolUse":
        stdin["tool_response"] = data["tool_result"]["output"]
    outcomes = []
    for group in _claude_shaped_hooks(project / ".codex/hooks.json", bare=False).get(event, []):
        matcher = None if event in ("UserPromptSubmit", "Stop") else group.get("matcher")
        if not _claude_rule(matcher, names.get(tool or "", [tool or ""])):
            continue
        for hook in group["hooks"]:
            done = _run(hook["command"], stdin, project, {}, "/bin/sh")
            outcomes.append(_codex_outcome(event, done))
    kinds = {kind for kind, _text in outcomes}
    if event == "Stop":
        return "allow" if "stop" in kinds else "continue-agent" if "block" in kinds else "allow"
    if event == "PostToolUse":
        return "feedback" if kinds & {"block", "context"} else "none"
    if "block" in kinds or (event == "UserPromptSubmit" and "stop" in kinds):
        return "deny"
    return "modify" if "modify" in kinds else "allow"


def _claude_outcome(event: str, done: Any) -> str:
    """One Claude Code-shaped (Droid) hook's decision."""
    if done.returncode == 2:
        return {"Stop": "continue-agent", "PostToolUse": "feedback"}.get(event, "deny")
    if done.returncode != 0:
        return "none"
    text = done.stdout.strip()
    if not text.startswith("{"):
        return "none"
    try:
        answer = json.loads(text)
    except ValueError:
        return "none"
    specific = answer.get("hookSpecificOutput") or {}
    if answer.get("continue") is False:
        return "allow" if event == "Stop" else "deny"
    if answer.get("decision") == "block":
        return {"Stop": "continue-agent", "PostToolUse": "feedback"}.get(event, "deny")
    decision = specific.get("permissionDecision")
    if event == "PreToolUse" and decision in ("deny", "ask", "allow"):
        return "modify" if decision == "allow" and "updatedInput" in specific else decision
    if specific.get("additionalContext"):
        return "feedback" if event == "PostToolUse" else "allow"
    return "none"


def _factory_oracle(project: Path, kernel_event: str, data: dict[str, Any]) -> str:
    event = _CODEX_EVENTS[kernel_event]
    tool = data.get("tool_name")
    args = dict(data.get("tool_input") or {})
    names = {
        "bash": ["Execute", "Bash"],
        "write_file": ["Create", "Write"],
        "edit_file": ["Edit", "MultiEdit"],
        "read_file": ["Read"],
    }
    droid_tool = {"bash": "Execute", "write_file": "Create", "edit_file": "Edit"}
    if "file_path" in args:
        args["file_path"] = str(project / args["file_path"])
    stdin: dict[str, Any] = {
        "session_id": "bench",
        "transcript_path": "",
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if tool is not None:
        stdin |= {"tool_name": droid_tool.get(tool, tool), "tool_input": args}
    if event == "UserPromptSubmit":
        stdin["prompt"] = data["prompt"]
    if event == "PostToolUse":
        stdin["tool_response"] = data["tool_result"]
    env = {"FACTORY_PROJECT_DIR": str(project)}
    found = []
    hooks = _claude_shaped_hooks(project / ".factory/hooks.json", bare=True)
    for group in hooks.get(event, []):
        matcher = group.get("matcher") if event in ("PreToolUse", "PostToolUse") else None
        if not _claude_rule(matcher, names.get(tool or "", [tool or ""])):
            continue
        for hook in group["hooks"]:
            found.append(
                _claude_outcome(event, _run(hook["command"], stdin, project, env, "/bin/sh"))
            )
    if event == "Stop":
        return "continue-agent" if "continue-agent" in found else "allow"
    if event == "PostToolUse":
        return "feedback" if "feedback" in found else "none"
    return next((d for d in _ORDER if d in found), "allow")


def _copilot_oracle(project: Path, kernel_event: str, data: dict[str, Any]) -> str:
    tool = data.get("tool_name")
    args = data.get("tool_input") or {}
    found: list[str] = []
    for path in sorted((project / ".github/hooks").glob("*.json")):
        hooks = json.loads(path.read_text()).get("hooks", {})
        cli_event, vs_event = _CLI_EVENTS[kernel_event], _CODEX_EVENTS[kernel_event]
        for hook in hooks.get(cli_event, []):
            found.append(_copilot_cli(project, cli_event, hook, tool, args, data))
        for hook in hooks.get(vs_event, []):
            found.append(_copilot_vscode(project, vs_event, hook, tool, args, data))
    if kernel_event == "prompt:complete":
        return "continue-agent" if "continue-agent" in found else "allow"
    if kernel_event == "tool:post":
        return "feedback" if "feedback" in found else "none"
    return next((d for d in _ORDER if d in found), "allow")


def _copilot_cli(
    project: Path, event: str, hook: dict[str, Any], tool: Any, args: Any, data: Any
) -> str:
    cli_tool = {"bash": "bash", "write_file": "create", "edit_file": "edit"}.get(tool, tool)
    matcher = hook.get("matcher")
    if matcher and event == "preToolUse" and not re.fullmatch(matcher, cli_tool or ""):
        return "none"
    keys = {
        "file_path": "path",
        "content": "file_text",
        "old_string": "old_str",
        "new_string": "new_str",
    }
    stdin: dict[str, Any] = {"timestamp": int(time.time() * 1000), "cwd": str(project)}
    if tool is not None:
        stdin |= {
            "toolName": cli_tool,
            "toolArgs": json.dumps({keys.get(k, k): v for k, v in args.items()}),
        }
    if event == "userPromptSubmitted":
        stdin["prompt"] = data["prompt"]
    cwd = project / hook.get("cwd", ".")
    done = _run(hook["bash"], stdin, cwd, dict(hook.get("env", {})), "bash")
    if done.returncode != 0 or not done.stdout.strip().startswith("{"):
        return "none"
    answer = json.loads(done.stdout)
    if event == "preToolUse" and answer.get("permissionDecision") == "deny":
        return "deny"
    if event == "agentStop" and answer.get("decision") == "block":
        return "continue-agent"
    return "none"


def _copilot_vscode(
    project: Path, event: str, hook: dict[str, Any], tool: Any, args: Any, data: Any
) -> str:
    vs_tool = {
        "bash": "run_in_terminal",
        "write_file": "create_file",
        "edit_file": "replace_string_in_file",
    }
    keys = {"file_path": "filePath", "old_string": "oldString", "new_string": "newString"}
    stdin: dict[str, Any] = {
        "timestamp": "",
        "cwd": str(project),
        "hookEventName": event,
        "sessionId": "bench",
    }
    if tool is not None:
        tool_input = {keys.get(k, k): v for k, v in args.items()}
        if "filePath" in tool_input:
            tool_input["filePath"] = str(project / tool_input["filePath"])
        stdin |= {
            "tool_name": vs_tool.get(tool, tool),
            "tool_input": tool_input,
            "tool_use_id": "c",
        }
    if event == "UserPromptSubmit":
        stdin["prompt"] = data["prompt"]
    done = _run(hook["command"], stdin, project / hook.get("cwd", "."), {}, "/bin/sh")
    return _claude_outcome(event, done)


ORACLES = {"codex": _codex_oracle, "factory": _factory_oracle, "copilot": _copilot_oracle}

# ----------------------------------------------------------------------------- our runtime


def _ours(result: Any, kernel_event: str) -> str:
    action = getattr(result, "action", "continue")
    if kernel_event == "prompt:complete":
        data = getattr(result, "data", None) or {}
        return "continue-agent" if action == "deny" and data.get("keep_working") else "allow"
    if kernel_event == "tool:post":
        return "feedback" if getattr(result, "context_injection", None) else "none"
    return {"deny": "deny", "ask_user": "ask", "modify": "modify"}.get(action, "allow")


async def _runtime(project: Path, names: list[str]) -> dict[str, str]:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    found = {}
    try:
        for name in names:
            kernel_event, data = EVENTS[name]
            result = await coordinator.hooks.emit(kernel_event, {**data, "session_id": "bench"})
            found[name] = _ours(result, kernel_event)
    finally:
        await cleanup()
    return found


def _project(case: Case, root: Path) -> Path:
    project = root / f"{case.tool}-{case.name}"
    for rel, text in case.files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for rel in case.executable:
        (project / rel).chmod(0o755)
    (project / "src").mkdir(exist_ok=True)
    (project / "package.json").write_text('{"version": "1.0.0"}\n')
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project.resolve()


def run(only: str | None) -> dict[str, Any]:
    os.environ["AMPLIFIER_TRUST_PROJECT"] = "1"
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="formats-diff-") as tmp:
        os.environ["AMPLIFIER_HOME"] = str(Path(tmp) / "home")
        for case in CASES:
            if only and case.tool != only:
                continue
            project = _project(case, Path(tmp))
            names = list(case.events or EVENTS)
            ours = asyncio.run(_runtime(project, names))
            for name in names:
                kernel_event, data = EVENTS[name]
                theirs = ORACLES[case.tool](project, kernel_event, {**data, "session_id": "bench"})
                rows.append(
                    {
                        "tool": case.tool,
                        "case": case.name,
                        "event": name,
                        "tool_says": theirs,
                        "ours": ours[name],
                    }
                )
    tools = sorted({row["tool"] for row in rows})
    summary = {
        tool: {
            "decisions": sum(r["tool"] == tool for r in rows),
            "agree": sum(r["tool"] == tool and r["tool_says"] == r["ours"] for r in rows),
            "cases": len({r["case"] for r in rows if r["tool"] == tool}),
            "not_allow": sum(
                r["tool"] == tool and r["tool_says"] not in ("allow", "none") for r in rows
            ),
        }
        for tool in tools
    }
    return {"rows": rows, "summary": summary}


def main() -> int:
    logging.disable(logging.WARNING)  # the failures the cases provoke on purpose
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(ORACLES))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--check", action="store_true")
    options = parser.parse_args()
    started = time.monotonic()
    report = run(options.only)
    rows, summary = report["rows"], report["summary"]
    for tool, figures in summary.items():
        print(
            f"{tool}: {figures['agree']} of {figures['decisions']} decisions agree "
            f"({figures['cases']} installations; {figures['not_allow']} of them not a plain "
            "allow)"
        )
    agree = sum(f["agree"] for f in summary.values())
    total = sum(f["decisions"] for f in summary.values())
    print(f"all: {agree} of {total} decisions agree ({time.monotonic() - started:.1f} s)")
    for row in rows:
        if row["tool_says"] != row["ours"]:
            print(
                f"  differs: {row['tool']} {row['case']} {row['event']}: "
                f"tool {row['tool_says']}, ours {row['ours']}"
            )
    if options.json:
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps(report, indent=2))
    return 1 if options.check and agree != total else 0


if __name__ == "__main__":
    raise SystemExit(main())
