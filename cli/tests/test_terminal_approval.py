"""The terminal approval prompt: answer rules, the no-terminal policy, a real terminal (tmux)."""

from __future__ import annotations

import asyncio
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession
from amplifier_hooks_cli.terminal_approval import (
    TerminalApprovalSystem,
    default_option,
    is_interactive,
    match_answer,
)
from rich.console import Console

from amplifier_core.display import RecordingDisplay
from amplifier_core.models import HookResult

from .conftest import EchoTool, PlannedProvider, hermetic_bundle

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed; no real terminal")
OPTIONS = ["Allow once", "Allow always", "Deny"]


# -- the rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "default", "expected"),
    [
        (["Allow", "Deny"], "deny", "Deny"),
        (["Allow", "Deny"], "allow", "Allow"),
        (OPTIONS, "allow", "Allow once"),  # a timeout never grants lasting permission
        (["Allow always", "Allow once", "No thanks"], "deny", "No thanks"),
        (["yes", "Denied for now"], "deny", "Denied for now"),
        (["Proceed", "Skip"], "deny", "Skip"),  # no deny/no word: the first refusing option
        (["Proceed", "Approve"], "deny", "Deny"),  # nothing refuses: the kernel's Deny
        (["Reject", "Block"], "allow", "Allow"),
    ],
)
def test_default_option_picks_the_option_standing_for_the_default(
    options: list[str], default: str, expected: str
) -> None:
    assert default_option(options, default) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("1", "Allow once"),
        ("3", "Deny"),
        ("4", None),
        ("0", None),
        ("d", "Deny"),
        ("D", "Deny"),
        ("a", "Allow once"),  # two options start with a: the first one
        ("allow always", "Allow always"),
        ("ALLOW A", "Allow always"),
        ("x", None),
        ("  ", None),
    ],
)
def test_match_answer_by_number_letter_or_name(answer: str, expected: str | None) -> None:
    assert match_answer(answer, OPTIONS) == expected


def test_ci_or_a_pipe_is_not_interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert is_interactive(io.StringIO("1\n")) is False  # no file descriptor at all
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(os.dup(read_end)) as pipe:
            assert is_interactive(pipe) is False
    finally:
        os.close(read_end)
        os.close(write_end)
    monkeypatch.setenv("CI", "true")
    assert is_interactive(sys.stdin) is False


@pytest.mark.parametrize(("policy", "expected"), [("deny", "Deny"), ("allow", "Allow once")])
async def test_without_a_terminal_the_policy_answers_and_says_so(
    policy: str, expected: str
) -> None:
    shown = io.StringIO()
    system = TerminalApprovalSystem(
        policy=policy,  # type: ignore[arg-type]
        stdin=io.StringIO("1\n"),
        console=Console(file=shown, width=200),
    )
    answer = await system.request_approval(
        prompt="Write to prod.yaml?", options=OPTIONS, timeout=5, default="allow"
    )
    assert answer == expected
    assert system.history[-1].source == "policy"
    assert f"Write to prod.yaml? -> {expected} (no one to ask; policy: {policy})" in (
        shown.getvalue()
    )


@pytest.mark.parametrize(
    ("typed", "expected", "source"),
    [
        (b"3", "Deny", "user"),
        (b"\x1b[Ad", "Deny", "user"),  # an arrow key's letters never answer
        (b"x", "Allow once", "end_of_input"),  # not an option, then the input closes
        (b"a\n", "Allow once", "user"),  # a shared first letter needs Enter: the first one
    ],
)
async def test_keys_from_a_pipe_answer_without_blocking_the_loop(
    typed: bytes, expected: str, source: str
) -> None:
    read_end, write_end = os.pipe()
    shown = io.StringIO()
    with os.fdopen(read_end) as stdin:
        system = TerminalApprovalSystem(interactive=True, stdin=stdin, console=Console(file=shown))
        asking = asyncio.create_task(
            system.request_approval(prompt="Go?", options=OPTIONS, timeout=5, default="allow")
        )
        await asyncio.sleep(0.05)  # the question is waiting, and the loop is free
        assert not asking.done()
        os.write(write_end, typed)
        os.close(write_end)
        answer = await asyncio.wait_for(asking, timeout=3)
    assert (answer, system.history[-1].source) == (expected, source)
    assert "1) Allow once   2) Allow always   3) Deny" in shown.getvalue()


