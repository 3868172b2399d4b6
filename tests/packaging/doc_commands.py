"""Every command of the shell blocks of README.md and docs/rollout.md, run as printed.

``python tests/packaging/doc_commands.py --dist dist --tools DIR`` (``nox -s build`` runs it,
once ``dist/`` is built) reads the ```` ```bash ```` blocks of :data:`DOCS` each time, joins
continuation lines, and runs every command word for word, in document order, in one ``bash``
(``set -eo pipefail``), as a newcomer would type them:

* from a copy of this checkout (its tracked and not-ignored files) in a temporary folder,
* in a fresh virtual environment, activated, with a home of its own and no pip configuration
  but ``PIP_NO_INDEX=1`` and ``PIP_FIND_LINKS``: a warm wheel directory holding the
  third-party wheels of ``dist/`` and the wheels of ``--tools`` (nox, the build backend),
  never a wheel of this workspace, so a package a command forgets to install is missing
  exactly as it would be for a user. No network is used.

A command already run in this shell, word for word (its comment aside), is not run again (the
README's Installing line repeats the Quick start's); the output says so. The commands that
cannot run here are :data:`EXCEPTIONS`, each with its reason; each must still be printed in the
docs, or the check fails (remove the exception with the command).

The README's Quick start writes ``/tmp/play``. As root (CI) the shell gets a ``/tmp`` of its own
(``unshare --mount``, an empty tmpfs), as on a fresh machine, so what is already there is
neither read nor touched; otherwise the check refuses to start while ``/tmp/play`` exists and
removes it afterwards.

Exit status 0 when every command exited 0; otherwise 1, naming the command that failed.
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
import tomllib
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "DOCS",
    "EXCEPTIONS",
    "commands",
    "expected_exit",
    "main",
    "private_tmp",
    "shell_command",
    "shell_lines",
]

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "docs" / "rollout.md"]
"""The documents whose every shell command must run as printed."""

EXCEPTIONS = {
    "python3 -m pip install nox && python3 -m nox"
    "           # run the whole test suite, ruff and mypy --strict": (
        "runs every nox session, this check's own (build) among them: CI runs it (.ci/run)"
    ),
    'python3 -m nox -s build && pip install --no-index --find-links dist "amplifier-hooks[all]"'
    "   # from wheels": (
        "runs this check's own session; its pip command runs on the built wheels in "
        "tests/packaging/quickstart_from_wheels.py, in the same session"
    ),
    'pip install "git+https://github.com/<owner>/<repo>#subdirectory=util" '
    '"git+https://github.com/<owner>/<repo>#subdirectory=core" '
    '"git+https://github.com/<owner>/<repo>#subdirectory=redact" '
    '"git+https://github.com/<owner>/<repo>#subdirectory=modules/hooks-redaction"': (
        "<owner>/<repo> is a placeholder for where the repository is published, and it "
        "needs the network"
    ),
}
"""The printed commands that are not run, word for word as :func:`commands` yields them, and
why."""

_EXITS = re.compile(r"\s#\s*exits (\d+)\b[^'\"]*$")
"""A trailing comment that promises an exit status other than 0 (``# exits 3: ...``)."""


def expected_exit(command: str) -> int:
    """The exit status ``command``'s trailing comment promises (``# exits 3: a hook denied
    it``), else 0."""
    found = _EXITS.search(command)
    return int(found.group(1)) if found else 0


def shell_lines(command: str) -> list[str]:
    """``command`` as lines of a ``set -e`` bash script: run, and held to the exit status the
    docs promise for it (0 unless its comment says ``# exits N``)."""
    code = expected_exit(command)
    if code == 0:
        return [command]
    check = f'echo "exited $status where the docs say {code}" >&2; exit 1'
    return ["set +e", command, "status=$?", "set -e", f'[ "$status" -eq {code} ] || {{ {check}; }}']


PLAY = Path("/tmp/play")
"""The workspace the README's Quick start names."""
PROMPT = "[docs]$ "
TIMEOUT = 3600.0
"""Seconds the whole shell may take on a loaded 2-core machine (it installs twice)."""


class Failed(Exception):
    """A command did not run as the docs say; the message names it."""


def _joined(block: str) -> Iterator[tuple[int, str]]:
    """Each command of a shell block, continuation lines joined by one space, as printed, with
    the offset of its first line."""
    parts: list[str] = []
    start = 0
    for offset, raw in enumerate(block.splitlines()):
        line = raw.strip()
        if not line and not parts:
            continue
        if not parts:
            start = offset
        if line.endswith("\\"):
            parts.append(line[:-1].rstrip())
            continue
        yield start, " ".join([*parts, line])
        parts = []


def commands(doc: Path) -> list[tuple[str, str]]:
    """Every command of the ```` ```bash ```` blocks of ``doc``, with ``file:line``."""
    text = doc.read_text(encoding="utf-8")
    found: list[tuple[str, str]] = []
    for match in re.finditer(r"^```bash\n(.*?)^```", text, re.S | re.M):
        first = text.count("\n", 0, match.start()) + 2
        for offset, command in _joined(match.group(1)):
            found.append((f"{doc.relative_to(ROOT)}:{first + offset}", command))
    return found


def _ours() -> set[str]:
    """The normalised distribution names of this workspace's packages."""
    names: set[str] = set()
    for pyproject in ROOT.glob("**/pyproject.toml"):
        if any(part.startswith(".") for part in pyproject.relative_to(ROOT).parts):
            continue
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if "name" in project:
            names.add(re.sub(r"[-_.]+", "_", project["name"]).lower())
    return names


def _wheelhouse(scratch: Path, dist: Path, tools: Path) -> Path:
    """A directory holding the third-party wheels of ``dist`` and every wheel of ``tools``
    (linked, else copied: the shell may not see where they are), none of this workspace's."""
    house = scratch / "wheelhouse"
    house.mkdir()
    ours = _ours()
    for wheel in [*dist.glob("*.whl"), *tools.glob("*.whl")]:
        name = wheel.name.split("-", 1)[0].lower()
        target = house / wheel.name
        if name in ours or target.exists():
            continue
        try:
            os.link(wheel, target)
        except OSError:  # another file system
            shutil.copy2(wheel, target)
    return house


def _copy_checkout(target: Path) -> None:
    """The checkout's tracked and not-ignored files, copied to ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        source = ROOT / name
        if not source.is_file():  # deleted in the work tree
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name, follow_symlinks=False)


def _environment(scratch: Path, venv: Path, house: Path) -> dict[str, str]:
    dropped = ("PIP_", "VIRTUAL_ENV", "PYTHON", "AMPLIFIER_", "CONDA", "NOX_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.pop("COLUMNS", None)
    home = scratch / "home"
    home.mkdir()
    env.update(
        PATH=os.pathsep.join([str(venv / "bin"), env.get("PATH", os.defpath)]),
        VIRTUAL_ENV=str(venv),
        HOME=str(home),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(house),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        CI="1",
    )
    return env


def _script(lines: list[tuple[str, str]]) -> str:
    """The bash script: each command echoed with where it is printed, then run as printed."""
    script = ["set -eo pipefail"]
    ran: set[tuple[str, ...]] = set()
    for where, command in lines:
        shown = f"{PROMPT}{command}    ({where})"
        if command in EXCEPTIONS:
            note = f"{PROMPT}not run: {command}    ({where}): {EXCEPTIONS[command]}"
            script.append(f"printf '\\n%s\\n' {shlex.quote(note)}")
            continue
        words = tuple(shlex.split(command, comments=True))
        if words in ran:
            note = f"{PROMPT}already ran above, word for word: {command}    ({where})"
            script.append(f"printf '\\n%s\\n' {shlex.quote(note)}")
            continue
        ran.add(words)
        script += [f"printf '\\n%s\\n' {shlex.quote(shown)}", *shell_lines(command)]
    return "\n".join(script) + "\n"


def check_exceptions(lines: list[tuple[str, str]]) -> None:
    """Each exception is still printed in the docs."""
    printed = {command for _, command in lines}
    gone = [command for command in EXCEPTIONS if command not in printed]
    if gone:
        raise Failed(f"no longer in the docs, remove from EXCEPTIONS: {gone}")


def private_tmp() -> bool:
    """Whether the shell can have a ``/tmp`` of its own (root, ``unshare`` installed)."""
    return os.geteuid() == 0 and shutil.which("unshare") is not None


def shell_command(script: Path) -> list[str]:
    """The command line that runs ``script``, in a ``/tmp`` of its own when it can."""
    if not private_tmp():
        return ["bash", str(script)]
    mount = 'mount -t tmpfs tmpfs /tmp && exec "$0" "$@"'
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        mount,
        "bash",
        str(script),
    ]


def run(dist: Path, tools: Path, scratch: Path) -> None:
    lines = [line for doc in DOCS for line in commands(doc)]
    check_exceptions(lines)
    if not private_tmp() and PLAY.exists():
        raise Failed(f"{PLAY} exists: the Quick start writes there; move it away first")
    checkout = scratch / "checkout"
    _copy_checkout(checkout)
    house = _wheelhouse(scratch, dist, tools)
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    script = scratch / "docs.sh"
    script.write_text(_script(lines), encoding="utf-8")
    output: list[str] = []
    with subprocess.Popen(
        shell_command(script),
        cwd=checkout,
        env=_environment(scratch, venv, house),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:  # shown as it comes: installs take minutes
            print(line, end="", flush=True)
            output.append(line)
        code = process.wait(timeout=TIMEOUT)
    if code != 0:
        started = [line for line in output if line.startswith(PROMPT)]
        last = started[-1].strip() if started else "(none)"
        raise Failed(f"exit status {code} at: {last[len(PROMPT) :]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="the built wheels")
    parser.add_argument("--tools", type=Path, required=True, help="wheels of nox and hatchling")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    # outside /tmp, which the shell sees empty
    where = "/var/tmp" if private_tmp() and Path("/var/tmp").is_dir() else None
    scratch = Path(tempfile.mkdtemp(prefix="amplifier-hooks-docs-", dir=where))
    made_play = not private_tmp() and not PLAY.exists()
    try:
        run(args.dist.resolve(), args.tools.resolve(), scratch)
    except (Failed, subprocess.SubprocessError) as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    finally:
        if made_play:
            shutil.rmtree(PLAY, ignore_errors=True)
        if args.keep:
            print(f"kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.perf_counter() - started
    print(f"every command of {', '.join(d.name for d in DOCS)} ran as printed in {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
