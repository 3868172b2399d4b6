"""The README's Quick start, word for word, on the built wheels alone.

``python tests/packaging/quickstart_from_wheels.py --dist dist`` (``nox -s build`` runs it) works in
an empty directory holding a copy of ``examples/`` and a link to ``dist``, with a home of its own
and no pip configuration (``PIP_CONFIG_FILE`` is the null device, no ``PIP_*`` variable):

1. every command of the README's Quick start runs as written and exits 0, in one shell, except
   its install from a checkout (``pip install ./...``), which is replaced by the pip command of
   the README's "from wheels" line (it must say ``--no-index --find-links dist``);
2. in a second empty virtual environment, ``amplifier-hooks`` alone from the wheels: its demo
   stops before its first turn with one message naming the missing modules and one
   ``pip install`` command; that command (with ``--no-index --find-links dist`` added) installs
   them, and the demo then exits 0.

The commands are read from README.md each time, so the check follows the README. The Quick
start writes ``/tmp/play``: as root (CI) each shell gets a ``/tmp`` of its own (``unshare
--mount``, an empty tmpfs), so a ``/tmp/play`` already there is neither read nor changed.
Exit status 0 when everything held; otherwise 1 with the command that failed and its output.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

# beside this file: a script's folder is on sys.path
from doc_commands import private_tmp, shell_command, shell_lines

__all__ = ["main", "quick_start", "wheels_install"]

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 900.0
"""Seconds one shell may take (a pip install and seven commands), on a loaded 2-core machine."""


PROMPT = "[quick start]$ "
"""What the shell prints before each command it runs."""


class Failed(Exception):
    """A step did not do what the README says; the message says which and shows its output."""


def _section(text: str, heading: str) -> str:
    """The body of the Markdown section ``heading`` (``## X`` or ``### X``), to the next one."""
    match = re.search(rf"^(#+) {re.escape(heading)}\n(.*?)(?=^#{{1,3}} |\Z)", text, re.M | re.S)
    if match is None:
        raise Failed(f"README.md has no section {heading!r}")
    return match.group(2)


def _commands(block: str) -> Iterator[str]:
    """Each command of a shell block, continuation lines joined by one space, as written."""
    parts: list[str] = []
    for raw in block.splitlines():
        line = raw.strip()
        if not line and not parts:
            continue
        if line.endswith("\\"):
            parts.append(line[:-1].rstrip())
            continue
        yield " ".join([*parts, line])
        parts = []


def _bash_block(section: str, where: str) -> str:
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    if match is None:
        raise Failed(f"README.md: no ```bash block in {where}")
    return match.group(1)


def quick_start(readme: str) -> list[str]:
    """The commands of the README's Quick start, in order, as written."""
    return list(_commands(_bash_block(_section(readme, "Quick start"), "Quick start")))


def wheels_install(readme: str) -> str:
    """The pip command of the README's "from wheels" line, as written (comment dropped)."""
    block = _bash_block(_section(readme, "Installing"), "Installing")
    lines = [c for c in _commands(block) if re.search(r"#\s*from wheels\s*$", c)]
    if len(lines) != 1:
        raise Failed(f"README.md, Installing: expected one line ending '# from wheels': {lines}")
    pip = [part.strip() for part in lines[0].split("#", 1)[0].split("&&")]
    command = next((part for part in pip if part.startswith("pip install ")), None)
    if command is None:
        raise Failed(f"README.md, Installing: no 'pip install' in {lines[0]!r}")
    words = shlex.split(command)
    links = words[words.index("--find-links") + 1 :][:1] if "--find-links" in words else []
    if "--no-index" not in words or links != ["dist"]:
        raise Failed(
            f"README.md: the from-wheels pip must say --no-index --find-links dist: {command!r}"
        )
    return command


def _environment(scratch: Path) -> dict[str, str]:
    """This process's environment with no pip, virtual environment or module settings, this
    interpreter's directory first on PATH (so ``python3`` is it; its base interpreter's when
    it lies in a ``/tmp`` the shell does not see) and a home in ``scratch``."""
    dropped = ("PIP_", "VIRTUAL_ENV", "PYTHON", "AMPLIFIER_", "CONDA")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.pop("COLUMNS", None)
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    python = Path(sys.executable)
    if private_tmp() and python.is_relative_to("/tmp"):
        python = Path(getattr(sys, "_base_executable", sys.executable))
    env.update(
        PATH=os.pathsep.join([str(python.parent), env.get("PATH", os.defpath)]),
        HOME=str(home),
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        CI="1",
    )
    return env


def _shell(lines: list[str], cwd: Path, env: Mapping[str, str], log: Path) -> tuple[int, str]:
    """Run ``lines`` in one bash (``set -e``), each echoed first, its output shown as it comes
    (an install takes minutes); exit status and output."""
    script = ["set -eo pipefail"]
    for line in lines:
        script += [f"printf '\\n{PROMPT}%s\\n' {shlex.quote(line)}", *shell_lines(line)]
    path = log.with_suffix(".sh")
    path.write_text("\n".join(script) + "\n", encoding="utf-8")
    with (
        log.open("w", encoding="utf-8") as out,
        subprocess.Popen(
            shell_command(path),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        ) as process,
    ):
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            out.write(line)
        code = process.wait(timeout=TIMEOUT)
    return code, log.read_text(encoding="utf-8", errors="replace")


def _workspace(scratch: Path, dist: Path) -> None:
    """``examples/`` and the wheels of ``dist`` (linked, else copied: a shell with a ``/tmp`` of
    its own may not see where they are)."""
    shutil.copytree(ROOT / "examples", scratch / "examples")
    (scratch / "dist").mkdir()
    for wheel in dist.resolve().glob("*.whl"):
        try:
            os.link(wheel, scratch / "dist" / wheel.name)
        except OSError:  # another file system
            shutil.copy2(wheel, scratch / "dist" / wheel.name)


def _last_command(output: str) -> str:
    commands = re.findall(rf"^{re.escape(PROMPT)}(.*)$", output, re.M)
    return commands[-1] if commands else "(none)"


def run_quick_start(readme: str, dist: Path, scratch: Path) -> None:
    """Step 1: the Quick start, its install from a checkout replaced by the wheels' line."""
    commands = quick_start(readme)
    install = wheels_install(readme)
    replaced = [c for c in commands if c.startswith("pip install ")]
    if len(replaced) != 1:
        raise Failed(f"README.md, Quick start: expected one 'pip install' line, got {replaced}")
    lines = [install if c in replaced else c for c in commands]
    if not lines[0].startswith("python3 -m venv "):
        raise Failed(f"README.md, Quick start: the first command must make a venv: {lines[0]!r}")
    _workspace(scratch, dist)
    code, output = _shell(lines, scratch, _environment(scratch), scratch / "quick-start.log")
    if code != 0:
        raise Failed(f"the Quick start failed (exit {code}) at: {_last_command(output)}")
    ran = re.findall(rf"^{re.escape(PROMPT)}(.*)$", output, re.M)
    if ran != lines:
        raise Failed(f"the Quick start ran {len(ran)} of its {len(lines)} commands")
    where = "import amplifier_core as k, amplifier_hooks_cli as c; print(k.__file__, c.__file__)"
    check = [". .venv/bin/activate", f"python3 -c {shlex.quote(where)}"]
    code, output = _shell(check, scratch, _environment(scratch), scratch / "check.log")
    installed = str((scratch / ".venv").resolve())
    files = output.split()[-2:]
    if code != 0 or not all(f.startswith(installed) and "/site-packages/" in f for f in files):
        raise Failed(f"the kernel and the CLI are not the wheels' installation:\n{output}")


def run_missing_modules(dist: Path, scratch: Path) -> None:
    """Step 2: the CLI alone, the message about its missing modules, and its pip command."""
    _workspace(scratch, dist)
    env = _environment(scratch)
    setup = [
        "python3 -m venv .venv && . .venv/bin/activate",
        "pip install --no-index --find-links dist amplifier-hooks",
    ]
    code, output = _shell([*setup, "amplifier-hooks demo"], scratch, env, scratch / "cli.log")
    error = " ".join(output[output.rfind("error: ") :].split())
    found = re.fullmatch(
        r"error: session \S+ stopped before its first turn: (\d+) modules of the bundle are "
        r"not installed: ([\w, -]+); install them with `(pip install [^`]+)`\. [^;]*;[^;]*",
        error,
    )
    if code != 1 or found is None:
        raise Failed(f"the demo without its modules exited {code}, without the one message")
    if len(error) > 700:
        raise Failed(f"the message is {len(error)} characters long: {error}")
    pip = found.group(3).replace("pip install ", "pip install --no-index --find-links dist ", 1)
    steps = [". .venv/bin/activate", pip, "amplifier-hooks demo"]
    code, output = _shell(steps, scratch, env, scratch / "cli-installed.log")
    if code != 0:
        raise Failed(f"after `{pip}` the demo exited {code}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="the built wheels")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directories")
    args = parser.parse_args(argv)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    started = time.perf_counter()
    where = "/var/tmp" if private_tmp() and Path("/var/tmp").is_dir() else None  # not /tmp
    scratches = [
        Path(tempfile.mkdtemp(prefix=f"amplifier-hooks-{n}-", dir=where)) for n in ("qs", "cli")
    ]
    try:
        run_quick_start(readme, args.dist, scratches[0])
        run_missing_modules(args.dist, scratches[1])
    except (Failed, subprocess.TimeoutExpired) as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept: {', '.join(map(str, scratches))}")
        else:
            for scratch in scratches:
                shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.perf_counter() - started
    print(f"the README's Quick start ran from the wheels alone in {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
