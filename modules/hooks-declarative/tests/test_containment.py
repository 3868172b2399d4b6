"""Hook processes are contained: each test is an attack a hook makes (the project, the hook,
the command) and asserts that it got nothing: no secret printed, no marker written, nothing
deleted, no connection made.

* The timeout kill does not depend on anything a hook can change: a ``setsid`` child that
  clears its environment (``env -i``), directly or through a double fork, is dead when the hook
  is reported killed.
* The session's ``/proc/<pid>/environ`` is not readable by its hooks (the session is
  non-dumpable), tested as an unprivileged user; as root, the sandbox's PID namespace hides it.
* ``sandbox: true`` runs a hook under the real bubblewrap: no network, read-only outside the
  project and the declared write paths, a private ``/tmp``, its own PID namespace, the minimal
  environment; a sandbox that cannot start blocks, naming the hook.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util import sandbox as sandbox_module
from amplifier_hooks_util.process import run_process

from amplifier_module_hooks_declarative.config import parse_config
from amplifier_module_hooks_declarative.containment import contain_documents
from amplifier_module_hooks_declarative.parsing import parse_hooks_text
from amplifier_module_hooks_declarative.runners.command import CommandRunner
from amplifier_module_hooks_declarative.source import Source
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.types import HookContext

SECRET = "sk-ant-session-secret-0123456789abcdef"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap missing (CI sets AMPLIFIER_HOOKS_REQUIRE_BWRAP: there it must run)",
)


def context(project: Path) -> HookContext:
    return HookContext(
        event="tool:pre",
        alias="PreToolUse",
        data={"tool_name": "bash", "tool_input": {"command": "ls"}},
        session_id="s-1",
        project_dir=str(project),
        tool="bash",
        args={"command": "ls"},
        timestamp="2026-01-01T00:00:00Z",
    )


def runner(command: str, project: Path, **spec: Any) -> CommandRunner:
    write_paths = spec.pop("write_paths", ())
    pass_env = spec.pop("pass_env", None)
    hook = CommandHookSpec.model_validate({"type": "command", "command": command, **spec})
    return CommandRunner(
        hook,
        label=".amplifier/hooks.yaml:hooks.PreToolUse[0]",
        project_dir=str(project),
        pass_env=pass_env,
        write_paths=write_paths,
    )


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return SECRET


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def reader_left(fifo: Path) -> bool:
    """Whether some process still has ``fifo`` open for reading (waits for a writer): a
    non-blocking open for writing fails with ENXIO when none has."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as err:
        if err.errno != errno.ENXIO:
            raise
        return False
    os.write(fd, b"go\n")  # let the survivor write its marker, so the failure shows it
    os.close(fd)
    return True


# ----------------------------------------------------------------------------- the timeout kill

# The hook starts a child that leaves its group and session and drops its whole environment
# (as /proc shows it), waits until that child runs, then sleeps past its timeout. The child
# blocks until someone writes to the FIFO, then writes the marker.
ESCAPES = {
    "setsid-env-i": "setsid env -i /bin/sh -c {child} > /dev/null 2>&1 < /dev/null &",
    "double-fork-env-i": "(setsid env -i /bin/sh -c {child} > /dev/null 2>&1 < /dev/null &)",
    "perl-clears-environ": (
        'setsid perl -e \'%ENV=(); $0="innocent"; exec {{"/bin/sh"}} "sh", "-c", '
        "$ARGV[0]' {child} > /dev/null 2>&1 < /dev/null &"
    ),
}


@linux_only
@pytest.mark.parametrize("spelling", list(ESCAPES))
async def test_an_escaped_child_that_drops_its_environment_dies_with_the_hook(
    project: Path, spelling: str
) -> None:
    if spelling.startswith("perl") and shutil.which("perl") is None:
        pytest.skip("perl missing")
    fifo, marker, pid_file = project / "go", project / "marker", project / "child.pid"
    os.mkfifo(fifo)
    child = shlex.quote(f"echo $$ > {pid_file}; read line < {fifo}; echo late > {marker}")
    hook = (
        ESCAPES[spelling].format(child=child)
        + f"\nuntil [ -s {pid_file} ]; do sleep 0.01; done\nsleep 60\n"
    )
    decision = await runner(hook, project, timeout_ms=1500).run(context(project))
    assert "timed out after 1500 ms" in (decision.message or "")
    pid = int(pid_file.read_text())
    assert not alive(pid), f"the escaped child {pid} still runs"
    assert not reader_left(fifo), "the escaped child still waits to write its marker"
    assert not marker.exists()


