"""Run Microsoft's Amplifier application (amplifier-app-cli) offline, step by step, on the kernel
of one virtual environment, and write what each step printed, normalised, as JSON.

    python tests/app/run_app.py --bin VENV/bin --out ours.json [--label ours]

The environment must hold amplifier-app-cli, amplifier-foundation, a kernel (ours through the
drop-in ``amplifier-core`` distribution, or amplifier-core 2.0.2), Amplifier's reference
modules (loop-basic, context-simple, provider-mock, tool-bash), and our hooks-logging,
hooks-redaction and hooks-approval. Everything runs under a temporary ``HOME`` with a settings
file naming provider-mock and a bundle (``bundle.yaml`` below) that mounts the modules and a
small ``read`` tool from ``tests/app/modules``. The three behaviours the application composes
from GitHub fail fast offline (``AMPLIFIER_GIT_CLONE_TIMEOUT_S``).

Steps: ``amplifier version``, ``module list``, ``module show tool-bash``, ``provider list``
(the provider picker lists modules with ``await loader.discover()`` too), ``run`` (provider-mock
asks for ``read``, the tool answers, the hooks fire), the events hooks-logging wrote for it and
the transcript the application saved, ``session list``, ``run --resume``, its events,
``tool list``, ``tool invoke read``; then foundation's ``create_session`` and one turn timed in
process (``timing.py``). Ids, times and paths are replaced by placeholders so that two kernels'
outputs can be compared line by line (``compare_app.py``), after each table's title is put back
on one line (``tables.py``: Rich wraps it with the length of the working directory's path).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from exit_crash import before_exit_crash  # tests/app/exit_crash.py, beside this script
from tables import unwrap_titles  # tests/app/tables.py, beside this script

__all__ = ["Normaliser", "Step", "main", "run_steps"]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TOOL_READ = HERE / "modules" / "amplifier-module-tool-read"
TIMING = HERE / "timing.py"
STEP_TIMEOUT = 600.0
PROMPT = "read the test file"
RESUME_PROMPT = "and now say it in one line"
TEST_TEXT = "hello from the test file\n"

BUNDLE = """\
bundle:
  name: hooks-compat
  version: 0.1.0
  description: Amplifier's reference modules, provider-mock and the amplifier-hooks hook modules
session:
  orchestrator:
    module: loop-basic
  context:
    module: context-simple
  raw: true
providers:
  - module: provider-mock
tools:
  - module: tool-read
    source: {tool_read}
  - module: tool-bash
hooks:
  - module: hooks-logging
  - module: hooks-redaction
  - module: hooks-approval
"""

SETTINGS = """\
config:
  providers:
    - module: provider-mock
      config: {}
"""

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_SHORT_ID = re.compile(r"\b([0-9a-f]{8})(\.\.\.|…)")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_LOCAL_VERSION = re.compile(r"\b2\.0\.2\+hooks\.\d+\b")


class Normaliser:
    """Replaces what differs between two runs of the same scenario: ids (numbered in order of
    first appearance, short ``abcd1234...`` forms included), times, the scratch, environment
    and repository paths, and the drop-in's local version label (checked on its own)."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.ids: dict[str, str] = {}
        pairs: list[tuple[str, str]] = []
        for label, path in paths.items():
            for variant in {str(path), str(path.resolve())}:
                pairs.append((variant, f"<{label}>"))
                # the application's project slug of a directory: /a/b -> -a-b
                pairs.append((variant.replace("/", "-"), f"<{label}-SLUG>"))
        self.paths = sorted(pairs, key=lambda p: -len(p[0]))

    def _id(self, full: str) -> str:
        if full not in self.ids:
            self.ids[full] = f"<ID{len(self.ids) + 1}>"
        return self.ids[full]

    def _short(self, match: re.Match[str]) -> str:
        prefix = match.group(1)
        known = next((f for f in self.ids if f.startswith(prefix)), None)
        return (self.ids[known] if known else self._id(prefix)) + match.group(2)

    def __call__(self, text: str) -> str:
        for raw, placeholder in self.paths:
            text = text.replace(raw, placeholder)
        text = _UUID.sub(lambda m: self._id(m.group(0)), text)
        text = _SHORT_ID.sub(self._short, text)
        text = _TIME.sub("<TIME>", text)
        text = _LOCAL_VERSION.sub("2.0.2", text)
        return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


