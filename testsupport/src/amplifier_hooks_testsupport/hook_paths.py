"""Every path that runs a hook, in one list: what must hold on every path (observe mode,
telemetry, trust, sandbox, redaction of what is shown or written) is asserted once per
:class:`HookPath` of :data:`HOOK_PATHS`, so a path that forgets the property fails its test.

A path is a *declaration* (how the hook is written: which format, which hook type, run alone,
in a ``parallel`` group or jointly as Claude Code runs its matcher groups, or a Python module)
driven by a *driver* (how its event is brought about: the kernel's emit on a mounted bundle,
``amplifier-hooks run``, ``run --trace``, ``emit``, ``replay``). Every declaration is a guard
that denies the same bash call, ``rm -rf scratch``, in the workspace it is written into; every
one runs under the ``kernel`` driver, and the declarations that stand for a whole way of
running hooks (the joint path of Claude Code settings, a Python module) run under every
driver. A test implements each driver once (:data:`DRIVERS` names them) and checks that it
implements every driver named here.

Standard library only: a declaration writes files and returns bundle entries; the test that
uses it mounts them.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = [
    "BASH_CALL",
    "DECLARATIONS",
    "DRIVERS",
    "HOOK_PATHS",
    "Declaration",
    "HookPath",
    "Written",
]

BASH_CALL: Final[dict[str, Any]] = {
    "tool_name": "bash",
    "tool_input": {"command": "rm -rf scratch"},
    "tool_call_id": "call_paths_1",
}
"""The call every declared guard denies (``tool:pre`` data)."""

REASON: Final = "recursive deletes need a human"
"""What a guard that gives a reason gives."""

DRIVERS: Final = ("kernel", "run", "run-trace", "emit", "replay")
"""How a path's event is brought about; a test implements each one."""


@dataclass(frozen=True, slots=True)
class Written:
    """What a declaration wrote: the bundle's hook entries (the guard's, observed or not),
    and the source pattern that puts it in observe mode (``observe_sources``; ``None`` for
    a Python module, observed with ``observe: true`` on its entry)."""

    entries: list[dict[str, Any]]
    observed_entries: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Declaration:
    """A guard denying :data:`BASH_CALL`, declared one way.

    ``write(project, scratch)`` writes its files (hooks files into ``project``, the
    workspace; anything else into ``scratch``) and returns its bundle entries."""

    name: str
    write: Callable[[Path, Path], Written]


def _entry(module: str, config: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """A bundle entry imported from its package, not through an installed entry point."""
    package = "amplifier_module_" + module.replace("-", "_")
    return {"module": module, "source": f"{package}:mount", "config": config or {}, **more}


def _declarative(config: dict[str, Any], observe: str, project: Path | None = None) -> Written:
    """hooks-declarative's entries; the project's hooks files are read from ``project`` (a
    replay's coordinator works in a scratch directory of its own)."""
    base = {"include_user": False, **config}
    if project is not None:
        base["project_dir"] = str(project)
    return Written(
        [_entry("hooks-declarative", base)],
        [_entry("hooks-declarative", {**base, "observe_sources": [observe]})],
    )


def _yaml(hook: dict[str, Any] | list[dict[str, Any]], *, parallel: bool = False) -> Written:
    """Hooks written in the bundle (source ``config``)."""
    hooks = hook if isinstance(hook, list) else [hook]
    steps: list[Any] = [{"parallel": True, "hooks": hooks}] if parallel else hooks
    return _declarative({"include_project": False, "hooks": {"PreToolUse": steps}}, "config")


_BLOCK_SCRIPT: Final = f"cat > /dev/null; echo '{REASON}' >&2; exit 2"
"""A command hook of any format that blocks: exit code 2, the reason on stderr."""


def _command(**more: Any) -> dict[str, Any]:
    return {"type": "command", "command": _BLOCK_SCRIPT, **more}


_DENY_ANSWER: Final = json.dumps(
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": REASON,
        }
    }
).encode()
_denying_url: list[str] = []


