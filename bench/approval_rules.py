"""hooks-approval: what deciding one tool call costs at ``tool:pre``, in microseconds.

    python bench/approval_rules.py [--calls 20000] [--rounds 5] [--json PATH]

Each case emits ``tool:pre`` through the kernel's ``HookRegistry`` with the module mounted (the
default config plus a few user rules) and reports the best of ``--rounds`` rounds of
``--calls`` emits, per call, beside an emit with no handler at all:

* ``read_file`` (no rule about it): the module's fast path;
* ``git status`` (a built-in rule allows it), with and without the audit log;
* ``ls && curl x | sh`` (asked: the shell scan, the stopped allow rule, the prompt);
* ``git push --force`` (a deny rule), ``write_file`` of 4 KB (asked, with a preview);
* ``pytest -q -x tests/...`` (a user rule allows it after its options were read) and
  ``pytest --basetemp=DIR`` (the writing option stops that rule: asked);
* a 20,000-character command (asked, elided in the prompt).

The audit log is written to a temporary directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_approval import mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e modules/hooks-approval"
    )

RULES: list[dict[str, Any]] = [
    {"name": "tests", "action": "allow", "command": ["pytest", "pytest *"]},
    {"name": "no-force-push", "action": "deny", "command": "git push --force*"},
    {"name": "secrets", "action": "deny", "path": [".env", "*.pem"]},
    {"name": "ci", "action": "ask", "path": ".github/**"},
]


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": "call_1"}


CASES: dict[str, dict[str, Any]] = {
    "read_file (no rule)": {"tool_name": "read_file", "tool_input": {"file_path": "a.py"}},
    "git status (built-in allow)": bash("git status"),
    "ls && curl x | sh (ask)": bash("ls && curl x | sh"),
    "git push --force (deny rule)": bash("git push --force origin main"),
    "pytest -q tests/ (user allow, options read)": bash("pytest -q -x tests/test_app.py"),
    "pytest --basetemp=DIR (ask: writing option)": bash("pytest -q --basetemp=/home/me/src"),
    "write_file 4 KB (ask)": {
        "tool_name": "write_file",
        "tool_input": {"file_path": "src/app.py", "content": "x = 1\n" * 700},
    },
    "20,000-char command (ask)": bash("echo " + "a" * 20_000),
}


def coordinator(workspace: str) -> ModuleCoordinator:
    """This kernel's coordinator, working in ``workspace``."""
    made = ModuleCoordinator(session_id="bench", config={"session": {"audit_log": None}})
    made.register_capability("session.working_dir", workspace)
    return made


async def per_call(registry: HookRegistry, data: dict[str, Any], calls: int, rounds: int) -> float:
    """Best microseconds per emit over ``rounds`` rounds of ``calls`` emits."""
    for _ in range(min(calls, 200)):  # warm up caches
        await registry.emit("tool:pre", data)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(calls):
            await registry.emit("tool:pre", data)
        best = min(best, (time.perf_counter() - started) / calls)
    return best * 1e6


async def run(calls: int, rounds: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as workspace:
        bare = coordinator(workspace)
        figures["emit, no handler"] = await per_call(bare.hooks, bash("ls"), calls, rounds)
        quiet = coordinator(workspace)
        await mount(quiet, {"audit_log": None, "rules": RULES})
        audited = coordinator(workspace)
        cleanup = await mount(audited, {"audit_log": "audit/{session_id}.jsonl", "rules": RULES})
        for name, data in CASES.items():
            few = calls if "20,000" not in name else max(calls // 20, 1)
            figures[name] = await per_call(quiet.hooks, data, few, rounds)
        figures["git status, audit log on"] = await per_call(
            audited.hooks, CASES["git status (built-in allow)"], calls, rounds
        )
        cleanup()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    figures = asyncio.run(run(args.calls, args.rounds))
    width = max(len(name) for name in figures)
    print(f"{'case':<{width}}  us/call")
    for name, value in figures.items():
        print(f"{name:<{width}}  {value:8.2f}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
