"""hook-shell's example hooks: outcomes through hook-shell's own bridge and through ours.

    python bench/hook_shell_parity.py [HOOK_SHELL_CHECKOUT] [--only NAME] [--json PATH]

``HOOK_SHELL_CHECKOUT`` (else ``$HOOK_SHELL_DIR``) is a checkout of
microsoft/amplifier-module-hook-shell; with neither, the script says it is skipped and exits 0.
Its example hooks are the directories of ``examples/hooks/`` and ``tests/hooks/`` (9:
auto-formatter, bash-validator, linter, command-logger, file-guard, js-formatter, js-linter,
python-formatter, python-linter). The cases are the inputs hook-shell's tests, README and
``tests/TEST_RESULTS.md`` give these hooks, widened to every pattern the guards name:
:data:`CASES` (27 ``tool:pre`` / ``tool:post`` events of ``Bash``, ``Write`` and ``Edit``).

An *outcome* is one case run in a fresh project with one installation; the installations are
each example alone (9 x 27 = 243 outcomes) and all 9 together (27 more, reported apart). Each
outcome compares: the action, the reason, the injected context, the message to the user, the
lines of ``.amplifier/command-log.jsonl`` (timestamps removed) and the case's file afterwards.

hook-shell's side runs its ``ShellHookBridge`` in an environment of its own
(``bench/.peers/hook-shell``: amplifier-core 2.0.2 from PyPI and the checkout, as its tests
run it; created on first use) by ``bench/_hook_shell_peer.py``. Our side mounts
hooks-declarative on this checkout's kernel in a trusted project and emits the same events.
Both get the same ``PATH``: the system's plus a directory holding only this environment's
``ruff`` (what the Python formatter and linter call); ``npx`` runs offline.

Prints ``N of M outcomes as hook-shell's`` and each difference, then the same count on what
the agent and the project see: the action, whether a deny gives a reason, the injected context
and the side effects, leaving out the deny reason's wording and the messages to the user.
hook-shell files speak hooks-declarative's ``hook-shell`` protocol, which words and shows
these as hook-shell does (it names the hook only in the result's ``source`` and its log).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

try:
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_declarative import mount
    from amplifier_module_hooks_declarative.trust import trust_project
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(f"{err}: install the kernel and the module first (pip install -e core -e modules/*)")

HERE = Path(__file__).resolve().parent
PEER = HERE / ".peers" / "hook-shell"
PEER_SCRIPT = HERE / "_hook_shell_peer.py"
EXAMPLE_ROOTS = ("examples/hooks", "tests/hooks")
LOG = ".amplifier/command-log.jsonl"

UNFORMATTED = 'import os\ndef foo( x,y ):return x+y\nprint("hello")\n'
CLEAN = "def foo(x, y):\n    return x + y\n"
JS = "const a = 1\nfunction f( x ){return x}\n"


def _case(
    event: str, tool: str, field: str, value: str, content: str | None = None
) -> dict[str, Any]:
    return {"event": event, "tool": tool, "field": field, "value": value, "content": content}


CASES: tuple[dict[str, Any], ...] = (
    # bash-validator's four patterns and commands it lets through (README, TEST_RESULTS D)
    *(
        _case("tool:pre", "Bash", "command", command)
        for command in (
            "rm -rf /",
            "dd if=/dev/zero of=disk.img",
            "mkfs.ext4 /dev/sdb1",
            ":(){ :|:& };:",
            "echo hello",
            "ls -la",
            "git status",
            "rm -rf ./build",
        )
    ),
    # file-guard's protected patterns and an ordinary file (TEST_RESULTS C)
    *(
        _case("tool:pre", "Write", "file_path", path)
        for path in (
            ".env",
            "secrets.yaml",
            "normal.txt",
            "/etc/passwd",
            "config/.env.local",
            "deploy/credentials.json",
            "certs/server.pem",
            "home/.ssh/id_rsa",
            "src/app.py",
        )
    ),
    _case("tool:pre", "Edit", "file_path", "src/app.py"),
    _case("tool:pre", "Edit", "file_path", ".env"),
    # the formatters and linters after a write or an edit (TEST_RESULTS A, B)
    _case("tool:post", "Write", "file_path", "bad.py", UNFORMATTED),
    _case("tool:post", "Write", "file_path", "clean.py", CLEAN),
    _case("tool:post", "Write", "file_path", "app.js", JS),
    _case("tool:post", "Write", "file_path", "notes.txt", "some notes\n"),
    _case("tool:post", "Write", "file_path", "missing.py"),
    _case("tool:post", "Edit", "file_path", "bad.py", UNFORMATTED),
    # command-logger's post-execution line (TEST_RESULTS E)
    _case("tool:post", "Bash", "command", "ls -la"),
    _case("tool:post", "Bash", "command", "echo hello"),
)


def _examples(checkout: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in EXAMPLE_ROOTS:
        for directory in sorted((checkout / root).iterdir()):
            if (directory / "hooks.json").is_file():
                found[directory.name] = directory
    return found


def _peer_python(checkout: Path) -> Path:
    python = PEER / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEER)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "amplifier-core==2.0.2"], check=True)
        # its pyproject names amplifier-core by git URL; 2.0.2 from PyPI stands for it
        subprocess.run([*pip, "--no-deps", str(checkout)], check=True)
    return python


def _environment(scratch: Path) -> dict[str, str]:
    tools = scratch / "tools"
    tools.mkdir()
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if Path(ruff).exists():
        (tools / "ruff").symlink_to(ruff)
    env = dict(os.environ)
    env["PATH"] = f"{tools}{os.pathsep}/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin"
    env["npm_config_offline"] = "true"
    env["AMPLIFIER_HOME"] = str(scratch / "home")
    env.pop("VIRTUAL_ENV", None)
    return env


def _install(
    project: Path, examples: dict[str, Path], names: list[str], case: dict[str, Any]
) -> None:
    hooks = project / ".amplifier" / "hooks"
    hooks.mkdir(parents=True)
    for name in names:  # as hook-shell's README says: cp -r, chmod +x
        shutil.copytree(examples[name], hooks / name)
        for script in (hooks / name).iterdir():
            if script.suffix in (".sh", ".py"):
                script.chmod(0o755)
    if case["content"] is not None:
        target = project / case["value"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(case["content"])


def _data(project: Path, case: dict[str, Any]) -> dict[str, Any]:
    value = case["value"]
    if case["field"] == "file_path" and not value.startswith("/"):
        value = str(project / value)
    tool_input = {case["field"]: value}
    if case["tool"] == "Write":
        tool_input["content"] = case["content"] or ""
    # hook-shell reads ``name`` / ``input`` / ``result``; the kernel's events carry
    # ``tool_name`` / ``tool_input`` / ``tool_result``: both, so each side reads its own
    data: dict[str, Any] = {
        "session_id": "parity",
        "tool_name": case["tool"],
        "tool_input": tool_input,
        "name": case["tool"],
        "input": tool_input,
    }
    if case["event"] == "tool:post":
        result = {"success": True, "output": "total 0" if case["tool"] == "Bash" else "ok"}
        data["result"] = result
        data["tool_result"] = result
    return data


_STAMP = re.compile(r'"timestamp": "[^"]*"')


def _effects(project: Path, case: dict[str, Any]) -> dict[str, Any]:
    log = project / LOG
    lines = (
        [_STAMP.sub('"timestamp": "T"', line) for line in log.read_text().splitlines()]
        if log.exists()
        else []
    )
    target = project / case["value"] if case["field"] == "file_path" else None
    content = target.read_text() if target is not None and target.is_file() else None
    return {"log": lines, "file": content}


def _layouts(examples: dict[str, Path], only: str | None) -> list[tuple[str, list[str]]]:
    names = [only] if only else sorted(examples)
    layouts = [(name, [name]) for name in names]
    if not only:
        layouts.append(("all together", sorted(examples)))
    return layouts


def _prepare(
    scratch: Path, side: str, examples: dict[str, Path], layouts: list[tuple[str, list[str]]]
) -> list[dict[str, Any]]:
    jobs = []
    for layout, names in layouts:
        for index, case in enumerate(CASES):
            project = (scratch / side / layout.replace(" ", "-") / f"case-{index:02d}").resolve()
            project.mkdir(parents=True)
            _install(project, examples, names, case)
            jobs.append(
                {
                    "layout": layout,
                    "case": index,
                    "project": str(project),
                    "events": [[case["event"], _data(project, case)]],
                }
            )
    return jobs


def _theirs(
    python: Path, jobs: list[dict[str, Any]], scratch: Path, env: dict[str, str]
) -> list[dict[str, Any]]:
    request, answer = scratch / "jobs.json", scratch / "theirs.json"
    request.write_text(json.dumps(jobs))
    subprocess.run([str(python), str(PEER_SCRIPT), str(request), str(answer)], env=env, check=True)
    return [results[0] for results in json.loads(answer.read_text())]


async def _ours(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for job in jobs:
        project = Path(job["project"])
        trust_project(project)
        coordinator = create_test_coordinator()
        coordinator.register_capability("session.working_dir", str(project))
        cleanup = await mount(coordinator, {"include_user": False})
        try:
            event, data = job["events"][0]
            result = await coordinator.hooks.emit(event, data)
        finally:
            await cleanup()
        found.append(
            {
                name: getattr(result, name, None) if result is not None else None
                for name in ("action", "reason", "context_injection", "user_message")
            }
        )
    return found


def _outcome(result: dict[str, Any], project: Path, case: dict[str, Any]) -> dict[str, Any]:
    action = result.get("action") or "continue"
    return {
        "action": action,
        "reason": result.get("reason") if action == "deny" else None,
        "context": result.get("context_injection"),
        "user_message": result.get("user_message"),
        **_effects(project, case),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?")
    parser.add_argument("--only", help="one example directory's name")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    given = args.checkout or (Path(raw) if (raw := os.environ.get("HOOK_SHELL_DIR")) else None)
    if given is None:
        print("hook_shell_parity: skipped (give a hook-shell checkout or HOOK_SHELL_DIR)")
        return 0
    checkout = given.resolve()
    examples = _examples(checkout)
    python = _peer_python(checkout)
    layouts = _layouts(examples, args.only)
    with tempfile.TemporaryDirectory(prefix="hook-shell-parity-") as raw:
        scratch = Path(raw)
        env = _environment(scratch)
        theirs_jobs = _prepare(scratch, "theirs", examples, layouts)
        ours_jobs = _prepare(scratch, "ours", examples, layouts)
        theirs = _theirs(python, theirs_jobs, scratch, env)
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)
        try:
            ours = asyncio.run(_ours(ours_jobs))
        finally:
            os.environ.clear()
            os.environ.update(saved)
        tally: dict[str, list[int]] = {"alone": [0, 0], "together": [0, 0]}
        effect: dict[str, int] = {"alone": 0, "together": 0}
        differences = []
        for job_t, job_o, res_t, res_o in zip(theirs_jobs, ours_jobs, theirs, ours, strict=True):
            case = CASES[job_t["case"]]
            want = _outcome(res_t, Path(job_t["project"]), case)
            got = _outcome(res_o, Path(job_o["project"]), case)
            # file paths and logged paths name each side's own project directory
            got_text = json.dumps(got).replace(job_o["project"], "<project>")
            want_text = json.dumps(want).replace(job_t["project"], "<project>")
            kind = "together" if job_t["layout"] == "all together" else "alone"
            tally[kind][1] += 1
            if got_text == want_text:
                tally[kind][0] += 1
                continue
            got, want = json.loads(got_text), json.loads(want_text)
            fields = {k: {"hook-shell": want[k], "ours": got[k]} for k in want if want[k] != got[k]}
            if set(fields) <= {"reason", "user_message"} and bool(got["reason"]) == bool(
                want["reason"]
            ):
                effect[kind] += 1
            differences.append(
                {
                    "layout": job_t["layout"],
                    "case": f"{case['event']} {case['tool']} {case['value']}",
                    "differs": fields,
                }
            )
    same, total = tally["alone"]
    print(f"{same} of {total} outcomes as hook-shell's (each example alone x {len(CASES)} cases)")
    if tally["together"][1]:
        same_t, total_t = tally["together"]
        print(
            f"{same_t} of {total_t} outcomes as hook-shell's"
            f" (all {len(examples)} examples together)"
        )
    print(
        f"{same + effect['alone']} of {total}"
        f" (together: {tally['together'][0] + effect['together']} of {tally['together'][1]})"
        f" on action, context and side effects, reason and user"
        " messages left out"
    )
    for difference in differences:
        print(f"- [{difference['layout']}] {difference['case']}")
        for field, values in difference["differs"].items():
            print(f"    {field}: hook-shell {values['hook-shell']!r}")
            print(f"    {' ' * len(field)}  ours       {values['ours']!r}")
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"tally": tally, "effects_only_extra": effect, "differences": differences}, indent=1
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
