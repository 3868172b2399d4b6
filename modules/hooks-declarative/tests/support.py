"""What the command-hook tests share: the test scripts as a user's command lines, the context
an event gives a hook, a runner for one protocol, and what the recording script saw; for the
containment tests, a trusted project and its hooks file, and the mark of a test that needs
bubblewrap."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.sandbox import Sandbox

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.runners.command import CommandRunner
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.trust import trust_status
from amplifier_module_hooks_declarative.types import Decision, HookContext

SCRIPTS = Path(__file__).parent / "scripts"
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap missing (CI sets AMPLIFIER_HOOKS_REQUIRE_BWRAP: there it must run)",
)
PRE_TOOL: dict[str, Any] = {"tool_name": "bash", "tool_input": {"command": "ls"}}
"""A bash call's ``tool:pre`` data, for a hook that runs on every call."""


def script(name: str, *args: str) -> str:
    """The command line a user writes for one of the test scripts."""
    path = SCRIPTS / name
    interpreter = "python3" if path.suffix == ".py" else "bash"
    return shlex.join([interpreter, str(path), *args])


def answering(payload: dict[str, Any] | str) -> str:
    """A hook that prints ``payload`` (JSON unless a string) after reading its input."""
    return script("cc_json.py", payload if isinstance(payload, str) else json.dumps(payload))


def real(path: str | Path) -> str:
    """What ``os.getcwd()`` reports inside ``path``."""
    return os.path.realpath(path)


def hook_context(
    project_dir: Path,
    event: str,
    alias: str,
    *,
    session_id: str,
    timestamp: str,
    fields: dict[str, Any],
    tool: str | None,
    args: dict[str, Any],
    call_id: str,
    data: dict[str, Any] | None,
) -> HookContext:
    """The context ``event`` gives a hook: the event's ``fields``, the tool's when there is
    one (``tool_name``, ``tool_input``, ``tool_call_id``), then ``data`` over both."""
    base = dict(fields)
    if tool is not None:
        base |= {"tool_name": tool, "tool_input": args, "tool_call_id": call_id}
    return HookContext(
        event=event,
        alias=alias,
        data={**base, **(data or {})},
        session_id=session_id,
        project_dir=str(project_dir),
        tool=tool,
        args=args if tool is not None else {},
        timestamp=timestamp,
    )


@dataclass(frozen=True, slots=True)
class FormatContext:
    """The hook contexts of one format's tests: ``context(project_dir, alias, event, *, tool,
    args, data)`` with this session, timestamp, event fields and call id; ``alias`` defaults
    to the format's tool-call event, ``args`` to ``git status`` for ``bash``."""

    alias: str
    session_id: str
    timestamp: str
    call_id: str
    fields: dict[str, Any] = field(default_factory=dict)

    def __call__(
        self,
        project_dir: Path,
        alias: str | None = None,
        event: str = "tool:pre",
        *,
        tool: str | None = "bash",
        args: dict[str, Any] | None = None,
        data: dict[str, Any] | None = None,
    ) -> HookContext:
        if args is None:
            args = {"command": "git status"} if tool == "bash" else {}
        return hook_context(
            project_dir,
            event,
            self.alias if alias is None else alias,
            session_id=self.session_id,
            timestamp=self.timestamp,
            fields=self.fields,
            tool=tool,
            args=args,
            call_id=self.call_id,
            data=data,
        )


@dataclass(frozen=True, slots=True)
class EventContext:
    """The hook contexts of a format whose tests name Amplifier's events: ``context(project_dir,
    event, *, tool, args, data)``; the alias is ``aliases[event]`` (the event itself when it
    has none), the event fields hold the session id and the time and, with ``tool_fields``,
    the tool's name and input under those two keys; ``args`` defaults to ``git status`` for
    ``bash``."""

    aliases: Mapping[str, str]
    session_id: str
    timestamp: str
    call_id: str
    tool_fields: tuple[str, str] | None = None

    def __call__(self, project_dir: Path, event: str = "tool:pre", **given: Any) -> HookContext:
        """``given``: ``tool``, ``args`` and ``data``, as :class:`FormatContext` takes them."""
        tool = given.get("tool", "bash")
        args = given.get("args")
        if args is None:
            args = {"command": "git status"} if tool == "bash" else {}
        fields: dict[str, Any] = {"session_id": self.session_id, "timestamp": self.timestamp}
        if tool is not None and self.tool_fields is not None:
            name, input_key = self.tool_fields
            fields |= {name: tool, input_key: args}
        context = FormatContext(
            self.aliases.get(event, event), self.session_id, self.timestamp, self.call_id, fields
        )
        return context(project_dir, event=event, **(given | {"args": args}))


async def mounted(
    project: Path, config: Mapping[str, Any] | None = None
) -> tuple[Any, Callable[[], Awaitable[None]]]:
    """hooks-declarative mounted on a test coordinator working in ``project``: the coordinator
    and the cleanup. The user's hooks are left out unless ``config`` says otherwise."""
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, **(config or {})})
    return coordinator, cleanup