def _denying_server_url() -> str:
    """The URL of a loopback HTTP server (one per process, in a daemon thread) that answers
    every POST as a Claude Code hook that denies."""
    if _denying_url:
        return _denying_url[0]
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Deny(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(_DENY_ANSWER)))
            self.end_headers()
            self.wfile.write(_DENY_ANSWER)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Deny)
    threading.Thread(target=server.serve_forever, daemon=True, name="hook-paths-http").start()
    _denying_url.append(f"http://127.0.0.1:{server.server_address[1]}/hook")
    return _denying_url[0]


def _matcher(project: Path, scratch: Path) -> Written:
    return _yaml(
        {
            "type": "matcher",
            "match": {"tool": "Bash", "args": {"command": "rm *"}},
            "action": "block",
            "message": REASON,
        }
    )


def _yaml_command(project: Path, scratch: Path) -> Written:
    return _yaml(_command())


def _yaml_parallel(project: Path, scratch: Path) -> Written:
    return _yaml([_command(), _command()], parallel=True)


def _claude_http(project: Path, scratch: Path) -> Written:
    hook = {"type": "http", "url": _denying_server_url()}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return _declarative({}, ".claude/settings.json", project)


def _yaml_llm(project: Path, scratch: Path) -> Written:
    # no provider is mounted: the hook fails, and on_failure: block makes that its deny
    return _yaml(
        {"type": "llm", "model": "guard", "prompt": "Is {{args}} safe?", "on_failure": "block"}
    )


def _claude_settings(project: Path, scratch: Path) -> Written:
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [_command()]}]}}
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return _declarative({}, ".claude/settings.json", project)


def _claude_model_hook(project: Path, kind: str) -> Written:
    """A Claude Code ``type: prompt`` or ``type: agent`` hook: no provider is mounted to ask,
    and ``prompt_on_failure: block`` makes that failure its deny."""
    hook = {"type": kind, "prompt": "Safe? $ARGUMENTS"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return _declarative({"prompt_on_failure": "block"}, ".claude/settings.json", project)


def _claude_prompt(project: Path, scratch: Path) -> Written:
    return _claude_model_hook(project, "prompt")


def _claude_agent(project: Path, scratch: Path) -> Written:
    return _claude_model_hook(project, "agent")


def _claude_plugin(project: Path, scratch: Path) -> Written:
    plugin = scratch / "plugins" / "guard"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "guard"}))
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [_command()]}]}}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    return _declarative({"include_project": False, "plugins": [str(plugin)]}, "plugin guard*")


