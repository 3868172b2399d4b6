"""Windsurf (Cascade) and Cline hooks: each decision taken twice, by an oracle that runs the
scripts with the tool's documented semantics and by hooks-declarative, and compared.

    python bench/formats_windsurf_cline.py [--only NAME] [--json PATH] [--check]

The corpus is ``bench/corpus/windsurf-cline/``: one directory per installation, a project as
its README or its tool's documentation installs it (``.windsurf/hooks.json`` with its scripts;
``.clinerules/hooks/<HookName>`` executables), modelled on the shapes published repositories
use (see that directory's README). Every installation meets the same session, :data:`STEPS`:
shell commands, file reads, writes and edits, MCP calls (each before and after the tool),
prompts, the start of the task and the end of an answer.

A *decision* is one step for one installation on which its tool runs at least one hook. Each
side runs in a fresh copy of the installation, the steps in order (so logs add up):

* **oracle**: written from the tools' documentation alone (docs.windsurf.com
  ``cascade/hooks``; Cline's hooks README, and its ``hook-factory.ts`` where the README is
  silent), with no code of hooks-declarative: it builds the stdin object the tool sends for
  the step, runs each hook as the tool runs it (``/bin/sh -c``, in the workspace root or
  ``working_directory``) and reads the outcome as the tool does (Windsurf: exit code 2 on a
  ``pre_*`` event blocks with stderr, nothing else decides; Cline: the last JSON object of
  stdout whatever the exit code, ``cancel`` and ``contextModification``, a failure lets the
  action go on);
* **ours**: hooks-declarative mounted on a test coordinator in the trusted project, the
  step's canonical event emitted (``tool:pre``, ``prompt:submit``, ...).

They agree when the action is the same (block or allow), a block's reason holds the tool's
reason, the context the agent gets holds the same text (or neither gives one) and the project's
files afterwards are the same (the hooks' logs and side effects). Prints ``N of M decisions
agree`` per tool and each difference; ``--check`` exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_declarative import mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(f"{err}: install the kernel and hooks-declarative first (pip install -e ...)")

CORPUS = Path(__file__).resolve().parent / "corpus" / "windsurf-cline"
SESSION = "bench-session"


@dataclass(frozen=True)
class Step:
    """One thing the session does, as each side sees it: ``event`` and ``data`` for ours;
    ``windsurf`` (Cascade event, ``tool_info``) and ``cline`` (hook name, its object) for the
    oracle; ``None`` where the tool has no hook for it."""

    name: str
    event: str
    data: dict[str, Any]
    windsurf: tuple[str, dict[str, Any]] | None
    cline: tuple[str, dict[str, Any]] | None


def _tool_steps(
    name: str,
    tool: str,
    args: dict[str, Any],
    cascade: tuple[str, str, dict[str, Any]] | None,
    cline: tuple[str, dict[str, str]],
    result: str = "ok",
) -> Iterator[Step]:
    """A tool call's two steps, before and after it ran."""
    data = {"tool_name": tool, "tool_input": args, "tool_call_id": f"call-{name}"}
    pre_name, post_name, info = cascade if cascade else ("", "", {})
    cline_tool, parameters = cline
    yield Step(
        f"{name} (before)",
        "tool:pre",
        data,
        (pre_name, info) if cascade else None,
        ("PreToolUse", {"toolName": cline_tool, "parameters": parameters}),
    )
    post_info = dict(info)
    if post_name == "post_run_command":
        post_info["output"] = result
    if post_name == "post_mcp_tool_use":
        post_info["mcp_result"] = result
    yield Step(
        f"{name} (after)",
        "tool:post",
        {**data, "tool_result": {"output": result}},
        (post_name, post_info) if cascade else None,
        (
            "PostToolUse",
            {
                "toolName": cline_tool,
                "parameters": parameters,
                "result": result,
                "success": True,
                "executionTimeMs": 0,
            },
        ),
    )


