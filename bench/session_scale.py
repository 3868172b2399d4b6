"""What a session costs to start, and a thousand sessions at once in one process.

```sh
.venv/bin/python bench/session_scale.py                        # every part, 1,000 sessions
.venv/bin/python bench/session_scale.py --sessions 200 --json out.json
.venv/bin/python bench/session_scale.py --only startup,cli
```

Three parts, each in fresh processes of this script (``--worker``), so nothing compiled or
imported by one part is already there for the next:

``startup``
    ``AmplifierSession(plan)`` + ``initialize()`` the way Amplifier's application and a server
    embedding the kernel start a session: loop-session, context-simple and every reference
    hook module (hooks-redaction, hooks-logging, hooks-otel with no exporter, hooks-approval,
    hooks-declarative, hooks-python-check, hooks-status-context, hooks-todo-reminder). The
    first session of the process, then ``--later`` more (median), then as many sub-sessions
    (``parent_id`` set: an agent hook, a delegate), and the same plan without hooks (bare),
    each started and cleaned up in turn. Wall time and CPU time (``time.process_time``) of
    ``initialize()``. Importing ``amplifier_core`` comes before and is given apart.
``crowd``
    ``--sessions`` sessions at once (``asyncio.gather``) in one process: loop-session,
    context-simple, hooks-redaction and hooks-logging, a provider answering from a script
    (``--calls`` tool calls, then a text), a tool whose every result holds that session's
    own GitHub token and a marker naming the session and the call. Wall time from the first
    ``AmplifierSession`` to the last cleanup, peak resident memory of the process (``ru_maxrss``),
    then the logs are read: every session's log must hold its ``--calls`` ``tool:post``
    records and its own ``--calls`` markers, no other session's marker, and no log any raw
    token. The same crowd without hooks (bare) runs in another process, for the ratio.
``cli``
    ``amplifier-hooks run`` of ``examples/demo-bundle.yaml`` (a fresh workspace and ``HOME``
    per run): the time from starting the command to its first event (the first record's
    ``ts`` in the session's log, against the clock read just before the command started),
    and the whole command; an interpreter that only starts (``python -c pass``) is the floor.

Every part runs with bytecode: the workspace's sources are compiled first (``compileall``) and
the processes run with bytecode caching on, whatever ``PYTHONDONTWRITEBYTECODE`` says, since an
installed package has its bytecode; compiling the sources again would be most of a first start.

Exit status: 0 after a run, 1 when the crowd lost a record or a token crossed or leaked.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import re
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _report import render_table as table

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo-bundle.yaml"
REFERENCE_HOOKS: dict[str, dict[str, Any]] = {
    "hooks-redaction": {},
    "hooks-logging": {},  # the path is set per run
    "hooks-otel": {"exporter": "none"},
    "hooks-approval": {},
    "hooks-declarative": {"include_user": False, "include_project": False},
    "hooks-python-check": {},
    "hooks-status-context": {},
    "hooks-todo-reminder": {},
}
CROWD_HOOKS = ("hooks-redaction", "hooks-logging")
_TOKEN = re.compile(r"ghp_[A-Za-z0-9]{36}")
_MARK = re.compile(r"mark-(\d+)-(\d+)")


def _plan(workdir: Path, hooks: tuple[str, ...] | list[str]) -> dict[str, Any]:
    entries: list[dict[str, Any]] = []
    for module in hooks:
        config = dict(REFERENCE_HOOKS.get(module, {}))
        if module == "hooks-logging":
            config["path"] = str(workdir / "logs" / "{session_id}.jsonl")
        entries.append({"module": module, "config": config})
    return {
        "session": {
            "orchestrator": {
                "module": "loop-session",
                "config": {"checkpoint_every_turn": False, "working_dir": str(workdir)},
            },
            "context": {"module": "context-simple", "config": {}},
        },
        "providers": [],
        "tools": [],
        "hooks": entries,
    }


# ------------------------------------------------------------------------------ startup


async def _start(
    plan: dict[str, Any], workdir: Path, parent_id: str | None = None
) -> tuple[Any, tuple[float, float]]:
    """A session of ``plan``, initialized, and what its ``initialize()`` took (wall, CPU)."""
    from amplifier_core import AmplifierSession

    session = AmplifierSession(plan, parent_id=parent_id)
    session.coordinator.register_capability("session.working_dir", str(workdir))
    wall = time.perf_counter()
    cpu = time.process_time()
    await session.initialize()
    return session, (time.perf_counter() - wall, time.process_time() - cpu)


async def _startup_worker(later: int) -> dict[str, Any]:
    wall = time.perf_counter()
    cpu = time.process_time()
    import amplifier_core  # noqa: F401

    imported = (time.perf_counter() - wall, time.process_time() - cpu)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        full = _plan(workdir, list(REFERENCE_HOOKS))
        bare = _plan(workdir, [])
        first, first_timing = await _start(full, workdir)
        samples: dict[str, list[tuple[float, float]]] = {"later": [], "sub": [], "bare": []}
        for _ in range(later):
            for kind in ("later", "sub", "bare"):
                session, timing = await _start(
                    bare if kind == "bare" else full,
                    workdir,
                    parent_id=first.session_id if kind == "sub" else None,
                )
                samples[kind].append(timing)
                await session.cleanup()
        await first.cleanup()
    result: dict[str, Any] = {"import": imported, "first": first_timing}
    for kind, values in samples.items():
        result[kind] = (
            statistics.median(v[0] for v in values),
            statistics.median(v[1] for v in values),
        )
    return result


# -------------------------------------------------------------------------------- crowd


class _Provider:
    """Asks for ``calls`` tool calls, one per response, then answers with text."""

    name = "script"

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.served = 0

    async def complete(self, request: Any, **kwargs: Any) -> Any:
        from amplifier_core.message_models import ChatResponse, TextBlock, ToolCall, Usage

        self.served += 1
        usage = Usage(input_tokens=1, output_tokens=1, total_tokens=2)
        if self.served <= self.calls:
            call = ToolCall(id=f"c{self.served}", name="probe", arguments={"n": self.served})
            return ChatResponse(content=[], tool_calls=[call], usage=usage)
        return ChatResponse(content=[TextBlock(text="done")], usage=usage)

    def parse_tool_calls(self, response: Any) -> list[Any]:
        return response.tool_calls or []


class _Tool:
    """Answers with the session's own token and a marker naming the session and the call."""

    name = "probe"
    description = "returns a credential"
    input_schema: dict[str, Any] = {"type": "object"}  # noqa: RUF012

    def __init__(self, number: int, token: str) -> None:
        self.number = number
        self.token = token

    async def execute(self, input: dict[str, Any]) -> Any:
        from amplifier_core import ToolResult

        mark = f"mark-{self.number}-{input.get('n')}"
        return ToolResult(success=True, output=f"{mark} export GITHUB_TOKEN={self.token}")


