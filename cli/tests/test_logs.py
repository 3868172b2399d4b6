"""``amplifier-hooks logs show`` / ``logs tail`` over the logs hooks-logging writes.

The command line is built with no plugins (never the installed entry points); the log files
are real JSONL files in the layout hooks-logging writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import click
import pytest
from amplifier_hooks_cli.commands.logs import LEVELS
from amplifier_hooks_cli.main import build_cli
from amplifier_hooks_cli.plugins import Plugins
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import amplifier_module_hooks_logging
from amplifier_module_hooks_logging.paths import project_slug

SESSION = "5e55-10n"


def record(event: str, level: str = "info", second: int = 0, **data: Any) -> str:
    body = {
        "ts": f"2026-01-31T12:00:{second:02d}.123456+00:00",
        "level": level,
        "event": event,
        "session_id": SESSION,
        "data": {**data, "session_id": SESSION, "timestamp": "x"},
        "schema": {"name": "amplifier.hooks-logging.event", "version": 1},
    }
    return json.dumps(body) + "\n"


STORY = [
    record("session:start", second=1),
    record("tool:pre", second=2, tool_name="bash", tool_input={"command": "ls"}),
    record("tool:error", "error", second=3, tool_name="bash", error={"message": "boom"}),
    record("llm:request:raw", "debug", second=4, body="..."),
    record("session:end", second=5, status="completed"),
]


def cli() -> click.Group:
    return build_cli(Plugins)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli(), list(args), catch_exceptions=False, env={"COLUMNS": "200"})


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(STORY), encoding="utf-8")
    return path


def events_of(out: str) -> list[str]:
    return [line.split()[2] for line in out.splitlines()]


def test_the_level_choices_are_the_levels_hooks_logging_writes() -> None:
    assert LEVELS == amplifier_module_hooks_logging.LEVELS


def test_logs_is_a_built_in_command_with_no_plugin_loaded() -> None:
    def no_plugins() -> Plugins:
        raise AssertionError("plugins were loaded for a built-in command")

    result = CliRunner().invoke(build_cli(no_plugins), ["logs", "show", "--help"])
    assert result.exit_code == 0, result.output
    assert "Print every record of a log" in result.stdout


def test_show_prints_one_line_per_record(log: Path) -> None:
    result = invoke("logs", "show", str(log))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert events_of(result.stdout) == [
        "session:start",
        "tool:pre",
        "tool:error",
        "llm:request:raw",
        "session:end",
    ]
    assert lines[1].startswith("12:00:02.123  info     tool:pre ")
    assert lines[1].endswith('{"tool_name": "bash", "tool_input": {"command": "ls"}}')
    assert "session_id" not in result.stdout


def test_show_filters_by_event_and_level(log: Path) -> None:
    assert events_of(invoke("logs", "show", str(log), "--event", "tool:*").stdout) == [
        "tool:pre",
        "tool:error",
    ]
    assert events_of(invoke("logs", "show", str(log), "--level", "info").stdout) == [
        "session:start",
        "tool:pre",
        "tool:error",
        "session:end",
    ]
    assert events_of(invoke("logs", "show", str(log), "--level", "warning").stdout) == [
        "tool:error"
    ]


def test_show_json_prints_the_lines_as_written(log: Path) -> None:
    result = invoke("logs", "show", str(log), "--json", "--event", "session:*")
    assert result.stdout == STORY[0] + STORY[4]


def test_a_bad_line_is_reported_with_its_number_and_reading_goes_on(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text(STORY[0] + "{not json\n" + "[1, 2]\n" + STORY[1], encoding="utf-8")
    result = invoke("logs", "show", str(log))
    assert result.exit_code == 0
    assert events_of(result.stdout) == ["session:start", "tool:pre"]
    assert result.stderr.splitlines() == [
        f"warning: {log}:2: not a JSON record (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1))",
        f"warning: {log}:3: not a record (a JSON list)",
    ]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AMPLIFIER_HOME")  # the default state directory, ~/.amplifier
    return home


def sessions_dir(home: Path, workspace: Path) -> Path:
    return home / ".amplifier" / "projects" / project_slug(workspace) / "sessions"


def test_a_session_id_or_nothing_finds_the_log_where_the_module_writes_it(
    tmp_path: Path, home: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    older = sessions_dir(home, workspace) / "older" / "events.jsonl"
    newer = sessions_dir(home, workspace) / SESSION / "events.jsonl"
    for path, text in ((older, STORY[0]), (newer, STORY[1])):
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    os.utime(older, ns=(1_000_000_000, 1_000_000_000))
    by_id = invoke("logs", "show", "older", "--workspace", str(workspace))
    assert events_of(by_id.stdout) == ["session:start"]
    newest = invoke("logs", "show", "--workspace", str(workspace))
    assert events_of(newest.stdout) == ["tool:pre"]
    by_dir = invoke("logs", "show", str(sessions_dir(home, workspace)))
    assert events_of(by_dir.stdout) == ["tool:pre"]


def test_no_log_to_be_found_is_one_clear_error(tmp_path: Path, home: Path) -> None:
    result = invoke("logs", "show", "--workspace", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: no session log of the project {tmp_path}; looked in "
        f"{sessions_dir(home, tmp_path)}/*/events.jsonl; the hooks-logging logs in {tmp_path} "
        "(up to 3 levels deep). Pass a log file or a session id, or --bundle with the bundle "
        "whose hooks-logging `path` wrote it\n"
    )
    missing = invoke("logs", "tail", "nope", "--workspace", str(tmp_path))
    assert missing.exit_code == 1
    assert "'nope' is neither a log file nor a session with a log at " in missing.stderr


def test_tail_prints_the_last_records(log: Path) -> None:
    result = invoke("logs", "tail", str(log), "-n", "2", "--level", "info")
    assert events_of(result.stdout) == ["tool:error", "session:end"]
    assert invoke("logs", "tail", str(log), "-n", "0").stdout == ""


def test_tail_follow_prints_new_records_until_the_session_ends(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text(STORY[0], encoding="utf-8")
    program = textwrap.dedent(
        """
        import sys
        from amplifier_hooks_cli.main import build_cli
        from amplifier_hooks_cli.plugins import Plugins

        build_cli(Plugins)(sys.argv[1:])
        """
    )
    env = {**os.environ, "COLUMNS": "200"}
    command = [sys.executable, "-c", program, "logs", "tail", str(log), "--follow"]
    command += ["--interval", "0.01"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as process:
        assert process.stdout is not None
        assert "session:start" in process.stdout.readline()  # the tail, then it follows
        with log.open("a", encoding="utf-8") as stream:
            half = STORY[1]
            stream.write(half[:20])  # a line written halfway is not read yet
            stream.flush()
            stream.write(half[20:])
            stream.flush()
        assert "tool:pre" in process.stdout.readline()
        with log.open("a", encoding="utf-8") as stream:
            stream.write(STORY[4] + record("after:end"))
        assert "session:end" in process.stdout.readline()
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out == ""  # nothing after session:end


# Each of these changes how a terminal shows the text around it, or hides text: C1's CSI
# (U+009B) starts an escape sequence, U+202E and U+2066..U+2069 reorder, U+200B hides, ESC
# starts a colour, BEL rings.
DECEIVING = (
    "rm -rf \u202e/ fles.gnp\u202c \u2066x\u2069\u2067y\u2068z\u2069 \x9b31m \u200bok \x1b[2K\x07"
)


@pytest.mark.parametrize("command", ["show", "tail"])
@pytest.mark.parametrize("as_json", [False, True])
def test_invisible_and_reordering_characters_are_shown_as_escapes(
    tmp_path: Path, command: str, as_json: bool
) -> None:
    log = tmp_path / "events.jsonl"
    written = json.dumps(
        {
            "ts": "2026-01-31T12:00:00.123456+00:00",
            "level": "info",
            "event": "tool:pre\u202e",
            "session_id": SESSION,
            "data": {"tool_input": {"command": DECEIVING}},
        },
        ensure_ascii=False,
    )
    log.write_text(written + "\n", encoding="utf-8")
    result = invoke("logs", command, str(log), *(["--json"] if as_json else []), "--full")
    assert result.exit_code == 0, result.output
    shown = result.stdout
    for char in "\u202e\u202c\u2066\u2067\u2068\u2069\x9b\u200b\x1b\x07":
        assert char not in shown, repr(char)
    for escape in ("\\u202e", "\\u2066", "\\u2069", "\\u009b", "\\u200b", "\\u001b", "\\u0007"):
        assert escape in shown, escape
    if as_json:  # the line is still the record, character for character
        assert json.loads(shown) == json.loads(written)
    else:
        assert "tool:pre\\u202e" in shown


# -- logs where a bundle's hooks-logging `path` puts them ---------------------------------------


def session_log(session: str, *events: str, cwd: Path | None = None) -> str:
    """A log as hooks-logging writes it: session:start first (with the session's cwd)."""
    start = json.loads(record("session:start"))
    start["session_id"] = start["data"]["session_id"] = session
    if cwd is not None:
        start["data"]["cwd"] = str(cwd)
    return json.dumps(start) + "\n" + "".join(record(e) for e in events)


TEMPLATES = st.sampled_from(
    [
        ".amplifier/logs/{session_id}.jsonl",
        "./logs/{session_id}.jsonl",
        "logs/{session_id}/events.jsonl",
        "{session_dir}/events.jsonl",
        "{state}/elsewhere/{project}/{session_id}.jsonl",
        ".amplifier/{session_id}-events.jsonl",
    ]
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    template=TEMPLATES,
    sessions=st.lists(
        st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True), min_size=1, max_size=3, unique=True
    ),
)
def test_the_newest_log_is_found_wherever_the_bundles_path_puts_it(
    tmp_path_factory: pytest.TempPathFactory, template: str, sessions: list[str]
) -> None:
    from amplifier_hooks_util.state import render_template

    root = tmp_path_factory.mktemp("logs")
    workspace = root / "ws"
    workspace.mkdir()
    bundle = root / "bundle.yaml"
    bundle.write_text(
        f"hooks:\n  - module: hooks-logging\n    config: {{path: '{template}'}}\n",
        encoding="utf-8",
    )
    env = {"AMPLIFIER_HOME": str(root / "state")}
    for age, session in enumerate(sessions):
        path = render_template(template, session, working_dir=workspace, environ=env)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(session_log(session, "tool:pre", cwd=workspace), encoding="utf-8")
        os.utime(path, ns=(10**18 + age * 10**9,) * 2)
    newest = sessions[-1]
    runner = CliRunner()
    # without the bundle: the state directory's default place and the workspace itself
    alone = not template.startswith("{state}")
    for extra in (["--bundle", str(bundle)], [] if alone else None):
        if extra is None:
            continue
        args = ["logs", "show", "--workspace", str(workspace), "--json", *extra]
        done = runner.invoke(cli(), args, env=env)
        assert done.exit_code == 0, (extra, done.output)
        assert json.loads(done.stdout.splitlines()[0])["session_id"] == newest
        by_id = runner.invoke(cli(), [*args[:2], sessions[0], *args[2:]], env=env)
        if extra or "{session_dir}" in template:  # by id: where the template says
            assert json.loads(by_id.stdout.splitlines()[0])["session_id"] == sessions[0]