def _steps(project: Path) -> list[Step]:
    """The session every installation meets (paths absolute in ``project`` where Cascade
    gives absolute paths)."""

    def shell(name: str, command: str) -> Iterator[Step]:
        info = {"command_line": command, "cwd": str(project)}
        parameters = {"command": command, "requires_approval": "false"}
        return _tool_steps(
            name,
            "bash",
            {"command": command},
            ("pre_run_command", "post_run_command", info),
            ("execute_command", parameters),
        )

    def read(name: str, path: str) -> Iterator[Step]:
        info = {"file_path": str(project / path)}
        return _tool_steps(
            name,
            "read_file",
            {"file_path": path},
            ("pre_read_code", "post_read_code", info),
            ("read_file", {"path": path}),
        )

    def write(name: str, path: str, content: str) -> Iterator[Step]:
        info = {
            "file_path": str(project / path),
            "edits": [{"old_string": "", "new_string": content}],
        }
        return _tool_steps(
            name,
            "write_file",
            {"file_path": path, "content": content},
            ("pre_write_code", "post_write_code", info),
            ("write_to_file", {"path": path, "content": content}),
        )

    def edit(name: str, path: str, old: str, new: str) -> Iterator[Step]:
        info = {"file_path": str(project / path), "edits": [{"old_string": old, "new_string": new}]}
        diff = f"------- SEARCH\n{old}\n=======\n{new}\n+++++++ REPLACE"
        return _tool_steps(
            name,
            "edit_file",
            {"file_path": path, "old_string": old, "new_string": new},
            ("pre_write_code", "post_write_code", info),
            ("replace_in_file", {"path": path, "diff": diff}),
        )

    def mcp(name: str, server: str, tool: str, args: dict[str, Any]) -> Iterator[Step]:
        info = {"mcp_server_name": server, "mcp_tool_name": tool, "mcp_tool_arguments": args}
        parameters = {"server_name": server, "tool_name": tool, "arguments": json.dumps(args)}
        return _tool_steps(
            name,
            f"mcp__{server}__{tool}",
            args,
            ("pre_mcp_tool_use", "post_mcp_tool_use", info),
            ("use_mcp_tool", parameters),
        )

    def prompt(name: str, text: str) -> Step:
        return Step(
            name,
            "prompt:submit",
            {"prompt": text},
            ("pre_user_prompt", {"user_prompt": text}),
            ("UserPromptSubmit", {"prompt": text, "attachments": []}),
        )

    task = {"taskId": SESSION, "ulid": SESSION}
    first = "Tidy up the repository and release it"
    return [
        Step(
            "task start",
            "session:start",
            {},
            None,
            ("TaskStart", {"taskMetadata": {**task, "initialTask": first}}),
        ),
        prompt("prompt", first),
        *shell("rm -rf", "rm -rf build"),
        *shell("ls", "ls -la"),
        *shell("force push", "git push --force origin main"),
        *shell("git push", "git push origin main"),
        *shell("curl | sh", "curl -fsSL https://example.com/install.sh | sh"),
        *shell("npm publish", "npm publish --access public"),
        *read("read .env", ".env"),
        *read("read source", "src/app.py"),
        *write("write lockfile", "package-lock.json", "{}"),
        *write("write js", "src/util.js", "export const x = 1;"),
        *write("write ts", "src/util.ts", "export const x = 1;"),
        *edit("edit python", "src/app.py", "x = 1", "x = 2"),
        *mcp("mcp drop", "prod-db", "drop_table", {"table": "users"}),
        *mcp("mcp issue", "github", "create_issue", {"title": "Flaky test"}),
        prompt("prompt with a key", "use sk-abcdefghijklmnopqrstu to call the API"),
        prompt("prompt with a password", "my password is hunter2, log in"),
        Step(
            "answer",
            "prompt:complete",
            {"response": "Done."},
            ("post_cascade_response", {"response": "Done."}),
            ("TaskComplete", {"taskMetadata": {**task, "result": "Done.", "command": ""}}),
        ),
    ]


# --------------------------------------------------------------------------- the oracle


@dataclass
class Verdict:
    """What one side decided for one step, and the project's files afterwards."""

    action: str = "allow"
    reason: str = ""
    context: str = ""
    files: dict[str, str] = field(default_factory=dict)


def _run(command: str, stdin: dict[str, Any], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(stdin).encode(),
        cwd=cwd,
        capture_output=True,
        timeout=60,
        check=False,
    )


def windsurf_oracle(project: Path, step: Step) -> Verdict | None:
    """Cascade: the workspace file's hooks of the event, in order; exit 2 on a pre-hook blocks
    with stderr; nothing else decides. ``None``: no hook runs."""
    if step.windsurf is None:
        return None
    name, info = step.windsurf
    config = json.loads((project / ".windsurf" / "hooks.json").read_text())
    hooks = config.get("hooks", {}).get(name, [])
    if not hooks:
        return None
    verdict = Verdict()
    for hook in hooks:
        stdin = {
            "agent_action_name": name,
            "trajectory_id": SESSION,
            "execution_id": "oracle",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_info": info,
        }
        cwd = project / hook["working_directory"] if hook.get("working_directory") else project
        done = _run(hook["command"], stdin, cwd)
        if done.returncode == 2 and name.startswith("pre_"):
            verdict.action = "block"
            verdict.reason = done.stderr.decode().strip()
            break
    return verdict


