"""``amplifier-hooks demo``: every installed reference hook at work in a real, offline session.

The demo copies nothing from a user's setup. It makes a temporary workspace that is a small git
repository (a ``README.md``, an ``AGENTS.md``, an ignored ``build/`` directory, one commit; when
git is missing the workspace is a plain directory and the demo goes on), loads the packaged demo
bundle (``demo_data/demo-bundle.yaml``, the same file as ``examples/demo-bundle.yaml``) and runs
an :class:`~amplifier_hooks_cli.session.AgentSession` whose scripted provider replays
``demo_data/demo-script.yaml``. Every event fires for real, and each module shows its job:

- the prompt carries a made-up GitHub token and an address: hooks-redaction rewrites it before
  the model, or the log of hooks-logging, sees it;
- a command hook of hooks-declarative (a one-line ``printf``) adds a project rule to each prompt;
- hooks-status-context's block (directory, date, branch, status, commits) reaches every request;
- the model writes a todo list, and hooks-todo-reminder shows it back in the next requests;
- ``git status`` runs without a question (a read-only rule of hooks-approval);
- the model writes ``stats.py`` with an unused import and a TODO: hooks-python-check's findings
  are appended to the tool result, the model rewrites the file, and the checker says it is clean
  (ruff, ruff format and the stub scan: mypy is left out of the demo's config, because its first
  run in a new project alone takes about a second, and the summary says so);
- ``rm -rf build`` is blocked by a matcher hook of hooks-declarative;
- ``git push`` is asked for by hooks-approval and denied: the demo answers every approval with a
  fixed policy (deny), so it never waits for a terminal.

The bundle names only the modules ``amplifier-hooks[all]`` installs (the template module, which
is copied rather than installed, is left out); ``--bundle`` runs the demo on another bundle.

While it runs, the demo prints each turn and what every hook did (each emit is traced handler
by handler with a :class:`~amplifier_hooks_cli.tracing.Tracer`; a block a hook injects is printed
in full the first time and by its new lines when it changes). At the end a table sums up the
handlers, and one line per module says what that module did. A module of the bundle that is
not installed is reported once and skipped.

The pieces ``amplifier-hooks run`` shares with the demo live in
:mod:`~amplifier_hooks_cli.demo_view` (:class:`SessionView` prints a session's turns as they
happen, :class:`ConsoleDisplay` prints hook messages) and :mod:`~amplifier_hooks_cli.scripts`
(the prompts a script file carries). The end-of-run summary is
:mod:`~amplifier_hooks_cli.demo_report`'s.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Final

from amplifier_hooks_bundle import Bundle, load_bundle
from amplifier_hooks_util.git_config import git_environment
from amplifier_hooks_util.state import render_template
from rich.console import Console
from rich.markup import escape

from .demo_report import print_report
from .demo_view import ApprovalAudit, ConsoleDisplay, SessionView
from .scripts import bundle_script, script_prompts
from .session import AgentSession
from .terminal_approval import TerminalApprovalSystem

__all__ = ["DEMO_BUNDLE", "DEMO_SCRIPT", "new_repository", "run_demo"]

DEMO_DATA: Final = Path(__file__).with_name("demo_data")
DEMO_BUNDLE: Final = DEMO_DATA / "demo-bundle.yaml"
"""The demo's bundle (also shipped as ``examples/demo-bundle.yaml``)."""
DEMO_SCRIPT: Final = DEMO_DATA / "demo-script.yaml"
"""The demo's scripted model and prompts (also shipped as ``examples/demo-script.yaml``)."""

_WORKSPACE_FILES: Final = {
    "README.md": "# stats\n\nSmall statistics helpers.\n",
    "AGENTS.md": "Keep changes small. Never delete files without asking.\n",
    ".gitignore": "build/\n.amplifier/\n",
    "build/app.bin": "compiled output\n",
}
_GIT_TIMEOUT: Final = 10.0
_GIT_IDENTITY: Final = ("-c", "user.name=amplifier-hooks demo", "-c", "user.email=demo@localhost")
_GIT_ISOLATION: Final = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
_GIT_LOCATION_VARS: Final = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_CEILING_DIRECTORIES",
)


# -- the workspace -------------------------------------------------------------------------

_GIT_STEPS: Final = (
    ("init", ("-c", "init.defaultBranch=main", "init", "-q")),
    ("add", ("add", "-A")),
    (
        "commit",
        (*_GIT_IDENTITY, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "Start stats"),
    ),
)