def bash_call(command: str) -> dict[str, Any]:
    """The ``tool:pre`` data of a ``Bash`` call running ``command`` in session ``s``."""
    return {"tool_name": "Bash", "tool_input": {"command": command}, "session_id": "s"}


async def answer_after(
    project: Path, change: Callable[[], object], config: Mapping[str, Any] | None = None
) -> Any:
    """The answer of the hooks :func:`mounted` in ``project`` to a second ``ls``, made after
    ``change()``; the first ``ls`` must go through."""
    coordinator, cleanup = await mounted(project, config)
    try:
        first = await coordinator.hooks.emit("tool:pre", bash_call("ls"))
        assert first.action == "continue", first
        change()
        return await coordinator.hooks.emit("tool:pre", bash_call("ls"))
    finally:
        await cleanup()


async def emitted(
    project: Path, event: str, data: dict[str, Any], config: Mapping[str, Any] | None = None
) -> Any:
    """What the hooks :func:`mounted` in ``project`` answer to one ``event`` with ``data``;
    the mount is cleaned up afterwards."""
    coordinator, cleanup = await mounted(project, config)
    try:
        return await coordinator.hooks.emit(event, data)
    finally:
        await cleanup()


def claude_plugin(folder: Path) -> Path:
    """``folder`` made a Claude Code plugin named as the folder is (its manifest and an empty
    ``hooks`` directory); the folder."""
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / "hooks").mkdir()
    (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": folder.name}))
    return folder


def command_runner(
    command: str, project_dir: Path, *, label: str, protocol: str, **spec: Any
) -> CommandRunner:
    """A runner for a command hook of ``protocol``, as a hooks file declares it."""
    hook = CommandHookSpec.model_validate(
        {"type": "command", "command": command, "protocol": protocol, **spec}
    )
    return CommandRunner(hook, label=label, project_dir=str(project_dir))


async def recorded(
    project_dir: Path, ctx: HookContext, *, label: str, protocol: str
) -> dict[str, Any]:
    """What ``cc_record.py``, run as a hook of ``protocol``, saw for ``ctx``: ``{input, cwd,
    env}``."""
    record = project_dir / "record.json"
    runner = command_runner(
        script("cc_record.py"),
        project_dir,
        label=label,
        protocol=protocol,
        env={"RECORD_TO": str(record)},
    )
    assert await runner.run(ctx) == Decision(source=label)
    seen: dict[str, Any] = json.loads(record.read_text())
    record.unlink()
    return seen


Check = Callable[[str], None]
"""A check of a message: raises ``AssertionError`` when it is not as expected."""


def contains(*parts: str) -> Check:
    """A check that the message holds every one of ``parts``."""

    def check(message: str) -> None:
        for part in parts:
            assert part in message, (part, message)

    return check


class HttpEndpoint:
    """A loopback server answering each POST with ``status`` and ``answer``; it keeps what it
    received."""

    def __init__(self) -> None:
        self.status = 200
        self.answer: dict[str, Any] = {}
        self.received: list[tuple[dict[str, str], dict[str, Any]]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                endpoint.received.append((dict(self.headers.items()), body))
                text = json.dumps(endpoint.answer).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=30)


def run_contained(
    project: str | Path,
    argv: list[str],
    env: Mapping[str, str] | None = None,
    *,
    text: bool = True,
    check: bool = False,
) -> subprocess.CompletedProcess[Any]:
    """Run ``argv`` in the sandbox of ``project`` (with ``env``), its output captured."""
    with Sandbox(str(project)).contained(argv, env) as contained:
        return subprocess.run(
            contained.argv,
            env=contained.env,
            pass_fds=contained.pass_fds,
            capture_output=True,
            text=text,
            check=check,
        )


def trusted_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new ``tmp_path / "project"`` whose hooks run (``AMPLIFIER_TRUST_PROJECT``), with an
    Amplifier home of the test's own."""
    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", "1")
    monkeypatch.setenv("AMPLIFIER_HOME", str(tmp_path / "amplifier-home"))
    path = tmp_path / "project"
    path.mkdir()
    return path


def project_hooks(project: Path, hooks: dict[str, Any]) -> None:
    """Write ``hooks`` as ``project``'s ``.amplifier/hooks.yaml``."""
    (project / ".amplifier").mkdir(exist_ok=True)
    (project / ".amplifier" / "hooks.yaml").write_text(json.dumps({"hooks": hooks}))


def write(path: Path, text: str, mode: int | None = None) -> Path:
    """``text`` written at ``path`` (its folders made), with ``mode`` if given."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)
    return path


def refused(result: Any, project: Path, name: str) -> None:
    """``result`` denied the hook naming ``name``, and trust of ``project`` says the same."""
    assert result.action == "deny", result
    assert name in (result.reason or ""), result.reason
    status = trust_status(project)
    assert not status.trusted
    assert name in status.why_not()