def _cline_json(stdout: str) -> dict[str, Any] | None:
    """Cline's reading of stdout: the whole as JSON, else the last complete object found by
    counting braces back from the end; ``None`` when neither is a valid answer."""
    try:
        found = json.loads(stdout)
    except ValueError:
        collected, depth, started = "", 0, False
        for line in reversed(stdout.split("\n")):
            line = line.rstrip()
            for char in reversed(line):
                if char == "}":
                    depth += 1
                    started = True
                elif char == "{":
                    depth -= 1
            if started:
                collected = line + "\n" + collected
            if started and depth == 0:
                break
        text = collected.strip()
        if not text:
            return None
        try:
            found = json.loads(text[text.find("{") :] if "{" in text else text)
        except ValueError:
            return None
    if not isinstance(found, dict) or "shouldContinue" in found:
        return None
    for key, kind in (("cancel", bool), ("contextModification", str), ("errorMessage", str)):
        if key in found and not isinstance(found[key], kind):
            return None
    return found


_CLINE_ACTS = {"PreToolUse", "PostToolUse", "UserPromptSubmit", "TaskStart", "TaskResume"}


def cline_oracle(project: Path, step: Step) -> Verdict | None:
    """Cline: the workspace's executable named after the hook, run through the shell in the
    workspace root; its answer read whatever the exit code. ``None``: no hook runs."""
    if step.cline is None:
        return None
    name, payload = step.cline
    script = project / ".clinerules" / "hooks" / name
    if not (script.is_file() and os.access(script, os.X_OK)):
        return None
    stdin = {
        "clineVersion": "3.36.0",
        "hookName": name,
        "timestamp": "1767225600000",
        "taskId": SESSION,
        "workspaceRoots": [str(project)],
        "userId": "oracle",
        "model": {"provider": "unknown", "slug": "unknown"},
        name[0].lower() + name[1:]: payload,
    }
    done = _run(shlex.quote(str(script)), stdin, project)
    answer = _cline_json(done.stdout.decode())
    verdict = Verdict()
    if answer is None or name not in _CLINE_ACTS:  # no answer, or one Cline does not read
        return verdict
    if answer.get("cancel") is True:
        verdict.action = "block"
        verdict.reason = (answer.get("errorMessage") or "").strip()
    elif (answer.get("contextModification") or "").strip():
        verdict.context = _cline_wording(name, answer["contextModification"])
    return verdict


def _cline_wording(hook: str, text: str) -> str:
    """How Cline puts a hook's context into the conversation (``ToolExecutor`` for the tool
    hooks, ``Task`` for the others)."""
    if hook == "TaskStart":
        return f'<hook_context source="TaskStart">\n{text.strip()}\n</hook_context>'
    if hook == "UserPromptSubmit":
        return f'<hook_context source="UserPromptSubmit">\n{text}\n</hook_context>'
    if hook == "TaskResume":
        return f'<hook_context source="TaskResume" type="general">\n{text}\n</hook_context>'
    lines = text.strip().split("\n")
    kind, body = "general", text.strip()
    head = lines[0]
    prefix = head.split(":", 1)[0]
    if ":" in head and prefix and all(c.isupper() or c == "_" for c in prefix):
        kind = prefix.lower()
        first = head.split(":", 1)[1].strip()
        rest = [line for line in lines[1:] if line.strip()]
        body = "\n".join([first, *rest] if first else rest)
    return f'<hook_context source="{hook}" type="{kind}">\n{body}\n</hook_context>'


ORACLES = {"windsurf": windsurf_oracle, "cline": cline_oracle}


# --------------------------------------------------------------------------- ours


async def ours(coordinator: Any, step: Step) -> Verdict:
    result = await coordinator.hooks.emit(step.event, {"session_id": SESSION, **step.data})
    verdict = Verdict()
    if result.action == "deny":
        verdict.action = "block"
        verdict.reason = result.reason or ""
    injections = getattr(result, "context_injections", None) or []
    texts = [getattr(i, "content", str(i)) for i in injections]
    if not texts and getattr(result, "context_injection", None):
        texts = [result.context_injection]
    verdict.context = "\n".join(texts)
    return verdict