async def _one(number: int, token: str, calls: int, plan: dict[str, Any], workdir: Path) -> str:
    from amplifier_core import AmplifierSession

    session = AmplifierSession(plan, session_id=f"s{number:05d}")
    session.coordinator.register_capability("session.working_dir", str(workdir))
    await session.initialize()
    provider = _Provider(calls)
    await session.coordinator.mount("providers", provider, name="script")
    await session.coordinator.mount("tools", _Tool(number, token), name="probe")
    answer = await session.execute("go")
    await session.cleanup()
    if answer != "done" or provider.served != calls + 1:
        raise RuntimeError(f"session {number}: the turn did not run as scripted: {answer!r}")
    return session.session_id


def _check_logs(logs: Path, tokens: list[str], calls: int) -> list[str]:
    """What went wrong in the logs: a session's missing records, a marker in another
    session's log, a raw token anywhere."""
    problems: list[str] = []
    for number in range(len(tokens)):
        path = logs / f"s{number:05d}.jsonl"
        if not path.exists():
            problems.append(f"s{number:05d}: no log")
            continue
        text = path.read_text(encoding="utf-8")
        if _TOKEN.search(text):
            problems.append(f"s{number:05d}: a raw token in {path.name}")
        posts = 0
        for line in text.splitlines():
            if json.loads(line).get("event") == "tool:post":
                posts += 1
        if posts != calls:
            problems.append(f"s{number:05d}: {posts} tool:post records, expected {calls}")
        marks = {(int(a), int(b)) for a, b in _MARK.findall(text)}
        foreign = {a for a, _ in marks if a != number}
        if foreign:
            problems.append(f"s{number:05d}: markers of sessions {sorted(foreign)[:5]}")
        if {b for a, b in marks if a == number} != set(range(1, calls + 1)):
            problems.append(f"s{number:05d}: its own markers are incomplete")
    return problems


async def _crowd_worker(sessions: int, calls: int, hooks: bool) -> dict[str, Any]:
    import amplifier_core  # noqa: F401  (imports are not what is measured)

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        plan = _plan(workdir, CROWD_HOOKS if hooks else ())
        tokens = ["ghp_" + secrets.token_hex(18) for _ in range(sessions)]
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        wall = time.perf_counter()
        cpu = time.process_time()
        await asyncio.gather(
            *(_one(n, token, calls, plan, workdir) for n, token in enumerate(tokens))
        )
        elapsed = time.perf_counter() - wall
        used = time.process_time() - cpu
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        problems = _check_logs(workdir / "logs", tokens, calls) if hooks else []
    return {
        "seconds": elapsed,
        "cpu_seconds": used,
        "peak_mb": peak / 1024,
        "rss_before_mb": before / 1024,
        "problems": problems,
    }


# ---------------------------------------------------------------------------------- cli


