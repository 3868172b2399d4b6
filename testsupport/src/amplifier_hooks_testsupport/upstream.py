"""Run a module's check on amplifier-core 2.0.2, in that kernel's own environment.

A module's ``tests/test_upstream_kernel.py`` writes a script that mounts the module on
amplifier-core 2.0.2 and exercises it, and runs it with the interpreter named by
``AMPLIFIER_CORE_202_PYTHON`` (the ``compat`` nox session sets it), with the module's source
and the shared packages' (``util``, ``provider-base``, this one) on ``PYTHONPATH``, and never
our kernel::

    @needs_upstream
    def test_mounts_on_amplifier_core_2_0_2(tmp_path):
        out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
        assert out.startswith("ok")

A provider module's check is :func:`check_provider_upstream` (the script is
:func:`~amplifier_hooks_testsupport.loopback.check_provider_package`). Without
``AMPLIFIER_CORE_202_PYTHON`` (``nox -s compat`` sets it up) the test is skipped
(:data:`needs_upstream`); nothing is installed into that environment. :func:`run_upstream`
ends every script with :data:`EXIT`: 2.0.2's engine (and its native coordinator, after it has
asked an approval system) may crash while the interpreter shuts down, after the check itself
passed and printed its report.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import pytest

__all__ = [
    "ENV",
    "EXIT",
    "SHARED_SOURCES",
    "SKIP_REASON",
    "check_provider_upstream",
    "module_source",
    "needs_upstream",
    "run_upstream",
    "upstream_python",
]

ENV: Final = "AMPLIFIER_CORE_202_PYTHON"
SKIP_REASON: Final = f"set {ENV} to run on amplifier-core 2.0.2"
_ROOT: Final = Path(__file__).resolve().parents[3]
SHARED_SOURCES: Final = tuple(
    source
    for source in (_ROOT / name / "src" for name in ("util", "provider-base", "testsupport"))
    if source.is_dir()
)
"""The ``src`` folders of the packages modules share, in this checkout (none when installed)."""


EXIT: Final = """
import os as _os, sys as _sys
_sys.stdout.flush()
_os._exit(0)  # the report is out: skip the shutdown, where 2.0.2 may crash
"""
"""What :func:`run_upstream` appends to every script: flush, then leave without shutting down."""


def upstream_python() -> str:
    """The interpreter of the amplifier-core 2.0.2 environment, or ``""`` when not set."""
    return os.environ.get(ENV, "")


needs_upstream: Final = pytest.mark.skipif(not upstream_python(), reason=SKIP_REASON)
"""Marks a test that runs on amplifier-core 2.0.2: skipped unless :data:`ENV` is set."""


def module_source(test_file: str | os.PathLike[str]) -> Path:
    """The ``src`` folder of the module whose test file this is (``<module>/tests/x.py``)."""
    return Path(test_file).resolve().parents[1] / "src"


def run_upstream(
    script: str,
    workdir: Path,
    *,
    sources: Sequence[Path],
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
) -> str:
    """Run ``script`` on amplifier-core 2.0.2 and return what it printed.

    ``sources`` go on ``PYTHONPATH`` before :data:`SHARED_SOURCES`; ``env`` adds variables
    (``HOME`` ...). The script file is written to ``workdir``; ``args`` follow it.

    :raises AssertionError: the script failed; the message holds its stderr.
    """
    python = upstream_python()
    if not python:
        raise RuntimeError(f"{ENV} is not set")
    path = workdir / "upstream_check.py"
    path.write_text(script + EXIT, encoding="utf-8")
    paths = [*(str(s) for s in sources), *(str(s) for s in SHARED_SOURCES)]
    done = subprocess.run(
        [python, str(path), *args],
        env={**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"on amplifier-core 2.0.2 ({python}):\n{done.stderr[-4000:]}")
    return done.stdout


def check_provider_upstream(name: str, test_file: str | os.PathLike[str], workdir: Path) -> None:
    """Run :func:`~amplifier_hooks_testsupport.loopback.check_provider_package` for
    ``amplifier_module_provider_<name>`` on amplifier-core 2.0.2, with the sources of the
    module whose test file ``test_file`` is.

    :raises AssertionError: the check failed (its stderr) or printed no ``ok``.
    """
    script = (
        "import asyncio\n"
        "from amplifier_hooks_testsupport.loopback import check_provider_package\n"
        f"asyncio.run(check_provider_package({name!r}))\n"
        'print("ok")\n'
    )
    out = run_upstream(script, workdir, sources=[module_source(test_file)])
    assert out.startswith("ok"), f"amplifier_module_provider_{name} on 2.0.2 printed {out!r}"
