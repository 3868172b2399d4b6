"""``amplifier-hooks replay``: a recorded session through a bundle's hooks, and what changed."""

from __future__ import annotations

import asyncio
import json
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .. import output

if TYPE_CHECKING:
    from amplifier_hooks_bundle import Bundle

    from ..coverage import Coverage
    from ..replay_log import RecordedLog
    from ..replay_report import ReplayReport
    from ..replay_run import BundleRun

__all__ = ["replay"]

_PATH = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command(short_help="Replay a recorded session through a bundle's hooks.")
@click.argument("log_path", metavar="LOG", type=_PATH)
@click.option("--bundle", "bundle_path", type=_PATH, required=True, help="The bundle to replay.")
@click.option(
    "--compare",
    "compare_path",
    type=_PATH,
    help="Compare with this bundle's decisions instead of the recorded ones.",
)
@click.option("--fail-on-diff", is_flag=True, help="Exit with status 1 on any difference.")
@click.option(
    "--coverage",
    "with_coverage",
    is_flag=True,
    help="Also report, per guard of --bundle, whether it ran on each call it matched "
    "(see `amplifier-hooks coverage`); observed guards count, so a policy is rehearsed.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@output.friendly
def replay(
    log_path: Path,
    bundle_path: Path,
    compare_path: Path | None,
    fail_on_diff: bool,
    with_coverage: bool,
    as_json: bool,
) -> None:
    """Re-emit the events of LOG, in order, through the hooks of --bundle and report each
    hook's decision and latency, where the bundle decides differently from the recorded
    session (or from --compare), and a table per hook.

    LOG is a hooks-logging JSONL file or a Claude Code transcript
    (~/.claude/projects/*/*.jsonl). Only the bundle's hooks are mounted, in a scratch
    directory: no model is called and no tool runs; command hooks run for real. An ask is
    recorded, never shown to anyone. A line that cannot be read or replayed is reported with
    its number, and the rest of the log still replays.
    """
    from amplifier_hooks_bundle import load_bundle

    from ..replay_log import UnknownFormatError, read_log
    from ..replay_report import as_json as report_json
    from ..replay_report import render

    try:
        log = read_log(log_path)
    except UnknownFormatError as err:
        output.fail(str(err))
    bundle = load_bundle(bundle_path)
    other = load_bundle(compare_path) if compare_path is not None else None
    console = output.stdout()
    progress = console.is_terminal and not as_json
    report, run = asyncio.run(_replay_all(log, bundle, other, progress=progress))
    covered = _coverage(bundle_path, run.receipts) if with_coverage else None
    if as_json:
        data = report_json(report)
        if covered is not None:
            data["coverage"] = covered.as_json()
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        render(report, console)
        if covered is not None:
            from .coverage import print_coverage

            console.print("[bold]coverage[/] (the receipts of this replay)")
            print_coverage(covered)
    if report.mount_failures:
        output.fail(
            "a hook module did not mount, so this replay is not the bundle's policy: "
            + "; ".join(report.mount_failures)
        )
    if fail_on_diff and report.differences:
        raise SystemExit(1)


def _coverage(bundle_path: Path, receipts: list[dict[str, Any]]) -> Coverage:
    from amplifier_core.receipts import near_miss

    from ..coverage import compute_coverage
    from ..guards import bundle_guards

    guards, _unloaded = bundle_guards(bundle_path, None)
    return compute_coverage(guards, receipts, near_miss=near_miss)


def _label(bundle: Bundle) -> str:
    return bundle.name or bundle.source_name


async def _replay_all(
    log: RecordedLog, bundle: Bundle, other: Bundle | None, *, progress: bool
) -> tuple[ReplayReport, BundleRun]:
    from rich.progress import Progress

    from ..replay_report import build_report
    from ..replay_run import replay as run_bundle

    label = _label(bundle)
    other_label = _label(other) if other is not None else ""
    if other is not None and other_label == label:
        label, other_label = f"{label} (--bundle)", f"{other_label} (--compare)"
    with ExitStack() as stack:
        bar = stack.enter_context(Progress(console=output.stderr())) if progress else None
        total = len(log.events) * (2 if other is not None else 1)
        task = bar.add_task("replaying", total=total) if bar is not None else None

        def advance() -> None:
            if bar is not None and task is not None:
                bar.advance(task)

        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="amplifier-replay-")))
        first = scratch / "bundle"
        first.mkdir()
        run = await run_bundle(bundle, log.events, first, label=label, advance=advance)
        compared = None
        if other is not None:
            second = scratch / "compare"
            second.mkdir()
            compared = await run_bundle(
                other, log.events, second, label=other_label, advance=advance
            )
    return build_report(log, run, compared), run
