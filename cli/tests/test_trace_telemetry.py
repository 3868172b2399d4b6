"""Tracing and telemetry see the same hook runs: ``run``, ``run --trace``, ``demo`` and
``emit`` export a ``hook ...`` span for every handler run of the bundle's hooks, to a real
OTLP receiver on loopback."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.main import main
from amplifier_hooks_testsupport.otlp import OtlpReceiver, ReceivedSpan
from click.testing import CliRunner, Result

pytest.importorskip("opentelemetry.proto")

WIDE: dict[str, str | None] = {
    "COLUMNS": "200",
    **dict.fromkeys(
        ("AMPLIFIER_MODULES_ALLOW", "AMPLIFIER_MODULES_DENY", "AMPLIFIER_MODULES_STRICT")
    ),
}
CLI_HANDLERS = ("amplifier-hooks.", "session.")
"""Names of the command line's own handlers (what it shows, how it notifies)."""

SCRIPT = textwrap.dedent(
    """\
    prompts: [clean out scratch]
    turns:
      - text: Cleaning out the scratch directory.
        tool_calls:
          - name: bash
            input: {command: rm -rf scratch}
      - text: Then a look around.
        tool_calls:
          - name: bash
            input: {command: ls}
      - text: Done.
    """
)
CALL = {"tool_name": "bash", "tool_input": {"command": "rm -rf scratch"}, "tool_call_id": "c1"}


def _entry(module: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    package = "amplifier_module_" + module.replace("-", "_")
    return {"module": module, "source": f"{package}:mount", "config": config or {}}


def _bundle(root: Path, endpoint: str) -> Path:
    (root / "script.yaml").write_text(SCRIPT, encoding="utf-8")
    otel = {
        "endpoint": endpoint,
        "protocol": "http/protobuf",
        "metrics": False,
        "shutdown_timeout_s": 120,
    }
    deny_rm = {
        "name": "no-recursive-rm",
        "action": "deny",
        "tools": ["bash"],
        "command": ["rm -rf *"],
        "reason": "recursive deletes need a human",
    }
    note = {"type": "matcher", "match": {"tool": "Bash"}, "action": "allow", "message": "seen"}
    bundle = {
        "bundle": {"name": "telemetry"},
        "providers": [_entry("provider-scripted", {"script": "script.yaml"})],
        "tools": [_entry("tool-bash")],
        "hooks": [
            _entry("hooks-otel", otel),
            _entry("hooks-approval", {"rules": [deny_rm]}),
            _entry(
                "hooks-declarative",
                {"include_user": False, "include_project": False, "hooks": {"PreToolUse": [note]}},
            ),
        ],
    }
    path = root / "bundle.yaml"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    return path


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env=WIDE, catch_exceptions=False)


def _hook_runs(spans: list[ReceivedSpan], event: str | None = None) -> Counter[tuple[str, ...]]:
    """Each exported hook run of the bundle's own hooks: (span name, event, decision)."""
    return Counter(
        (
            span.name,
            str(span.attributes.get("hook.event")),
            str(span.attributes.get("hook.decision")),
        )
        for span in spans
        if span.name.startswith("hook ")
        and not span.name.removeprefix("hook ").startswith(CLI_HANDLERS)
        and (event is None or span.attributes.get("hook.event") == event)
    )


@pytest.fixture
def receiver() -> Any:
    with OtlpReceiver() as running:
        yield running


def _session(receiver: OtlpReceiver, root: Path, *args: str) -> Counter[tuple[str, ...]]:
    root.mkdir()
    workspace = root / "workspace"
    (workspace / "scratch").mkdir(parents=True)
    bundle = str(_bundle(root, receiver.endpoint))
    done = _invoke(*args, "--bundle", bundle, *_where(args[0], workspace))
    assert done.exit_code == 0, done.output
    return _hook_runs(receiver.taken())


def _where(command: str, workspace: Path) -> tuple[str, ...]:
    if command == "demo":
        return ()
    return ("--workspace", str(workspace), "--deny")


def test_run_trace_and_demo_export_the_hook_runs_run_exports(
    receiver: OtlpReceiver, tmp_path: Path
) -> None:
    plain = _session(receiver, tmp_path / "run", "run")
    traced = _session(receiver, tmp_path / "trace", "run", "--trace")
    demo = _session(receiver, tmp_path / "demo", "demo")

    assert ("hook hooks-approval", "tool:pre", "deny") in plain
    assert ("hook hooks-declarative:tool:pre", "tool:pre", "continue") in plain
    assert traced == plain
    assert demo == plain


def test_emit_exports_the_hook_runs_of_its_event(receiver: OtlpReceiver, tmp_path: Path) -> None:
    plain = _session(receiver, tmp_path / "run", "run")
    (tmp_path / "emit").mkdir()
    bundle = _bundle(tmp_path / "emit", receiver.endpoint)
    done = _invoke("emit", "tool:pre", "--bundle", str(bundle), "--data", json.dumps(CALL))
    assert done.exit_code in (0, 3), done.output  # 3: a hook denied the event
    emitted = _hook_runs(receiver.taken())

    assert emitted
    assert emitted == Counter(dict.fromkeys(_hook_runs_of_first_call(plain), 1))


def _hook_runs_of_first_call(runs: Counter[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The runs of the session's first ``tool:pre`` (its rm, which the guard denies)."""
    pre = [run for run in runs if run[1] == "tool:pre"]
    return [run for run in pre if run[0] != "hook hooks-approval" or run[2] == "deny"]