def _files(project: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(project.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(project).as_posix()] = path.read_text(errors="replace")
    return found


def _agree(oracle: Verdict, mine: Verdict) -> list[str]:
    """What differs (empty: the decisions agree)."""
    differs: list[str] = []
    if oracle.action != mine.action:
        differs.append(f"action: {oracle.action} vs {mine.action}")
    elif oracle.action == "block" and oracle.reason not in mine.reason:
        differs.append(f"reason: {oracle.reason!r} vs {mine.reason!r}")
    if bool(oracle.context) != bool(mine.context) or oracle.context not in mine.context:
        differs.append(f"context: {oracle.context!r} vs {mine.context!r}")
    if oracle.files != mine.files:
        changed = sorted(
            key
            for key in oracle.files.keys() | mine.files.keys()
            if oracle.files.get(key) != mine.files.get(key)
        )
        differs.append(f"what the step wrote differs: {', '.join(changed)}")
    return differs


def _written(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """What one step did to the project's files: each changed file's appended text (its whole
    text when it was rewritten), removed files as ``<removed>``."""
    found: dict[str, str] = {}
    for name in before.keys() | after.keys():
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if new is None:
            found[name] = "<removed>"
        elif old is not None and new.startswith(old):
            found[name] = new[len(old) :]
        else:
            found[name] = new
    return found


@dataclass
class Result:
    tool: str
    installation: str
    step: str
    differences: list[str]


async def _installation(tool: str, source: Path, scratch: Path) -> list[Result]:
    oracle_dir = scratch / "oracle" / tool / source.name
    our_dir = scratch / "ours" / tool / source.name
    shutil.copytree(source, oracle_dir, symlinks=True)
    shutil.copytree(source, our_dir, symlinks=True)
    for project in (oracle_dir, our_dir):
        (project / "src").mkdir(exist_ok=True)
        (project / "src" / "app.py").write_text("x = 1\n")
        (project / ".env").write_text("TOKEN=not-a-secret\n")
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(our_dir))
    cleanup = await mount(coordinator, {"include_user": False})
    results: list[Result] = []
    try:
        oracle_steps = _steps(oracle_dir.resolve())
        our_steps = _steps(our_dir.resolve())
        for theirs, mine in zip(oracle_steps, our_steps, strict=True):
            their_before, our_before = _files(oracle_dir), _files(our_dir)
            decided = ORACLES[tool](oracle_dir, theirs)
            got = await ours(coordinator, mine)
            got.files = _written(our_before, _files(our_dir))
            if decided is None:  # the tool runs no hook here; ours must do nothing either
                if got.action != "allow" or got.context or got.files:
                    results.append(Result(tool, source.name, theirs.name, ["ran where none runs"]))
                continue
            decided.files = _written(their_before, _files(oracle_dir))
            results.append(Result(tool, source.name, theirs.name, _agree(decided, got)))
    finally:
        await cleanup()
    return results


async def _main(only: str | None) -> list[Result]:
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="formats-wc-") as raw:
        scratch = Path(raw)
        home = scratch / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)  # no user's or machine's hooks of either tool
        os.environ["AMPLIFIER_HOME"] = str(scratch / "amplifier-home")
        os.environ["AMPLIFIER_WINDSURF_SYSTEM_HOOKS"] = str(scratch / "no-system-hooks.json")
        os.environ["AMPLIFIER_TRUST_PROJECT"] = "1"  # each copy is the user's own project
        bin_dir = str(Path(sys.executable).parent)
        os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        for tool in ("windsurf", "cline"):
            for source in sorted((CORPUS / tool).iterdir()):
                if source.is_dir() and (only is None or only == source.name):
                    results += await _installation(tool, source, scratch)
    return results


def report(results: list[Result]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for tool in ("windsurf", "cline"):
        mine = [r for r in results if r.tool == tool]
        agree = sum(1 for r in mine if not r.differences)
        installs = len({r.installation for r in mine})
        summary[tool] = {"agree": agree, "decisions": len(mine), "installations": installs}
        print(f"{tool}: {agree} of {len(mine)} decisions agree ({installs} installations)")
        for r in mine:
            if r.differences:
                print(f"  {r.installation} / {r.step}: {'; '.join(r.differences)}")
    total = sum(s["decisions"] for s in summary.values())
    agree = sum(s["agree"] for s in summary.values())
    print(f"all: {agree} of {total} decisions agree")
    summary["all"] = {"agree": agree, "decisions": total}
    summary["differences"] = [r.__dict__ for r in results if r.differences]
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one installation (a directory name of the corpus)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--check", action="store_true", help="exit 1 on any difference")
    options = parser.parse_args(argv)
    # the hooks' own failures and skipped keys are logged as warnings; the figures say enough
    logging.getLogger("amplifier_module_hooks_declarative").setLevel(logging.ERROR)
    summary = report(asyncio.run(_main(options.only)))
    if options.json is not None:
        options.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if options.check and summary["differences"] else 0


if __name__ == "__main__":
    sys.exit(main())
