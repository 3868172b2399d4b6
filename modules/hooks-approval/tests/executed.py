"""Run shell commands in a bubblewrap sandbox and report what each one executed.

A batch of commands runs in one ``bwrap`` call: the host's root read-only, a private ``/tmp``,
no network, its own PID namespace. Programs under test are replaced, at every path they can
be reached by (``/usr/bin/rm`` is ``/bin/rm``), by recording stubs: a stub writes the argv
that reached ``execve`` (and, for ``rm``, the argv as util-linux ``getopt`` reads it with GNU
rm's option table) to a record file, then either does nothing (``rm``) or runs the real
program (``git``). Each command runs in its own fresh copy of a template directory, under
``timeout``, with stdin closed; a per-family check then reports its effect (a file changed,
a directory gone, a remote branch rewritten, a marker printed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Execution", "run_batch"]

_RM_STUB = r"""#!/bin/sh
long=force,interactive::,recursive,dir,verbose,one-file-system
long=$long,no-preserve-root,preserve-root::,help,version
n=$(/usr/bin/getopt -q -o fiIrRdv -n rm --long "$long" -- "$@") || n=INVALID
printf '%s\trm\t%s\t' "${SPELLING:-?}" "$n" >> "$RECORD"
printf '%s ' "$@" >> "$RECORD"
printf '\n' >> "$RECORD"
"""

_GIT_STUB = r"""#!/bin/sh
printf '%s\tgit\t' "${SPELLING:-?}" >> "$RECORD"
printf '%s ' "$@" >> "$RECORD"
printf '\n' >> "$RECORD"
exec /usr/lib/git-core/git "$@"
"""

_STUBS = {"rm": _RM_STUB, "git": _GIT_STUB}


@dataclass(frozen=True, slots=True)
class Execution:
    """What one command did: its effect (the family check's word), the stub records."""

    command: str
    effect: str
    records: tuple[str, ...]


def _driver(setup: str, check: str) -> str:
    return f"""set -u
i=0
while IFS= read -r -d '' cmd; do
  d=/tmp/s$i
  mkdir -p "$d"
  {setup}
  cd "$d/work" || exit 3
  ( export SPELLING=$i; /usr/bin/timeout 10 /bin/bash -c "$cmd" ) </dev/null >"$d/out" 2>&1
  cd /
  effect=$({check})
  printf '%s\\t%s\\n' "$i" "$effect" >> "$RESULTS"
  i=$((i+1))
done < "$COMMANDS"
"""


def run_batch(
    commands: Sequence[str],
    *,
    workdir: Path,
    template: Path,
    check: str,
    stubs: Sequence[str],
) -> list[Execution]:
    """Run ``commands`` in one sandbox; each starts in a copy of ``template``'s ``work``.

    ``check`` is shell code printing the effect word of the command just run (``$d`` is its
    directory, holding ``work``, ``out`` and whatever else the template has).
    """
    bwrap = shutil.which("bwrap") or "bwrap"  # missing: the run fails, it is not skipped
    batch = workdir / f"batch-{os.getpid()}-{len(list(workdir.iterdir()))}"
    batch.mkdir()
    stub_dir = batch / "stubs"
    stub_dir.mkdir()
    binds: list[str] = []
    for name in stubs:
        stub = stub_dir / name
        stub.write_text(_STUBS[name])
        stub.chmod(0o755)
        binds += ["--ro-bind", str(stub), f"/usr/bin/{name}"]
    (batch / "commands").write_bytes(b"".join(c.encode() + b"\0" for c in commands))
    (batch / "driver.sh").write_text(
        _driver(f'cp -a "{template}/." "$d/"', check), encoding="utf-8"
    )
    for name in ("results", "record"):
        (batch / name).write_text("")
    home = batch / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = t\n\temail = t@example.com\n[safe]\n\tdirectory = *\n"
    )
    argv = [
        bwrap,
        "--ro-bind", "/", "/",
        "--tmpfs", "/tmp",
        "--dev", "/dev",
        "--proc", "/proc",
        "--bind", str(batch), str(batch),
        "--ro-bind", str(template), str(template),
        *binds,
        "--unshare-all",
        "--die-with-parent",
        "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "HOME", str(home),
        "--setenv", "LC_ALL", "C",
        "--setenv", "GIT_CONFIG_NOSYSTEM", "1",
        "--setenv", "RECORD", str(batch / "record"),
        "--setenv", "RESULTS", str(batch / "results"),
        "--setenv", "COMMANDS", str(batch / "commands"),
        "/bin/bash", str(batch / "driver.sh"),
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"bwrap batch failed ({done.returncode}): {done.stderr[-2000:]}"
    effects: dict[int, str] = {}
    for line in (batch / "results").read_text().splitlines():
        index, _, effect = line.partition("\t")
        effects[int(index)] = effect
    records: dict[int, list[str]] = {}
    for line in (batch / "record").read_text(errors="replace").splitlines():
        index, _, rest = line.partition("\t")
        if index.isdigit():
            records.setdefault(int(index), []).append(rest)
    assert len(effects) == len(commands), f"{len(effects)} of {len(commands)} commands reported"
    return [
        Execution(command, effects[i], tuple(records.get(i, ())))
        for i, command in enumerate(commands)
    ]