# ----------------------------------------------------------------------------- /proc/<pid>/environ

SCAN = (
    "tr '\\0' '\\n' < /proc/$PPID/environ; "
    "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done; "
    "tr '\\0' '\\n' < /proc/self/environ"
)

# The session (this script) was started with a secret in its environment; its hooks, given the
# minimal environment, read the session's /proc files. First a plain run of the same command
# before any command hook exists (the session is still dumpable: the secret shows, so the scan
# works), then the command hook, then the same hook contained (only when argv[3] is "sandbox").
SESSION = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from amplifier_hooks_util.process import run_process
    from amplifier_module_hooks_declarative.runners.command import CommandRunner
    from amplifier_module_hooks_declarative.config import MINIMAL_ENVIRONMENT
    from amplifier_module_hooks_declarative.specs import CommandHookSpec
    from amplifier_module_hooks_declarative.types import HookContext

    out, scan, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    ctx = HookContext(event="tool:pre", alias="PreToolUse", data={}, session_id="s",
                      project_dir=str(out), tool="bash", args={}, timestamp="t")

    async def hook(name, **spec):
        command = "{ " + scan + "; } > " + name + " 2> /dev/null"
        runner = CommandRunner(
            CommandHookSpec(type="command", command=command, **spec),
            label="hooks.yaml:hooks.PreToolUse[0]", project_dir=str(out),
            pass_env=MINIMAL_ENVIRONMENT)
        print(name, await runner.run(ctx))

    async def main():
        before = await run_process("{ " + scan + "; } 2> /dev/null", cwd=out,
                                   env={"PATH": "/usr/bin:/bin"})
        (out / "before.txt").write_bytes(before.stdout)
        await hook("hook.txt")
        if mode == "sandbox":
            await hook("contained.txt", sandbox=True)

    asyncio.run(main())
    """
)


def unprivileged() -> tuple[int, int] | None:
    """The uid and gid of an unprivileged user to run the session as."""
    for name in ("nobody", "daemon"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return entry.pw_uid, entry.pw_gid
    return None


# What SESSION imports, found by importing it in a child of this interpreter: each top-level
# package outside the standard library, with the directory it was loaded from.
PROBE = textwrap.dedent(
    """
    import json, sys, sysconfig
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    stdlib = tuple({sysconfig.get_paths(vars=base)[k] for k in ("stdlib", "platstdlib")})
    before = set(sys.modules)
    exec(compile(sys.argv[1], "<imports>", "exec"))
    found = {}
    for name in sorted(set(sys.modules) - before):
        top = sys.modules.get(name.partition(".")[0])
        paths = list(getattr(top, "__path__", []) or [getattr(top, "__file__", None) or ""])
        for path in paths:
            if path and ("-packages" in path or not path.startswith(stdlib)):
                found[path] = None
    print(json.dumps(list(found)))
    """
)


def readable_copy(work: Path) -> Path:
    """The packages :data:`SESSION` imports, copied under ``work`` (readable by anyone): the
    session runs as an unprivileged user, which may not read this checkout or its virtual
    environment (a clone under a 0700 ``mktemp -d`` directory)."""
    imports = "\n".join(
        line for line in SESSION.splitlines() if line.startswith(("import ", "from "))
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE, imports], capture_output=True, text=True, check=True
    )
    site = work / "site"
    site.mkdir()
    for path in map(Path, json.loads(done.stdout)):
        target = site / path.name
        if path.is_dir():
            shutil.copytree(
                path, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.pyc")
            )
        elif path.suffix in (".py", ".so", ".pyd") and not target.exists():
            shutil.copy2(path, target)
    for path in [work, *work.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
    return site


def run_session(request: pytest.FixtureRequest, mode: str, *user: str) -> Path:
    """Run :data:`SESSION` (as ``user``: a ``setpriv`` prefix) with the secret in its
    environment; the directory holding what it and its hooks saw. The session runs the base
    interpreter on a copy of what it imports, so it does not depend on where this checkout
    lives or on the permissions of its parents."""
    work = Path(tempfile.mkdtemp(prefix="session-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(work, ignore_errors=True))
    site = readable_copy(work)
    os.chmod(work, 0o777)
    script = work / "session.py"
    script.write_text(SESSION)
    python = getattr(sys, "_base_executable", sys.executable)
    done = subprocess.run(
        [*user, python, "-s", str(script), str(work), SCAN, mode],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": SECRET, "PYTHONPATH": str(site)},
    )
    assert done.returncode == 0, done.stderr
    before = (work / "before.txt").read_text()
    assert SECRET in before, "the scan could not read a dumpable session: the test proves nothing"
    assert "AMPLIFIER_HOOK_EVENT=PreToolUse" in (work / "hook.txt").read_text()
    return work


@linux_only
def test_a_hook_cannot_read_the_session_environment_through_proc(
    request: pytest.FixtureRequest,
) -> None:
    """As a user's own process: the session is non-dumpable once a command hook exists."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        user, setpriv = unprivileged(), shutil.which("setpriv")
        if user is None or setpriv is None:
            pytest.skip("needs setpriv and an unprivileged user to run the session as")
        prefix = [setpriv, f"--reuid={user[0]}", f"--regid={user[1]}", "--clear-groups"]
    mode = "plain" if shutil.which("bwrap") is None else "sandbox"
    work = run_session(request, mode, *prefix)
    assert SECRET not in (work / "hook.txt").read_text()
    if mode == "sandbox":  # contained as an unprivileged user too (a user namespace)
        contained = (work / "contained.txt").read_text()
        assert "AMPLIFIER_HOOK_EVENT=PreToolUse" in contained
        assert SECRET not in contained