def test_the_readme_pattern_is_found_from_the_workspace_alone(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "ws"
    logs = workspace / ".amplifier" / "logs"
    logs.mkdir(parents=True)
    (logs / "s1.jsonl").write_text(session_log("s1", "tool:pre", cwd=workspace), "utf-8")
    (workspace / ".amplifier" / "approvals").mkdir()
    (workspace / ".amplifier" / "approvals" / "s1.jsonl").write_text('{"kind": "x"}\n', "utf-8")
    other = workspace / "sub" / ".amplifier"  # another project's session, inside this one
    other.mkdir(parents=True)
    (other / "s2.jsonl").write_text(session_log("s2", cwd=workspace / "sub"), "utf-8")
    os.utime(logs / "s1.jsonl", ns=(10**9, 10**9))
    for command in ("show", "tail"):
        done = invoke("logs", command, "--workspace", str(workspace))
        assert done.exit_code == 0, done.output
        assert events_of(done.stdout) == ["session:start", "tool:pre"]


def test_a_denied_call_says_so_on_its_own_line(tmp_path: Path) -> None:
    def rec(name: str, **data: Any) -> str:
        body = json.loads(record(name))
        body["data"] = data
        return json.dumps(body) + "\n"

    log = tmp_path / "events.jsonl"
    log.write_text(
        rec("tool:pre", tool_name="bash", tool_call_id="c1", tool_input={"command": "ls"})
        + rec("tool:post", tool_name="bash", tool_call_id="c1")
        + rec("tool:pre", tool_name="bash", tool_call_id="c2", tool_input={"command": "rm -rf /"})
        + rec("policy:violation", event="tool:pre", hook="guard", reason="no rm", tool_name="bash")
        + rec("tool:pre", tool_name="bash", tool_call_id="c3", tool_input={"command": "deploy"})
        + rec("approval:required", event="tool:pre", tool_name="bash")
        + rec("approval:denied", event="tool:pre", tool_name="bash", answer="Deny")
        + rec(
            "policy:violation",
            event="tool:pre",
            hook="gate",
            reason="User denied",
            tool_name="bash",
        ),
        encoding="utf-8",
    )
    for command in ("show", "tail"):
        out = invoke("logs", command, str(log), "--event", "tool:*").stdout.splitlines()
        after_event = [line[47:] for line in out]  # time, level and event are 47 wide
        assert [
            rest.partition("]")[0] + "]" if rest[0] == "[" else rest for rest in after_event
        ] == [
            "[ran]",
            '{"tool_name": "bash", "tool_call_id": "c1"}',
            "[denied by guard: no rm]",
            "[denied by gate: User denied]",
        ], out
    raw = invoke("logs", "show", str(log), "--json").stdout
    assert "[denied" not in raw  # --json: the lines as written


@settings(max_examples=60, deadline=None)
@given(
    calls=st.lists(
        st.tuples(
            st.sampled_from(["bash", "write_file"]), st.sampled_from(["ran", "denied", "failed"])
        ),
        min_size=1,
        max_size=8,
    )
)
def test_each_calls_decision_is_its_own(calls: list[tuple[str, str]]) -> None:
    from amplifier_hooks_cli.log_decisions import decisions

    records: list[dict[str, Any]] = []
    expected: dict[int, str] = {}
    for number, (tool, outcome) in enumerate(calls):
        expected[len(records)] = {
            "ran": "ran",
            "failed": "ran, the tool failed",
            "denied": f"denied by g{number}: r{number}",
        }[outcome]
        records.append({"event": "tool:pre", "data": {"tool_name": tool, "tool_call_id": number}})
        records.append({"event": "provider:request", "data": {}})
        if outcome == "denied":
            data = {"event": "tool:pre", "hook": f"g{number}", "reason": f"r{number}"}
            records.append({"event": "policy:violation", "data": {**data, "tool_name": tool}})
        else:
            event = "tool:post" if outcome == "ran" else "tool:error"
            records.append({"event": event, "data": {"tool_name": tool, "tool_call_id": number}})
    assert decisions(records) == expected