def _seed(workspace: Path) -> None:
    """Write the workspace's files (a README, an AGENTS.md, an ignored build output)."""
    for name, text in _WORKSPACE_FILES.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _git(git: str, workspace: Path, verb: str, args: tuple[str, ...]) -> str | None:
    """Run one git command in ``workspace``: None when it worked, else what went wrong."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARS}
    env.update(_GIT_ISOLATION)  # the user's git config (hooks, signing) stays out of it
    # and a configuration the workspace already holds runs no program (fsmonitor, hooks...)
    env, _ = git_environment(env, workspace, git=git)
    try:
        done = subprocess.run(
            [git, *args],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"`git {verb}` failed: {err}"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip().splitlines()
    return f"`git {verb}` failed (exit {done.returncode})" + (f": {said[0]}" if said else "")


def _make_repository(workspace: Path) -> str:
    """Make ``workspace`` a git repository with one commit; say what it is now."""
    git = shutil.which("git")
    if git is None:
        return "not a git repository: git is not installed"
    for number, (verb, args) in enumerate(_GIT_STEPS):
        failed = _git(git, workspace, verb, args)
        if failed is not None:
            what = "not a git repository" if number == 0 else "a git repository without commits"
            return f"{what}: {failed}"
    return "a git repository: branch main, 1 commit"


def new_repository(workspace: Path) -> str:
    """``git init`` in ``workspace`` (branch main, the user's git config left out, the
    session's ``.amplifier/`` state excluded); say what the workspace is now, for ``run``'s
    "created workspace" line."""
    git = shutil.which("git")
    if git is None:
        return "not a git repository: git is not installed"
    verb, args = _GIT_STEPS[0]
    failed = _git(git, workspace, verb, args)
    if failed:
        return f"not a git repository: {failed}"
    exclude = workspace / ".git" / "info" / "exclude"  # the session's own state is not work
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with exclude.open("a", encoding="utf-8") as file:
        file.write(".amplifier/\n")
    return "a new git repository, branch main"


def _audit_path(bundle: Bundle, session: AgentSession) -> Path | None:
    """Where hooks-approval of ``bundle`` writes its audit log in ``session`` (None: nowhere)."""
    entry = next((h for h in bundle.hooks if h.module == "hooks-approval"), None)
    if entry is None:
        return None
    template = entry.config.get("audit_log", "{session_dir}/approvals.jsonl")
    if not isinstance(template, str):
        return None
    return render_template(template, session.session_id, working_dir=session.workspace)


# -- the demo ------------------------------------------------------------------------------


async def run_demo(console: Console, *, keep: bool = False, bundle_path: Path | None = None) -> int:
    """Run the demo, print it, and return the process exit code (0 when every turn ran)."""
    started = time.perf_counter()
    bundle = load_bundle(bundle_path or DEMO_BUNDLE)
    script = bundle_script(bundle)
    prompts = script_prompts(script) if script is not None else []
    if not prompts:
        raise ValueError(f"{bundle.source_name}: the demo needs a scripted provider with prompts")
    workspace = Path(tempfile.mkdtemp(prefix="amplifier-hooks-demo-"))
    try:
        _seed(workspace)
        repository = await asyncio.to_thread(_make_repository, workspace)
        display = ConsoleDisplay(console)
        approvals = TerminalApprovalSystem(
            policy="deny",
            interactive=False,
            console=console,
            policy_source="the demo's policy (deny)",
        )
        session = AgentSession(
            bundle,
            workspace=workspace,
            approval_system=approvals,
            display_system=display,
            session_id=f"demo-{int(time.time())}",
        )
        view = SessionView(console, trace=True, blocks=True)
        view.attach(session)
        audit = ApprovalAudit(console, _audit_path(bundle, session))
        forget_audit = audit.attach(session)
        console.rule(f"[bold]amplifier-hooks demo[/]: session {session.session_id}", align="left")
        console.print(f"workspace {escape(str(workspace))} ({escape(repository)})", highlight=False)
        console.print(
            "approvals: nobody is asked; the demo answers every approval request with its "
            "fixed policy, deny",
            highlight=False,
        )
        failed = 0
        mounted: list[str] = []
        try:
            async with session:
                wanted = {entry.module for entry in bundle.hooks}
                hooks = [m for m in session.loader.mounted if m.id in wanted]
                mounted = [m.id for m in hooks]
                listed = ", ".join(
                    f"{m.id} ({m.spec.origin.removeprefix('distribution ')})" for m in hooks
                )
                console.print(f"mounted: {escape(listed) or 'no hook module'}", highlight=False)
                for number, prompt in enumerate(prompts, 1):
                    view.turn(number, prompt)
                    outcome = await session.run(prompt)
                    if outcome.status in ("error", "incomplete"):
                        failed += 1
                        console.print(
                            f"[red]turn {number} {outcome.status}[/]: "
                            f"{escape(str(outcome.error or outcome.reason))}"
                        )
        finally:
            forget_audit()
            view.detach()
        print_report(
            console,
            session=session,
            view=view,
            display=display,
            approvals=approvals,
            audit=audit,
            mounted=mounted,
        )
        total = sum(view.events.values())
        console.print(
            f"\n[bold]{total}[/] events fired in {len(prompts)} turns; "
            f"demo finished in {time.perf_counter() - started:.2f} s",
            highlight=False,
        )
        if keep:
            console.print(f"workspace kept: {escape(str(workspace))}", highlight=False)
        return 1 if failed else 0
    finally:
        if not keep:
            shutil.rmtree(workspace, ignore_errors=True)