def _cli_once(command: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        env = {**_ENV, "HOME": str(Path(tmp) / "home"), "NO_COLOR": "1"}
        started = time.time()
        wall = time.perf_counter()
        subprocess.run(
            [*command, "run", "--bundle", str(DEMO), "--workspace", str(workspace)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
            cwd=tmp,
        )
        whole = time.perf_counter() - wall
        logs = sorted((workspace / ".amplifier" / "logs").glob("*.jsonl"))
        if not logs:
            raise RuntimeError("amplifier-hooks run wrote no log")
        first = json.loads(logs[0].read_text(encoding="utf-8").splitlines()[0])
        at = datetime.datetime.fromisoformat(first["ts"]).timestamp()
    return {"first_event": at - started, "whole": whole}


def _floor(python: str, runs: int) -> float:
    samples = []
    for _ in range(runs):
        wall = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        samples.append(time.perf_counter() - wall)
    return statistics.median(samples)


# --------------------------------------------------------------------------------- main


_ENV: dict[str, str] = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The environment of every process this bench starts: bytecode caching on."""


def _compile_sources() -> None:
    """Write the bytecode of every source file of the workspace, as an install does."""
    trees = [str(p) for p in sorted(ROOT.glob("*/src")) + sorted(ROOT.glob("modules/*/src"))]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *trees], check=True, env=_ENV)


def _worker(args: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", *args],
        capture_output=True,
        text=True,
        check=False,
        env=_ENV,
    )
    if done.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{done.stderr[-3000:]}")
    answer: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return answer


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--later", type=int, default=20, help="later sessions to time")
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--only", default="startup,crowd,cli")
    parser.add_argument("--no-bare-crowd", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        kind, *rest = args.worker
        if kind == "startup":
            result = asyncio.run(_startup_worker(int(rest[0])))
        else:
            result = asyncio.run(_crowd_worker(int(rest[0]), int(rest[1]), rest[2] == "hooks"))
        print(json.dumps(result))
        sys.stdout.flush()
        os._exit(0)

    parts = set(args.only.split(","))
    _compile_sources()
    results: dict[str, Any] = {"load": os.getloadavg()}
    failed = False
    if "startup" in parts:
        startup = _worker(["startup", str(args.later)])
        results["startup"] = startup
        bare = startup["bare"]
        rows = [
            [
                label,
                _ms(startup[key][0]),
                _ms(startup[key][1]),
                f"{startup[key][1] / bare[1]:.1f}x" if key != "import" else "",
            ]
            for key, label in (
                ("import", "import amplifier_core"),
                ("first", "first session, every reference hook"),
                ("later", f"later sessions (median of {args.later})"),
                ("sub", f"sub-sessions (median of {args.later})"),
                ("bare", "bare session, no hooks (median)"),
            )
        ]
        print(table(["initialize()", "wall ms", "cpu ms", "cpu / bare"], rows))
        print()
    if "crowd" in parts:
        crowd = _worker(["crowd", str(args.sessions), str(args.calls), "hooks"])
        results["crowd"] = crowd
        rows = [
            [
                f"{args.sessions} sessions x {args.calls} calls, redaction + logging",
                f"{crowd['seconds']:.1f}",
                f"{crowd['cpu_seconds']:.1f}",
                f"{crowd['peak_mb']:.0f}",
            ]
        ]
        if not args.no_bare_crowd:
            bare_crowd = _worker(["crowd", str(args.sessions), str(args.calls), "bare"])
            results["crowd_bare"] = bare_crowd
            rows.append(
                [
                    "the same, no hooks",
                    f"{bare_crowd['seconds']:.1f}",
                    f"{bare_crowd['cpu_seconds']:.1f}",
                    f"{bare_crowd['peak_mb']:.0f}",
                ]
            )
        print(table(["at once in one process", "wall s", "cpu s", "peak MB"], rows))
        if crowd["problems"]:
            failed = True
            print(f"LOST OR CROSSED ({len(crowd['problems'])}):")
            for line in crowd["problems"][:20]:
                print(f"  {line}")
        else:
            print(f"every log complete, no marker crossed, no raw token ({args.sessions} logs)")
        print()
    if "cli" in parts:
        command = [str(Path(sys.executable).parent / "amplifier-hooks")]
        runs = [_cli_once(command) for _ in range(args.cli_runs)]
        floor = _floor(sys.executable, args.cli_runs)
        cli = {
            "first_event": statistics.median(r["first_event"] for r in runs),
            "whole": statistics.median(r["whole"] for r in runs),
            "python_floor": floor,
        }
        results["cli"] = cli
        rows = [
            ["command start to its first event", _ms(cli["first_event"])],
            ["the whole command (two scripted turns)", _ms(cli["whole"])],
            ["python -c pass", _ms(floor)],
        ]
        print(table([f"amplifier-hooks run, demo bundle (median of {args.cli_runs})", "ms"], rows))
        print()
    results["load_after"] = os.getloadavg()
    print(f"load average before {results['load'][0]:.1f}, after {results['load_after'][0]:.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