@linux_only
@needs_bwrap
def test_a_root_hook_in_the_sandbox_cannot_read_the_session_environment(
    request: pytest.FixtureRequest,
) -> None:
    """As root, reading a non-dumpable process works; the sandbox's PID namespace hides it."""
    if os.geteuid() != 0:
        pytest.skip("the root path")
    work = run_session(request, "sandbox")
    assert SECRET in (work / "hook.txt").read_text()  # root: non-dumpable is no protection
    contained = (work / "contained.txt").read_text()
    assert "AMPLIFIER_HOOK_EVENT=PreToolUse" in contained
    assert SECRET not in contained


# ----------------------------------------------------------------------------- the sandbox


@pytest.fixture
def loopback() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that records each connection."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted: list[object] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    server.close()
    thread.join(timeout=5)


CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5).close()\n"
    "    print('connected')\n"
    "except OSError as err:\n"
    "    print('refused', err)\n"
)


@needs_bwrap
async def test_a_sandboxed_hook_has_no_network(project: Path, loopback: int) -> None:
    (project / "connect.py").write_text(CONNECT)
    command = f"{shlex.quote(sys.executable)} connect.py {loopback} > out.txt"
    assert (await runner(command, project).run(context(project))).action == "continue"
    assert (project / "out.txt").read_text().startswith("connected")  # the server is there
    decision = await runner(command, project, sandbox=True).run(context(project))
    assert decision.action == "continue", decision.message
    assert (project / "out.txt").read_text().startswith("refused")