@dataclass
class Step:
    """One step: what ran, its exit code, its normalised output and how long it took."""

    name: str
    command: str
    rc: int
    output: str
    seconds: float


class Scenario:
    """The scratch directories, the environment and the command line of one kernel's run."""

    def __init__(self, bin_dir: Path, scratch: Path) -> None:
        self.bin = bin_dir
        self.home = scratch / "home"
        self.work = scratch / "work"
        self.home.mkdir(parents=True)
        self.work.mkdir(parents=True)
        (self.home / ".amplifier").mkdir()
        (self.home / ".amplifier" / "settings.yaml").write_text(SETTINGS, encoding="utf-8")
        (self.work / "test.txt").write_text(TEST_TEXT, encoding="utf-8")
        self.bundle = self.work / "bundle.yaml"
        self.bundle.write_text(BUNDLE.format(tool_read=TOOL_READ), encoding="utf-8")
        self.bundle_uri = self.bundle.as_uri()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AMPLIFIER_", "NO_"))}
        env.update(
            HOME=str(self.home),
            PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
            AMPLIFIER_GIT_CLONE_TIMEOUT_S="3",
            COLUMNS="160",
            LINES="50",
            TERM="dumb",
            NO_COLOR="1",
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",
            # our kernel names a hook handler that holds the event loop past a second: on a busy
            # machine that is a line of output the reference (which has no such watch) never
            # prints, and says nothing about what the step does
            AMPLIFIER_SLOW_HANDLER_S="0",
        )
        env.pop("VIRTUAL_ENV", None)
        self.env = env
        self.normalise = Normaliser(
            {
                "WORK": self.work,
                "HOME": self.home,
                "VENV": bin_dir.parent,
                "REPO": REPO,
                "PYTHON": Path(sys.base_prefix),
            }
        )

    def run(self, name: str, *args: str, sort_lines: bool = False) -> Step:
        command = [str(self.bin / "amplifier"), *args]
        started = time.perf_counter()
        try:
            done = subprocess.run(
                command,
                cwd=self.work,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=STEP_TIMEOUT,
                check=False,
            )
            rc, output = done.returncode, done.stdout
        except subprocess.TimeoutExpired as err:
            rc, output = -1, f"{err.output or ''}\n[timed out after {STEP_TIMEOUT:.0f} s]"
        seconds = time.perf_counter() - started
        # a table's title wraps with the length of the paths it holds: compare what it says
        text = self.normalise(unwrap_titles(output))
        if sort_lines:
            text = "\n".join(sorted(text.splitlines()))
        shown = " ".join(["amplifier", *args]).replace(self.bundle_uri, "<BUNDLE>")
        return Step(name, self.normalise(shown), rc, text, round(seconds, 2))

    def session_dir(self, session_id: str) -> Path | None:
        projects = self.home / ".amplifier" / "projects"
        return next(iter(projects.glob(f"*/sessions/{session_id}")), None)

    def events(self, name: str, session_id: str | None) -> Step:
        """The event names hooks-logging wrote for a session, in order (the step's name starts
        with ``events``-marked names: ``compare_app.py`` accepts additional events)."""
        where = self.session_dir(session_id) if session_id else None
        log = where / "events.jsonl" if where else None
        if log is None or not log.exists():
            return Step(name, "events.jsonl", 1, f"no events.jsonl for session {session_id}", 0)
        names = [json.loads(line)["event"] for line in log.read_text().splitlines() if line]
        return Step(name, f"events of {self.normalise(str(log))}", 0, "\n".join(names), 0)

    def transcript(self, name: str, session_id: str | None) -> Step:
        """The messages the application saved for a session (role: content)."""
        where = self.session_dir(session_id) if session_id else None
        saved = where / "transcript.jsonl" if where else None
        if saved is None or not saved.exists():
            return Step(name, "transcript.jsonl", 1, f"no transcript for {session_id}", 0)
        lines = []
        for line in saved.read_text().splitlines():
            message = json.loads(line)
            content = message.get("content")
            text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
            lines.append(f"{message.get('role')}: {text}")
        return Step(
            name, self.normalise(f"transcript of {saved}"), 0, self.normalise("\n".join(lines)), 0
        )

    def newest_session(self) -> str | None:
        found = sorted(
            (self.home / ".amplifier" / "projects").glob("*/sessions/*"),
            key=lambda p: p.stat().st_mtime,
        )
        return found[-1].name if found else None

    def timing(self, repeat: int) -> dict[str, Any]:
        done = subprocess.run(
            [str(self.bin / "python"), str(TIMING), str(self.bundle), "--repeat", str(repeat)],
            cwd=self.work,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
        printed = done.stdout
        if done.returncode != 0:
            # amplifier-core 2.0.2's engine can abort the process at exit, after the timings
            # were printed (see exit_crash.py): those stand
            printed = before_exit_crash(done.stdout + done.stderr) if done.returncode < 0 else None
            if not printed or not printed.strip().splitlines()[-1].startswith("{"):
                return {"error": (done.stdout + done.stderr)[-2000:]}
        result: dict[str, Any] = json.loads(printed.strip().splitlines()[-1])
        return result


def run_steps(scenario: Scenario) -> list[Step]:
    """Every step of the scenario, in order (see the module docstring)."""
    steps = [
        scenario.run("version", "version"),
        scenario.run("module list", "module", "list", sort_lines=True),
        scenario.run("module show", "module", "show", "tool-bash"),
        scenario.run("provider list", "provider", "list"),
        scenario.run("run", "run", "--bundle", scenario.bundle_uri, PROMPT),
    ]
    session_id = scenario.newest_session()
    steps.append(scenario.events("run: events", session_id))
    steps.append(scenario.transcript("run: transcript", session_id))
    steps.append(scenario.run("session list", "session", "list"))
    steps.append(
        scenario.run("run --resume", "run", "--resume", session_id or "missing", RESUME_PROMPT)
    )
    steps.append(scenario.events("resume: events", session_id))
    steps.append(scenario.transcript("resume: transcript", session_id))
    steps.append(scenario.run("tool list", "tool", "list", "--bundle", scenario.bundle_uri))
    steps.append(
        scenario.run(
            "tool invoke",
            "tool",
            "invoke",
            "--bundle",
            scenario.bundle_uri,
            "read",
            "path=test.txt",
        )
    )
    return steps


def _kernel(bin_dir: Path) -> dict[str, str]:
    probe = (
        "import importlib.metadata as m, amplifier_core, json;"
        "print(json.dumps({'amplifier-core': m.version('amplifier-core'),"
        " 'amplifier_core': amplifier_core.__file__}))"
    )
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", probe], capture_output=True, text=True, check=True
    )
    kernel: dict[str, str] = json.loads(done.stdout)
    return kernel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, required=True, help="the environment's bin directory")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--label", default="kernel")
    parser.add_argument("--repeat", type=int, default=20, help="timed create_session + turn runs")
    parser.add_argument(
        "--scratch",
        type=Path,
        default=Path(tempfile.gettempdir()) / "amplifier-app-scenario",
        help="emptied, then HOME and the working directory go there; give every kernel the same "
        "one: the application prints (and wraps) the working directory's slug",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args(argv)
    bin_dir = args.bin.absolute()
    scratch = args.scratch.absolute()
    shutil.rmtree(scratch, ignore_errors=True)
    started = time.perf_counter()
    try:
        scenario = Scenario(bin_dir, scratch)
        steps = run_steps(scenario)
        timing = scenario.timing(args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    report = {
        "label": args.label,
        "kernel": _kernel(bin_dir),
        "steps": [asdict(step) for step in steps],
        "timing": timing,
        "seconds": round(time.perf_counter() - started, 1),
    }
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    for step in steps:
        print(f"{args.label:>8} {step.name:<20} rc={step.rc:<3} {step.seconds:6.2f} s")
    print(f"{args.label:>8} timing {json.dumps(timing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