def _hook_shell(project: Path, scratch: Path) -> Written:
    directory = project / ".amplifier" / "hooks" / "guard"
    directory.mkdir(parents=True)
    group = {"matcher": "Bash", "hooks": [_command()]}
    hooks = {"description": "guard", "hooks": {"PreToolUse": [group]}}
    (directory / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    return _declarative({}, ".amplifier/hooks/guard/hooks.json", project)


def _gemini(project: Path, scratch: Path) -> Written:
    group = {"matcher": "run_shell_command", "hooks": [_command()]}
    settings = {"hooks": {"BeforeTool": [group]}}
    (project / ".gemini").mkdir(parents=True, exist_ok=True)
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return _declarative({}, ".gemini/settings.json", project)


def _cursor(project: Path, scratch: Path) -> Written:
    hooks = {"version": 1, "hooks": {"beforeShellExecution": [{"command": _BLOCK_SCRIPT}]}}
    (project / ".cursor").mkdir(parents=True, exist_ok=True)
    (project / ".cursor" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    return _declarative({}, ".cursor/hooks.json", project)


def _windsurf(project: Path, scratch: Path) -> Written:
    hooks = {"hooks": {"pre_run_command": [{"command": _BLOCK_SCRIPT, "show_output": True}]}}
    (project / ".windsurf").mkdir(parents=True, exist_ok=True)
    (project / ".windsurf" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    return _declarative({}, ".windsurf/hooks.json", project)


_CLINE_CANCEL: Final = (
    f"#!/bin/sh\ncat > /dev/null\necho '{json.dumps({'cancel': True, 'errorMessage': REASON})}'\n"
)
"""A Cline ``PreToolUse`` executable that cancels every tool call with :data:`REASON`."""


def _cline(project: Path, scratch: Path) -> Written:
    hook = project / ".clinerules" / "hooks" / "PreToolUse"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(_CLINE_CANCEL, encoding="utf-8")
    hook.chmod(0o755)
    return _declarative({}, ".clinerules/hooks/PreToolUse", project)


def _python_module(project: Path, scratch: Path) -> Written:
    config = {
        "rules": [
            {
                "name": "no-recursive-rm",
                "action": "deny",
                "tools": ["bash"],
                "command": ["rm -rf *"],
                "reason": REASON,
            }
        ]
    }
    return Written(
        [_entry("hooks-approval", config)], [_entry("hooks-approval", config, observe=True)]
    )


JOINT_CLAUDE_SETTINGS: Final = Declaration("claude-settings/command/joint", _claude_settings)
JOINT_CLAUDE_PLUGIN: Final = Declaration("claude-plugin/command/joint", _claude_plugin)
PYTHON_MODULE: Final = Declaration("python-module/hooks-approval", _python_module)
WINDSURF: Final = Declaration("windsurf/command", _windsurf)
CLINE: Final = Declaration("cline/command/joint", _cline)

DECLARATIONS: Final[tuple[Declaration, ...]] = (
    Declaration("yaml/matcher/sequential", _matcher),
    Declaration("yaml/command/sequential", _yaml_command),
    Declaration("yaml/command/parallel", _yaml_parallel),
    Declaration("yaml/llm/sequential", _yaml_llm),
    JOINT_CLAUDE_SETTINGS,
    Declaration("claude-settings/http/joint", _claude_http),
    Declaration("claude-settings/prompt/joint", _claude_prompt),
    Declaration("claude-settings/agent/joint", _claude_agent),
    JOINT_CLAUDE_PLUGIN,
    Declaration("hook-shell/command", _hook_shell),
    Declaration("gemini/command/joint", _gemini),
    Declaration("cursor/command", _cursor),
    WINDSURF,
    CLINE,
    PYTHON_MODULE,
)
"""Every way a guard is declared: each format, each hook type, each way hooks run together."""


@dataclass(frozen=True, slots=True)
class HookPath:
    """One declaration, driven one way."""

    declaration: Declaration
    driver: str

    @property
    def id(self) -> str:
        return f"{self.declaration.name}@{self.driver}"


HOOK_PATHS: Final[tuple[HookPath, ...]] = (
    *(HookPath(declaration, "kernel") for declaration in DECLARATIONS),
    *(
        HookPath(declaration, driver)
        for declaration in (JOINT_CLAUDE_PLUGIN, PYTHON_MODULE)
        for driver in DRIVERS
        if driver != "kernel"
    ),
    *(HookPath(JOINT_CLAUDE_SETTINGS, driver) for driver in ("run", "run-trace", "emit")),
    *(
        HookPath(declaration, driver)
        for declaration in (WINDSURF, CLINE)
        for driver in ("run", "run-trace", "emit")
    ),
)
"""Every path: each declaration under the kernel's emit; the joint Claude Code path (a
plugin's hooks) and a Python module under every driver; a project's Claude Code settings
under every driver that works in the project (``replay`` works in a scratch directory of its
own, where a project's hooks files are not read); so do a project's Windsurf ``hooks.json``
and Cline executables."""

SCRIPT: Final = textwrap.dedent(
    """\
    turns:
      - text: Cleaning out the scratch directory.
        tool_calls:
          - name: bash
            input: {command: rm -rf scratch}
      - text: Done.
    """
)
"""A scripted provider's script whose one tool call is :data:`BASH_CALL`'s command."""