@needs_bwrap
async def test_a_sandboxed_hook_runs_its_interpreter_and_script_from_the_hidden_tmp(
    request: pytest.FixtureRequest, project: Path
) -> None:
    """The sandbox empties /tmp and /var/tmp; a hook whose interpreter (a virtual environment)
    and script live there still runs, seeing them read-only, and nothing else of /var/tmp."""
    hidden = Path(tempfile.mkdtemp(prefix="hook-runtime-", dir="/var/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(hidden, ignore_errors=True))
    venv = hidden / "venv"
    make = [sys.executable, "-m", "venv", "--without-pip", str(venv)]
    made = await run_process(make, timeout=120)
    assert made.returncode == 0, made.stderr
    (hidden / "other.txt").write_text("not for the hook\n")
    script = hidden / "hook.py"
    script.write_text(
        "import os, sys\n"
        "print(sys.prefix)\n"
        "print(sorted(os.listdir(os.path.dirname(os.path.abspath(__file__)))))\n"
        "open(__file__, 'a')\n"
    )
    command = f"{shlex.quote(str(venv / 'bin' / 'python'))} {shlex.quote(str(script))} > out.txt"
    decision = await runner(command, project, sandbox=True, on_failure="block").run(
        context(project)
    )
    assert decision.action == "block"  # the script could not open itself for writing
    assert "Read-only file system" in (decision.message or ""), decision.message
    prefix, listing = (project / "out.txt").read_text().splitlines()
    assert prefix == str(venv)  # its own environment, not the base interpreter's
    assert listing == str(sorted(["hook.py", "venv"]))  # not other.txt


def any_exists(*paths: str | Path) -> bool:
    return any(os.path.lexists(path) for path in paths)


@needs_bwrap
async def test_a_sandboxed_hook_writes_only_the_project_and_declared_paths(
    tmp_path: Path, project: Path
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    declared = tmp_path / "cache"
    declared.mkdir()
    home = Path.home()
    hook = (
        f"rm -rf {victim}; touch {home}/sandbox-marker; touch /tmp/sandbox-marker; "
        f"touch /usr/sandbox-marker; echo mine > here.txt; echo cached > {declared}/c.txt; "
        f"ls /tmp > tmp-listing.txt; exit 0"
    )
    decision = await runner(hook, project, sandbox=True, write_paths=[str(declared)]).run(
        context(project)
    )
    assert decision.action == "continue", decision.message
    assert (victim / "keep.txt").read_text() == "precious\n"
    assert not any_exists(home / "sandbox-marker", "/tmp/sandbox-marker", "/usr/sandbox-marker")
    assert (project / "here.txt").read_text() == "mine\n"
    assert (declared / "c.txt").read_text() == "cached\n"
    # its /tmp is its own: the way to the project and what it wrote there, nothing else
    listing = (project / "tmp-listing.txt").read_text().split()
    assert sorted(listing) == sorted([tmp_path.parts[2], "sandbox-marker"])


@needs_bwrap
async def test_a_sandboxed_hook_sees_only_its_own_processes_and_environment(
    project: Path, secret: str
) -> None:
    hook = "ls /proc | grep -c '^[0-9]' > count.txt; env > env.txt"
    decision = await runner(hook, project, sandbox=True).run(context(project))
    assert decision.action == "continue", decision.message
    assert int((project / "count.txt").read_text()) <= 5
    env = (project / "env.txt").read_text()
    assert secret not in env
    assert "AMPLIFIER_PROJECT_DIR=" in env


@needs_bwrap
async def test_a_sandboxed_hook_is_killed_whole_at_its_timeout(project: Path) -> None:
    fifo, marker, started = project / "go", project / "marker", project / "started"
    os.mkfifo(fifo)
    child = shlex.quote(f"echo started > {started}; read line < {fifo}; echo late > {marker}")
    hook = (
        f"(setsid env -i /bin/sh -c {child} > /dev/null 2>&1 < /dev/null &)\n"
        f"until [ -s {started} ]; do sleep 0.01; done\nsleep 60\n"
    )
    decision = await runner(hook, project, sandbox=True, timeout_ms=1500).run(context(project))
    assert "timed out after 1500 ms" in (decision.message or "")
    assert started.exists()
    assert not reader_waiting_somewhere(fifo), "a process of the sandbox still waits on the FIFO"
    assert not reader_left(fifo)
    assert not marker.exists()


def reader_waiting_somewhere(fifo: Path) -> bool:
    """Whether a process has ``fifo`` open: /proc of every process, its file descriptors."""
    target = os.path.realpath(fifo)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    return True
            except OSError:
                continue
    return False


# ----------------------------------------------------------------------------- failing closed


@needs_bwrap
async def test_a_sandbox_that_cannot_start_blocks_and_names_the_hook(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = project / "ran"
    missing = tmp_path / "no-such-dir"
    decision = await runner(
        f"touch {marker}", project, sandbox=True, on_failure="ignore", write_paths=[str(missing)]
    ).run(context(project))
    assert decision.action == "block"
    assert ".amplifier/hooks.yaml:hooks.PreToolUse[0]" in (decision.message or "")
    assert "bwrap:" in (decision.message or "")
    assert not marker.exists()
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found
    sandbox_module.bwrap_path.cache_clear()
    try:
        decision = await runner(f"touch {marker}", project, sandbox=True).run(context(project))
    finally:
        monkeypatch.undo()
        sandbox_module.bwrap_path.cache_clear()
    assert decision.action == "block"
    assert "bubblewrap" in (decision.message or "")
    assert ".amplifier/hooks.yaml:hooks.PreToolUse[0]" in (decision.message or "")
    assert not marker.exists()


# ----------------------------------------------------------------------------- who is contained

HOOKS = "hooks:\n  PreToolUse:\n    - {type: command, command: 'true'}\n"
OWN = "hooks:\n  PreToolUse:\n    - {type: command, command: 'true', sandbox: true}\n"


KINDS = {
    ".amplifier/hooks.yaml": "project",
    ".claude/settings.json": "claude-settings",
    "~/.amplifier/hooks.yaml": "user",
    "config": "config",
}


def sandboxed(config: dict[str, Any], label: str, text: str, project: Path) -> bool:
    document = parse_hooks_text(text, label)
    path = None if label == "config" else Path(label.replace("~", str(Path.home())))
    if path is not None and not path.is_absolute():
        path = project / path
    source = Source(KINDS[label], label, path)
    (contained,) = contain_documents(
        [(document, source)], parse_config(config), project_dir=project
    )
    (entry,) = contained.entries()
    assert isinstance(entry.spec, CommandHookSpec)
    return entry.spec.sandbox


@pytest.mark.parametrize(
    ("config", "label", "text", "expected"),
    [
        ({}, ".amplifier/hooks.yaml", HOOKS, False),
        ({}, "~/.amplifier/hooks.yaml", OWN, True),
        ({"sandbox": True}, "~/.amplifier/hooks.yaml", HOOKS, True),
        ({"sandbox": "project"}, ".amplifier/hooks.yaml", HOOKS, True),
        ({"sandbox": "project"}, ".claude/settings.json", HOOKS, True),
        ({"sandbox": "project"}, "~/.amplifier/hooks.yaml", HOOKS, False),
        ({"sandbox": "project"}, "config", HOOKS, False),
        ({"sandbox_sources": ["~/.amplifier/*"]}, "~/.amplifier/hooks.yaml", HOOKS, True),
        ({"sandbox_sources": ["plugin x*"]}, "~/.amplifier/hooks.yaml", HOOKS, False),
    ],
)
def test_who_runs_contained(
    project: Path, config: dict[str, Any], label: str, text: str, expected: bool
) -> None:
    assert sandboxed(config, label, text, project) is expected


@needs_bwrap
async def test_a_contained_hook_answers_like_a_plain_one(project: Path) -> None:
    answer = json.dumps({"action": "block", "message": "no"})
    hook = f"cat > /dev/null; echo {shlex.quote(answer)}"
    plain = await runner(hook, project).run(context(project))
    contained = await runner(hook, project, sandbox=True).run(context(project))
    assert plain.action == contained.action == "block"
    assert contained.message == "no"


@needs_bwrap
async def test_a_trusted_projects_hook_runs_contained_under_sandbox_project(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The module default for project hooks, through mount: the project's own hooks file asks
    for nothing, its hook tries to delete a directory outside the project; the user's hook,
    not the project's, still writes where it likes."""
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_declarative import mount

    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", "1")
    monkeypatch.setenv("AMPLIFIER_HOME", str(tmp_path / "home"))
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    user_marker = tmp_path / "user-hook-ran"
    (project / ".amplifier").mkdir()
    (project / ".amplifier" / "hooks.yaml").write_text(
        "hooks:\n  PreToolUse:\n"
        f"    - {{type: command, command: 'rm -rf {victim}; touch ran-in-project'}}\n"
    )
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    config = {
        "sandbox": "project",
        "include_user": False,
        "hooks": {"PreToolUse": [{"type": "command", "command": f"touch {user_marker}"}]},
    }
    cleanup = await mount(coordinator, config)
    try:
        await coordinator.hooks.emit(
            "tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}}
        )
    finally:
        await cleanup()
    assert (project / "ran-in-project").exists()  # the project's hook ran, contained
    assert (victim / "keep.txt").read_text() == "precious\n"
    assert user_marker.exists()  # the bundle's own hook is not contained
