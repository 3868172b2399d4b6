"""``amplifier-hooks run``: an agent session, one turn per ``--prompt``, shown as it runs."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from amplifier_hooks_bundle import Bundle, load_bundle
from rich.markup import escape

from amplifier_core.errors import ModuleLoadError
from amplifier_core.loader import ModuleFailure

from .. import output
from ..load_advice import load_advice
from ..scripts import bundle_script, script_prompts, scripted_provider

__all__ = ["run"]


@click.command(short_help="Run an agent session, one turn per --prompt.")
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    help="Bundle file (YAML, or Markdown with YAML front matter). Without it: no hook module.",
)
@click.option(
    "--prompt",
    "prompts",
    multiple=True,
    help="A user turn; repeat for several turns. Default: the script file's `prompts:`.",
)
@click.option(
    "--script",
    "script_path",
    type=click.Path(path_type=Path),
    help="Scripted provider script (YAML or JSON, docs/scripted-provider.md); it replaces "
    "the bundle's provider.",
)
@click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="Where tools run and files are read and written (created if missing, as a new "
    "git repository).",
)
@click.option("--approve", is_flag=True, help="Grant every approval request, without asking.")
@click.option("--deny", is_flag=True, help="Deny every approval request, without asking.")
@click.option(
    "--ask",
    is_flag=True,
    help="Ask in the terminal (the default); without a terminal or with CI set: deny.",
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Continue the conversation saved in this checkpoint file.",
)
@click.option("--trace", is_flag=True, help="Show every hook action as it happens.")
@click.option("--session-id", help="The session id (default: a new UUID, or the checkpoint's).")
@output.friendly
def run(
    bundle_path: Path | None,
    prompts: tuple[str, ...],
    script_path: Path | None,
    workspace: Path,
    approve: bool,
    deny: bool,
    ask: bool,
    resume_path: Path | None,
    trace: bool,
    session_id: str | None,
) -> None:
    """Run an agent session: each --prompt is one turn.

    The model is the bundle's provider (`providers:`), or the scripted provider replaying
    --script. Tool calls run in --workspace. Approval requests from hooks are asked in the
    terminal (--ask), or answered by --approve / --deny.
    """
    chosen = [name for name, on in (("--approve", approve), ("--deny", deny), ("--ask", ask)) if on]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)}: choose one approval policy")
    bundle = load_bundle(bundle_path) if bundle_path is not None else Bundle()
    script = script_path or bundle_script(bundle)
    turns = list(prompts) or (script_prompts(script) if script is not None else [])
    if not turns:
        raise click.UsageError(
            "no prompt: pass --prompt TEXT (repeat it for several turns), "
            "or put `prompts:` in the script file"
        )
    if script_path is None and not bundle.providers:
        where = f" under `providers:` in {bundle_path}" if bundle_path else " in a bundle"
        raise click.UsageError(
            f"no model to talk to: pass --script FILE (a scripted provider), or configure a "
            f"provider{where}"
        )
    if bundle_path is not None:  # validate's checks, located in the file, before anything
        from .validate import missing_module_problems, static_problems

        sections = (
            ("tools", "hooks") if script_path is not None else ("providers", "tools", "hooks")
        )
        missing = missing_module_problems(bundle, bundle_path, sections)
        if missing:
            output.fail(
                *missing,
                "the session stopped before its first turn, and nothing was created: every "
                "module a bundle names must be installed (`amplifier-hooks modules` lists "
                "those that are)",
            )
        problems = static_problems(bundle, bundle_path, sections)
        if problems:
            output.fail(
                *problems,
                "the session stopped before its first turn: the bundle's config has the "
                f"mistakes above (`amplifier-hooks validate {bundle_path}` checks it)",
            )
    if script_path is not None:
        bundle = scripted_provider(bundle, script_path)
    if not workspace.exists():  # a new workspace is what an agent expects: a git repository
        from ..demo import new_repository

        workspace.mkdir(parents=True)
        state = new_repository(workspace)
        output.stdout().print(f"[dim]created workspace {escape(str(workspace))} ({state})[/]")
    plan = _RunPlan(
        bundle=bundle,
        bundle_path=bundle_path,
        prompts=turns,
        workspace=workspace,
        policy="approve" if approve else "deny" if deny else "ask",
        resume_path=resume_path,
        trace=trace,
        session_id=session_id,
    )
    try:
        code = asyncio.run(_run_session(plan))
    except _StoppedBeforeFirstTurn as stopped:
        output.fail(
            f"session {stopped.session_id} stopped before its first turn: a module the bundle "
            "names failed to load",
            *stopped.lines,
            stopped.advice,
        )
    sys.exit(code)


class _StoppedBeforeFirstTurn(Exception):
    """Modules the bundle names failed to mount: each failure located in the bundle file, and
    what to do about them."""

    def __init__(self, session_id: str, lines: list[str], advice: str) -> None:
        super().__init__("; ".join(lines))
        self.session_id = session_id
        self.lines = lines
        self.advice = advice


@dataclass(frozen=True, slots=True)
class _RunPlan:
    """What ``run`` was asked to do, checked before the session starts."""

    bundle: Bundle
    bundle_path: Path | None
    prompts: list[str]
    workspace: Path
    policy: str
    resume_path: Path | None
    trace: bool
    session_id: str | None


async def _run_session(plan: _RunPlan) -> int:
    from ..demo_view import ConsoleDisplay, SessionView
    from ..session import AgentSession
    from ..terminal_approval import TerminalApprovalSystem

    console = output.stdout()
    approvals = TerminalApprovalSystem(
        policy="allow" if plan.policy == "approve" else "deny",
        interactive=None if plan.policy == "ask" else False,
        console=output.stderr(),
        policy_source=(
            f"the command line's --{plan.policy} policy"
            if plan.policy != "ask"
            else "the command line's policy for a run without a terminal (deny)"
        ),
    )
    view = SessionView(console, trace=plan.trace)
    options: dict[str, Any] = {
        "workspace": plan.workspace,
        "approval_system": approvals,
        "display_system": ConsoleDisplay(console),
    }
    if plan.session_id is not None:
        options["session_id"] = plan.session_id
    if plan.resume_path is not None:
        session = await AgentSession.resume(plan.resume_path, plan.bundle, start=False, **options)
    else:
        session = AgentSession(plan.bundle, **options)
    view.attach(session)
    # What the session shows passes the redaction its log and requests pass, once mounted.
    output.show_through(_ShownRedaction(session.coordinator))
    code = 0
    try:
        try:
            await session.start()
        except ModuleLoadError as err:
            located = _located_failures(plan, session.loader.failures)
            if not located:
                raise
            advice = load_advice(session.loader.failures, plan.workspace, plan.bundle_path)
            raise _StoppedBeforeFirstTurn(session.session_id, located, advice) from err
        if plan.resume_path is not None:
            console.print(
                f"[dim]resumed session {escape(session.session_id)} after turn "
                f"{session.turns} from {escape(str(plan.resume_path))}[/]"
            )
        for prompt in plan.prompts:
            view.turn(session.turns + 1, prompt)
            started = time.perf_counter()
            outcome = await session.run(prompt)
            tokens = outcome.usage["input_tokens"] + outcome.usage["output_tokens"]
            colour = {"completed": "green", "denied": "yellow"}.get(outcome.status, "red")
            detail = outcome.reason or (outcome.error or {}).get("message") or ""
            console.print(
                f"[{colour}]turn {session.turns} {outcome.status}[/] [dim]· "
                f"{outcome.iterations} model call(s) · {tokens} tokens · "
                f"{time.perf_counter() - started:.2f} s[/]"
                + (f": {escape(str(detail))}" if detail else ""),
                highlight=False,
            )
            if outcome.status in ("error", "incomplete"):
                code = 1
            if outcome.status == "cancelled":
                code = 130
                break
    except (asyncio.CancelledError, KeyboardInterrupt):
        await session.close("cancelled")
        raise
    except BaseException as err:
        await session.close("failed", err)
        raise
    else:
        await session.close()
    finally:
        view.detach()
        output.show_through(None)
    if view.checkpoints:
        last = view.checkpoints[-1]
        console.print(
            f"[dim]checkpoint saved; continue with --resume {escape(last)}[/]", soft_wrap=True
        )
    return code


class _ShownRedaction:
    """The redaction a module mounted on ``coordinator`` offers for what is shown
    (:data:`output.SHOWN_CAPABILITY`), looked up at each text: from the moment it is
    mounted, the session's own start included."""

    def __init__(self, coordinator: Any) -> None:
        self._coordinator = coordinator

    def __call__(self, text: str) -> str:
        get = getattr(self._coordinator, "get_capability", None)
        redact = get(output.SHOWN_CAPABILITY) if callable(get) else None
        return redact(text) if callable(redact) else text


def _located_failures(plan: _RunPlan, failures: Sequence[ModuleFailure]) -> list[str]:
    """Each failure of a module the bundle names (and needs), located in the bundle file as
    ``validate`` locates it; empty when there is no bundle file or only missing modules (the
    session's own message names the ``pip install`` command for those)."""
    from .validate import failure_text, located_failure

    if plan.bundle_path is None:
        return []
    bundle = plan.bundle
    optional = {
        entry.module
        for section in (bundle.providers, bundle.tools, bundle.hooks)
        for entry in section
        if entry.optional
    }
    lines: list[str] = []
    for failure in failures:
        if failure.module_id in optional or failure.stage == "resolve":
            continue
        text = failure_text(failure.module_id, failure.stage, failure.cause, failure.location)
        lines.append(located_failure(bundle, plan.bundle_path, failure.module_id, text))
    return lines
