"""Command hook cost: ``CommandRunner.run`` versus a bare subprocess of the same script.

    python bench/command_hook.py [--runs 400] [--warmup 30] [--protocol NAME ...] [--json PATH]
                                 [--sandbox-runs 100] [--check]

For each hook protocol (``amplifier``, ``claude-code``, ``gemini``, ``cursor``: every format
whose scripts run unchanged), the script is a tiny ``/bin/sh`` hook that reads its stdin and
echoes that format's allow answer. Both sides run it through ``/bin/sh -c`` with the same stdin
bytes (the protocol's event object for a ``PreToolUse`` of ``bash``):

* **bare**: ``asyncio.create_subprocess_exec`` with three pipes, then ``communicate(stdin)``;
  nothing else (no timeout, no cap, no process group, no parsing);
* **hook**: ``CommandRunner.run(ctx)``: build the stdin object and the environment, spawn in a
  new process group, feed stdin, read both streams under the output cap and the timeout, and
  turn stdout into a ``Decision`` (checked to be ``allow``).

Runs alternate (bare first on even runs, hook first on odd ones) so that drift of the machine
hits both alike. Prints each side's median and p90 in microseconds, the difference of the
medians, and the median of the paired differences: the cost a command hook adds over the
process spawn itself, per protocol. The target is under 1 ms (``--check`` exits 1 when any
protocol misses it).

Then, when ``bwrap`` is installed (``--sandbox-runs 0`` skips it), the sandbox overhead: the
same ``amplifier`` hook with ``sandbox: true`` (bubblewrap: new PID, network, IPC and UTS
namespaces, read-only root, private ``/tmp``), against the bare spawn and against the same hook
uncontained, three sides alternating in rotation. The target is at most 10 ms over the bare
spawn (``--check`` exits 1 past it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from amplifier_hooks_util.git_config import RACY_NS

try:
    from amplifier_module_hooks_declarative.protocols import command_protocol, protocol_names
    from amplifier_module_hooks_declarative.runners.command import CommandRunner, encode
    from amplifier_module_hooks_declarative.specs import CommandHookSpec
    from amplifier_module_hooks_declarative.types import HookContext
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e modules/hooks-declarative"
    )

#: Each protocol's answer that allows the call.
ALLOW_ANSWERS: dict[str, str] = {
    "amplifier": '{"action": "allow"}',
    "claude-code": '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
    '"permissionDecision": "allow"}}',
    "gemini": '{"decision": "allow"}',
    "cursor": '{"permission": "allow"}',
}
TARGET_US = 1000.0
SANDBOX_TARGET_US = 10_000.0


def _script(answer: str) -> str:
    return f"#!/bin/sh\ncat > /dev/null\necho '{answer}'\n"


def _context(project_dir: str) -> HookContext:
    args = {"command": "git status --short", "description": "show changed files"}
    return HookContext(
        event="tool:pre",
        alias="PreToolUse",
        data={
            "tool_name": "bash",
            "tool_input": args,
            "tool": "bash",
            "input": args,
            "tool_call_id": "call_bench",
            "session_id": "bench-session",
            "timestamp": "2024-01-15T10:30:00.000+00:00",
        },
        session_id="bench-session",
        project_dir=project_dir,
        tool="bash",
        args=args,
        timestamp="2024-01-15T10:30:00.000+00:00",
    )


async def _bare(command: str, stdin: bytes, cwd: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    out, _ = await proc.communicate(stdin)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or b'"allow"' not in out:
        raise RuntimeError(f"bare run failed: exit {proc.returncode}, stdout {out!r}")
    return elapsed


async def _hook(runner: CommandRunner, ctx: HookContext) -> float:
    started = time.perf_counter()
    decision = await runner.run(ctx)
    elapsed = time.perf_counter() - started
    if decision.action != "allow":
        raise RuntimeError(f"hook run did not allow: {decision}")
    return elapsed


def _us(seconds: float) -> float:
    return seconds * 1e6


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def _repository(workdir: str) -> None:
    """``workdir`` as a git repository with a tracked ``.gitconfig`` its config includes: the
    hook's git overrides (``amplifier_hooks_util.git_config``) list it, then reuse the listing
    once its files are older than the racy window."""
    subprocess.run(["git", "init", "-q", workdir], check=True)
    Path(workdir, ".gitconfig").write_text("[user]\n\tname = bench\n")
    subprocess.run(["git", "-C", workdir, "config", "include.path", "../.gitconfig"], check=True)
    time.sleep(RACY_NS / 1e9 + 0.1)


async def measure(
    protocol: str, runs: int, warmup: int, *, repository: bool = False
) -> dict[str, Any]:
    """Both sides, ``runs`` times each, for one protocol; ``repository``: in a git repository."""
    with tempfile.TemporaryDirectory(prefix="command-hook-bench-") as workdir:
        if repository:
            _repository(workdir)
        script = Path(workdir) / "allow.sh"
        script.write_text(_script(ALLOW_ANSWERS[protocol]))
        script.chmod(0o755)
        command = f"sh {script}"
        ctx = _context(workdir)
        stdin = encode(command_protocol(protocol).stdin(ctx, workdir))
        env = {**os.environ, **command_protocol(protocol).environment(ctx, workdir)}
        spec = CommandHookSpec(
            type="command",
            command=command,
            timeout_ms=10_000,
            protocol=protocol,  # one of protocol_names()
        )
        runner = CommandRunner(spec, label="bench PreToolUse[0]", project_dir=workdir)

        for _ in range(warmup):
            await _bare(command, stdin, workdir, env)
            await _hook(runner, ctx)
        bare: list[float] = []
        hook: list[float] = []
        for n in range(runs):
            if n % 2 == 0:
                bare.append(await _bare(command, stdin, workdir, env))
                hook.append(await _hook(runner, ctx))
            else:
                hook.append(await _hook(runner, ctx))
                bare.append(await _bare(command, stdin, workdir, env))

    paired = [h - b for h, b in zip(hook, bare, strict=True)]
    bare_median, hook_median = statistics.median(bare), statistics.median(hook)
    return {
        "protocol": protocol,
        "runs": runs,
        "stdin_bytes": len(stdin),
        "bare_median_us": _us(bare_median),
        "bare_p90_us": _us(_p90(bare)),
        "hook_median_us": _us(hook_median),
        "hook_p90_us": _us(_p90(hook)),
        "added_median_us": _us(hook_median - bare_median),
        "added_paired_median_us": _us(statistics.median(paired)),
        "samples_us": {"bare": [_us(v) for v in bare], "hook": [_us(v) for v in hook]},
    }


async def measure_sandbox(runs: int, warmup: int) -> dict[str, Any]:
    """The ``amplifier`` hook contained, uncontained and a bare spawn, ``runs`` times each."""
    with tempfile.TemporaryDirectory(prefix="command-hook-bench-") as workdir:
        script = Path(workdir) / "allow.sh"
        script.write_text(_script(ALLOW_ANSWERS["amplifier"]))
        script.chmod(0o755)
        command = f"sh {script}"
        ctx = _context(workdir)
        stdin = encode(command_protocol("amplifier").stdin(ctx, workdir))
        env = dict(os.environ)
        plain_spec = CommandHookSpec(type="command", command=command, timeout_ms=10_000)
        plain = CommandRunner(plain_spec, label="bench PreToolUse[0]", project_dir=workdir)
        contained = CommandRunner(
            plain_spec.model_copy(update={"sandbox": True}),
            label="bench PreToolUse[0]",
            project_dir=workdir,
        )
        sides = {
            "bare": lambda: _bare(command, stdin, workdir, env),
            "hook": lambda: _hook(plain, ctx),
            "sandbox": lambda: _hook(contained, ctx),
        }
        order = list(sides)
        for _ in range(warmup):
            for name in order:
                await sides[name]()
        times: dict[str, list[float]] = {name: [] for name in order}
        for n in range(runs):
            rotated = order[n % 3 :] + order[: n % 3]
            for name in rotated:
                times[name].append(await sides[name]())
    medians = {name: statistics.median(values) for name, values in times.items()}
    over_bare = [c - b for c, b in zip(times["sandbox"], times["bare"], strict=True)]
    over_hook = [c - h for c, h in zip(times["sandbox"], times["hook"], strict=True)]
    return {
        "runs": runs,
        **{f"{name}_median_us": _us(value) for name, value in medians.items()},
        **{f"{name}_p90_us": _us(_p90(values)) for name, values in times.items()},
        "over_bare_median_us": _us(medians["sandbox"] - medians["bare"]),
        "over_bare_paired_median_us": _us(statistics.median(over_bare)),
        "over_hook_paired_median_us": _us(statistics.median(over_hook)),
    }


def sandbox_report(result: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"sandboxed command hook (bubblewrap): {result['runs']} runs each",
            f"  bare spawn       median {result['bare_median_us']:>7.0f} us  "
            f"p90 {result['bare_p90_us']:>7.0f} us",
            f"  hook             median {result['hook_median_us']:>7.0f} us  "
            f"p90 {result['hook_p90_us']:>7.0f} us",
            f"  sandboxed hook   median {result['sandbox_median_us']:>7.0f} us  "
            f"p90 {result['sandbox_p90_us']:>7.0f} us",
            f"  over the bare spawn: {result['over_bare_median_us']:.0f} us (medians), "
            f"{result['over_bare_paired_median_us']:.0f} us (paired); over the same hook "
            f"uncontained: {result['over_hook_paired_median_us']:.0f} us (paired)",
            f"  target: at most {SANDBOX_TARGET_US:.0f} us over the bare spawn",
        ]
    )


def report(results: list[dict[str, Any]]) -> str:
    first = results[0]
    lines = [
        f"command hook vs bare subprocess: {first['runs']} runs each, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs",
        "",
        f"{'protocol':12} {'stdin B':>8} {'bare med':>9} {'bare p90':>9} {'hook med':>9} "
        f"{'hook p90':>9} {'added':>7} {'paired':>7}  (us)",
    ]
    for r in results:
        lines.append(
            f"{r['protocol']:12} {r['stdin_bytes']:>8} {r['bare_median_us']:>9.0f} "
            f"{r['bare_p90_us']:>9.0f} {r['hook_median_us']:>9.0f} {r['hook_p90_us']:>9.0f} "
            f"{r['added_median_us']:>7.0f} {r['added_paired_median_us']:>7.0f}"
        )
    lines += [
        "",
        "added: difference of the medians; paired: median of the paired differences",
        f"target: under {TARGET_US:.0f} us added, for every protocol",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="timed runs of each side")
    parser.add_argument("--warmup", type=int, default=30, help="untimed runs of each side first")
    parser.add_argument(
        "--protocol",
        action="append",
        choices=sorted(ALLOW_ANSWERS),
        help="measure only this protocol (repeatable; default: all)",
    )
    parser.add_argument(
        "--sandbox-runs",
        type=int,
        default=100,
        help="timed runs of the sandbox comparison (0: skip it; skipped without bwrap)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures and samples here")
    parser.add_argument("--check", action="store_true", help="exit 1 unless under the target")
    parser.add_argument(
        "--repository",
        action="store_true",
        help="run the hooks in a git repository (its configuration is listed for the overrides)",
    )
    options = parser.parse_args(argv)
    if options.runs < 2:
        parser.error("--runs must be at least 2")
    protocols = options.protocol or [p for p in ALLOW_ANSWERS if p in protocol_names()]
    results = [
        asyncio.run(measure(p, options.runs, options.warmup, repository=options.repository))
        for p in protocols
    ]
    print(report(results))
    contained: dict[str, Any] | None = None
    if options.sandbox_runs >= 2 and shutil.which("bwrap") is not None:
        warmup = min(options.warmup, options.sandbox_runs)
        contained = asyncio.run(measure_sandbox(options.sandbox_runs, warmup))
        print()
        print(sandbox_report(contained))
    if options.json is not None:
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps({"hooks": results, "sandbox": contained}, indent=1))
    worst = max(max(r["added_median_us"], r["added_paired_median_us"]) for r in results)
    missed = worst >= TARGET_US or (
        contained is not None and contained["over_bare_paired_median_us"] > SANDBOX_TARGET_US
    )
    return 1 if options.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