async def test_no_answer_from_a_pipe_times_out_to_the_default() -> None:
    read_end, write_end = os.pipe()
    shown = io.StringIO()
    try:
        with os.fdopen(read_end) as stdin:
            system = TerminalApprovalSystem(
                interactive=True, stdin=stdin, console=Console(file=shown)
            )
            answer = await system.request_approval(
                prompt="Go?", options=["Yes", "No"], timeout=0.3, default="deny"
            )
    finally:
        os.close(write_end)
    assert answer == "No"
    assert system.history[-1].source == "timeout"
    assert "No answer within 0.3s: timed out, taking the default: No" in shown.getvalue()


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="expected 'allow' or 'deny', got 'maybe'"):
        TerminalApprovalSystem(policy="maybe")  # type: ignore[arg-type]


async def _asked_to_run_echo(
    tmp_path: Path, approvals: TerminalApprovalSystem
) -> list[dict[str, Any]]:
    """The messages of a session whose model calls ``echo`` once, a hook asking ``Run echo?``
    first and ``approvals`` answering."""
    session = AgentSession(
        hermetic_bundle(),
        workspace=tmp_path,
        provider=PlannedProvider(("", [("echo", {"text": "ran"})]), "done"),
        tools={"echo": EchoTool()},
        approval_system=approvals,
        display_system=RecordingDisplay(),
    )
    session.coordinator.hooks.register(
        "tool:pre",
        lambda e, d: HookResult(action="ask_user", approval_prompt="Run echo?"),
        name="gate",
    )
    async with session:
        await session.run("go")
        messages: list[dict[str, Any]] = await session.context.get_messages()
    return messages


async def test_a_session_asks_it_and_the_kernel_applies_the_answer(tmp_path: Path) -> None:
    shown = io.StringIO()
    approvals = TerminalApprovalSystem(interactive=False, console=Console(file=shown))
    messages = await _asked_to_run_echo(tmp_path, approvals)
    tool_message = next(m for m in messages if m["role"] == "tool")
    assert "denied" in tool_message["content"]
    # The hook's prompt does not show the input: the kernel adds the tool and its input.
    shown_prompt = 'Run echo?\n\nTool: echo\nInput: {\n  "text": "ran"\n}'
    assert [r.prompt for r in approvals.history] == [shown_prompt]
    assert "Run echo?" in shown.getvalue()
    assert '"text": "ran"\n} -> Deny (no one to ask; policy: deny)' in shown.getvalue()


async def test_a_deny_at_the_terminal_reads_for_a_person(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"3")  # Deny
    os.close(write_end)
    with os.fdopen(read_end) as stdin:
        approvals = TerminalApprovalSystem(
            interactive=True, stdin=stdin, console=Console(file=io.StringIO())
        )
        messages = await _asked_to_run_echo(tmp_path, approvals)
    told = next(m for m in messages if m["role"] == "tool")["content"]
    assert "User denied: answered 'Deny' at the terminal to 'Run echo?" in told
    assert "TerminalApprovalSystem" not in told
    assert " via " not in told


# -- a real terminal -------------------------------------------------------------------------

PROGRAM = textwrap.dedent(
    """
    import asyncio, sys
    from amplifier_hooks_cli.terminal_approval import TerminalApprovalSystem

    async def main() -> None:
        system = TerminalApprovalSystem()
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.05)
                ticks += 1

        ticker = asyncio.create_task(tick())
        for prompt in sys.argv[2:]:
            answer = await system.request_approval(
                prompt=prompt, options=["Allow once", "Allow always", "Deny"],
                timeout=float(sys.argv[1]), default="deny",
            )
            record = system.history[-1]
            print(f"DECISION={answer} SOURCE={record.source} TICKS={ticks}", flush=True)
        ticker.cancel()
        print("FINISHED", flush=True)

    asyncio.run(main())
    """
)


class Terminal:
    """A tmux session on a private server: start a command, type, read the screen."""

    def __init__(self, socket: str) -> None:
        assert TMUX is not None
        self.base = [TMUX, "-L", socket]
        self.env = {**os.environ, "TERM": os.environ.get("TERM") or "xterm-256color"}

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [*self.base, *args], env=self.env, capture_output=True, text=True, timeout=10
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, command: str) -> None:
        self.tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", "t", "-S", "-200")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def wait_for(self, pattern: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} never appeared; the screen was:\n{screen}")
            time.sleep(0.05)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal(f"amplifier-hooks-test-{uuid.uuid4().hex[:12]}")
    try:
        yield term
    finally:
        subprocess.run([*term.base, "kill-server"], env=term.env, capture_output=True, timeout=10)


def _command(tmp_path: Path, *args: str) -> str:
    program = tmp_path / "ask.py"
    program.write_text(PROGRAM, encoding="utf-8")
    quoted = " ".join(f"'{a}'" for a in args)
    # CI may be set around the test run; the program must see a human at a terminal.
    return f"env -u CI {sys.executable} {program} {quoted}; sleep 30"


