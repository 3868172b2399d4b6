"""hooks-otel makes a hook span of every hook's run, and none of the command line's own
handlers (its view, its approval notice): ``run`` with hooks-otel exporting to the console."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("amplifier_module_hooks_otel")

from amplifier_hooks_cli.demo_view import VIEW_NAME
from amplifier_hooks_cli.session import HOST_HANDLERS, HOST_HANDLERS_CAPABILITY

from amplifier_module_hooks_otel import HOST_HANDLERS_CAPABILITY as OTEL_CAPABILITY

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("amplifier-hooks")

BUNDLE = """\
hooks:
  - module: hooks-otel
    config: {exporter: console, metrics: false}
  - module: hooks-declarative
    config:
      include_user: false
      include_project: false
      hooks:
        PreToolUse:
          - type: matcher
            match: {tool: Bash, args: {command: "git push*"}}
            action: ask
            message: Pushing needs a human
"""


def test_the_capability_names_every_handler_the_command_line_registers() -> None:
    assert HOST_HANDLERS_CAPABILITY == OTEL_CAPABILITY
    assert {VIEW_NAME, "session.notify"} <= HOST_HANDLERS


def test_run_exports_hook_spans_of_hooks_only(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(BUNDLE, encoding="utf-8")
    done = subprocess.run(
        [
            str(SCRIPT),
            "run",
            "--bundle",
            str(bundle),
            "--script",
            str(ROOT / "examples" / "demo-script.yaml"),
            "--workspace",
            str(tmp_path / "ws"),
            "--deny",  # the push asks: session.notify runs
        ],
        env={**os.environ, "AMPLIFIER_HOME": str(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = re.findall(r'"name": "hook ([^"]+)"', done.stdout)
    assert "hooks-declarative:tool:pre" in hooks  # hook spans are exported ...
    assert not set(hooks) & HOST_HANDLERS  # ... and none of the command line's own handlers