@needs_tmux
def test_the_prompt_options_and_countdown_are_shown_and_keys_answer(
    terminal: Terminal, tmp_path: Path
) -> None:
    terminal.start(_command(tmp_path, "30", "Run rm -rf build?", "Push to main?"))
    screen = terminal.wait_for(r"Deny in \d+s >")
    assert "Approval needed" in screen
    assert "Run rm -rf build?" in screen
    assert "1) Allow once   2) Allow always   3) Deny" in screen
    assert "answer 1-3 or a/d, Enter to confirm; no answer means Deny" in screen
    time.sleep(0.3)  # the loop keeps running while the prompt waits
    terminal.keys("2")
    screen = terminal.wait_for(r"DECISION=Allow always SOURCE=user TICKS=(\d+)")
    ticks = int(re.findall(r"TICKS=(\d+)", screen)[0])
    assert ticks >= 4, f"the event loop was blocked while waiting for a key ({ticks} ticks)"
    assert "-> Allow always" in screen

    terminal.wait_for(r"Push to main\?")
    terminal.wait_for(r"Deny in \d+s >")
    terminal.keys("x")  # not an option: said so, and nothing is decided
    terminal.wait_for(r"'x' is not an option; Deny in")
    terminal.keys("D")  # an option's first letter, case-insensitive
    screen = terminal.wait_for("FINISHED")
    assert "DECISION=Deny SOURCE=user" in screen


@needs_tmux
def test_no_answer_takes_the_default_and_says_it_timed_out(
    terminal: Terminal, tmp_path: Path
) -> None:
    started = time.monotonic()
    terminal.start(_command(tmp_path, "2", "Delete the cache?"))
    screen = terminal.wait_for(r"Deny in [12]s >")
    assert "Delete the cache?" in screen
    screen = terminal.wait_for("FINISHED", timeout=8)
    assert time.monotonic() - started >= 2
    assert "No answer within 2s: timed out, taking the default: Deny" in screen
    assert "DECISION=Deny SOURCE=timeout" in screen


@needs_tmux
def test_amplifier_hooks_run_asks_in_the_terminal(
    terminal: Terminal, tmp_path: Path, asking_module: Path
) -> None:
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        f"hooks:\n  - module: hooks-asker\n    source: {asking_module}\n", encoding="utf-8"
    )
    script = tmp_path / "script.yaml"
    script.write_text(
        "- tool_calls: [{name: bash, input: {command: echo approved-and-ran}}]\n- text: all done\n",
        encoding="utf-8",
    )
    cli = Path(sys.executable).with_name("amplifier-hooks")
    terminal.start(
        f"env -u CI {cli} run --bundle {bundle} --script {script} --prompt go "
        f"--workspace {tmp_path}; echo EXIT=$?; sleep 30"
    )
    screen = terminal.wait_for(r"Allow once in \d+s >")
    assert "Run 'echo approved-and-ran'?" in screen
    terminal.keys("1")
    screen = terminal.wait_for(r"EXIT=\d+")
    assert "-> Allow once" in screen
    assert "approved-and-ran" in screen
    assert "assistant: all done" in screen
    assert "EXIT=0" in screen


@pytest.fixture
def asking_module(tmp_path: Path) -> Path:
    """A local module whose tool:pre handler asks before any bash call (default: allow)."""
    package = tmp_path / "asker" / "src" / "amplifier_module_hooks_asker"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(ASKER, encoding="utf-8")
    return tmp_path / "asker"


ASKER = textwrap.dedent(
    """
    from amplifier_core.models import HookResult


    async def mount(coordinator, config):
        async def ask(event, data):
            if data.get("tool_name") != "bash":
                return HookResult()
            command = data["tool_input"]["command"]
            return HookResult(
                action="ask_user",
                approval_prompt=f"Run {command!r}?",
                approval_options=["Allow once", "Deny"],
                approval_timeout=20,
                approval_default="allow",
            )

        return coordinator.hooks.register("tool:pre", ask, name="hooks-asker")
    """
)


def test_a_prompt_is_shown_with_terminal_controls_escaped() -> None:
    from amplifier_hooks_cli.terminal_approval import printable

    shown = printable("Run rm -rf build?\x1b[1A\x1b[2K\rRun ls?\u202e\nnext\tline")
    assert "\x1b" not in shown
    assert "\r" not in shown
    assert "\u202e" not in shown
    assert shown == "Run rm -rf build?\\x1b[1A\\x1b[2K\\rRun ls?\\u202e\nnext\tline"
