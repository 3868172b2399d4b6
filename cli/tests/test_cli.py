"""The ``amplifier-hooks`` command line, in process (click's runner) and as the installed script."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.demo import DEMO_BUNDLE, DEMO_SCRIPT
from amplifier_hooks_cli.main import main
from click.testing import CliRunner, Result

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCRIPT = Path(sys.executable).with_name("amplifier-hooks")
LOADER_ENV = ("AMPLIFIER_MODULES_ALLOW", "AMPLIFIER_MODULES_DENY", "AMPLIFIER_MODULES_STRICT")
WIDE: dict[str, str | None] = {"COLUMNS": "200", **dict.fromkeys(LOADER_ENV)}

DELETING_SCRIPT = """\
- tool_calls:
    - name: bash
      input: {command: rm -rf victim}
- text: done
"""
"""A scripted model (provider-scripted's YAML) that asks to delete ``victim``, then is done."""

GOOD_BUNDLE = """\
bundle:
  name: cli-test
hooks:
  - module: hooks-template
    config:
      deny_tools: [bash]
      note_results: true
"""

BAD_BUNDLE = """\
bundle:
  name: broken
hooks:
  - module: hooks-template
    config:
      deny_tools: bash
  - module: hooks-logging
    config: verbose
"""

TOOL_SCRIPT = """\
- text: Let me look.
  tool_calls:
    - name: bash
      input: {command: echo tool-output-42}
- expect: tool-output-42
  text: The workspace says tool-output-42.
"""


def invoke(*args: str, cwd: Path | None = None) -> Result:
    """Run the command line in process, in ``cwd``, with wide output."""
    runner = CliRunner()
    previous = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), env=WIDE, catch_exceptions=False)
    finally:
        os.chdir(previous)


def installed(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the installed ``amplifier-hooks`` script, with no terminal and no input."""
    dropped = ("COLUMNS", *LOADER_ENV)
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    return subprocess.run(
        [str(SCRIPT), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def no_traceback(text: str) -> None:
    assert "Traceback" not in text
    assert 'File "' not in text


# -- the installed script --------------------------------------------------------------------


def test_the_script_is_installed() -> None:
    assert SCRIPT.is_file(), f"amplifier-hooks is not installed next to {sys.executable}"


def test_validate_a_good_and_a_bad_bundle(tmp_path: Path) -> None:
    good = installed("validate", str(EXAMPLES / "demo-bundle.yaml"), cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    assert "demo-bundle.yaml: ok (7 hook(s), 1 provider(s), 3 tool(s)" in good.stdout
    bad = write(tmp_path / "bad.yaml", BAD_BUNDLE)
    done = installed("validate", str(bad), cwd=tmp_path)
    assert done.returncode == 1
    no_traceback(done.stdout + done.stderr)
    assert done.stderr.splitlines() == [
        f"error: invalid bundle {bad}:8: hooks[1].config: expected a mapping, got str 'verbose'"
    ]


def test_modules_lists_hooks_template_with_its_distribution(tmp_path: Path) -> None:
    done = installed("modules", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if "hooks-template" in line)
    cells = [cell.strip() for cell in re.split(r"[│┃|]", row) if cell.strip()]
    assert cells[:2] == ["hooks-template", "amplifier-module-hooks-template"]
    assert cells[-2:] == ["amplifier_module_hooks_template:mount", "ok"]


def test_run_with_a_script_file_answers_and_calls_a_tool(tmp_path: Path) -> None:
    script = write(tmp_path / "script.yaml", TOOL_SCRIPT)
    done = installed(
        "run",
        "--script",
        str(script),
        "--prompt",
        "What is here?",
        "--workspace",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "user: What is here?" in out
    assert 'tool bash {"command": "echo tool-output-42"} -> ok' in out
    assert "assistant: The workspace says tool-output-42." in out
    assert re.search(r"turn 1 completed · 2 model call\(s\)", out)


def test_emit_prints_the_handler_table(tmp_path: Path) -> None:
    bundle = write(tmp_path / "bundle.yaml", GOOD_BUNDLE)
    data = json.dumps({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}})
    done = installed("emit", "PreToolUse", "--bundle", str(bundle), "--data", data, cwd=tmp_path)
    assert done.returncode == 3, done.stderr  # a hook denied the event
    out = done.stdout
    assert "emit tool:pre: 1 handler(s)" in out
    row = next(line for line in out.splitlines() if "hooks-template.tool_pre" in line)
    cells = [cell.strip() for cell in row.split("│") if cell.strip()]
    assert cells[0] == "1"
    assert cells[1:4] == ["hooks-template.tool_pre", "50", "deny"]
    assert float(cells[4]) >= 0
    assert cells[5] == "tool 'bash' is disabled in this project"
    result = json.loads(out[out.index("result\n") + len("result\n") :])
    assert result == {
        "action": "deny",
        "reason": "tool 'bash' is disabled in this project",
        "source": "hooks-template.tool_pre",
    }


# -- in process ------------------------------------------------------------------------------


def test_examples_are_the_files_the_demo_runs() -> None:
    assert (EXAMPLES / "demo-bundle.yaml").read_text() == DEMO_BUNDLE.read_text()
    assert (EXAMPLES / "demo-script.yaml").read_text() == DEMO_SCRIPT.read_text()


def test_a_missing_module_stops_the_session_before_its_first_turn(tmp_path: Path) -> None:
    text = DEMO_BUNDLE.read_text().replace(
        "hooks:\n", "hooks:\n  - module: hooks-not-installed-anywhere\n", 1
    )
    bundle = write(tmp_path / "bundle.yaml", text)
    write(tmp_path / "demo-script.yaml", DEMO_SCRIPT.read_text())
    result = invoke("demo", "--bundle", str(bundle))
    assert result.exit_code == 1, result.output
    assert (
        "stopped before its first turn: module hooks-not-installed-anywhere of the bundle is not "
        "installed; no distribution is known for hooks-not-installed-anywhere"
        in " ".join(result.output.split())
    )
    assert "optional: true" in result.output
    assert "skipped module" not in result.output
    assert "denied bash" not in result.output  # no turn ran
    no_traceback(result.output)


def test_missing_modules_are_one_short_message_with_the_pip_command(tmp_path: Path) -> None:
    text = DEMO_BUNDLE.read_text().replace(
        "hooks:\n",
        "hooks:\n"
        "  - module: hooks-nowhere-one\n"
        "  - module: hooks-nowhere-two\n"
        "    source: git+https://example.invalid/hooks-two.git\n"
        "  - module: hooks-nowhere-three\n"
        "    source: git+https://example.invalid/hooks-three.git\n",
        1,
    )
    bundle = write(tmp_path / "bundle.yaml", text)
    write(tmp_path / "demo-script.yaml", DEMO_SCRIPT.read_text())
    result = invoke("demo", "--bundle", str(bundle))
    assert result.exit_code == 1, result.output
    error = " ".join(result.output[result.output.index("error:") :].split())
    assert re.fullmatch(
        r"error: session demo-\d+ stopped before its first turn: 3 modules of the bundle are "
        r"not installed: hooks-nowhere-one, hooks-nowhere-two, hooks-nowhere-three; install "
        r"them with `pip install git\+https://example.invalid/hooks-two.git "
        r"git\+https://example.invalid/hooks-three.git`; no distribution is known for "
        r"hooks-nowhere-one: install the one that provides its entry point in group "
        r"'amplifier.modules', or give the module a source\. Every module a bundle names must "
        r"load; mark its entry `optional: true` only when the session may run without it",
        error,
    ), error
    assert result.output.count("hooks-nowhere-two") == 1, result.output
    no_traceback(result.output)


def test_demo_reports_a_missing_optional_module_once_and_goes_on(tmp_path: Path) -> None:
    text = DEMO_BUNDLE.read_text().replace(
        "hooks:\n", "hooks:\n  - module: hooks-not-installed-anywhere\n    optional: true\n", 1
    )
    bundle = write(tmp_path / "bundle.yaml", text)
    write(tmp_path / "demo-script.yaml", DEMO_SCRIPT.read_text())
    result = invoke("demo", "--bundle", str(bundle))
    assert result.exit_code == 0, result.output
    mentions = [line for line in result.output.splitlines() if "hooks-not-installed" in line]
    assert len(mentions) == 1, result.output
    assert "skipped module hooks-not-installed-anywhere: no entry point named" in result.output
    assert "1 module(s) of the bundle not mounted (shown above)" in result.output
    assert "denied bash by config:hooks.PreToolUse[0]" in result.output
    assert "allowed bash `git status` without asking" in result.output


def test_events_lists_the_catalogue_with_aliases() -> None:
    result = invoke("events")
    assert result.exit_code == 0
    assert re.search(r"\b48 events\b", result.output)
    assert re.search(r"tool:pre\s+│ PreToolUse", result.output)
    assert re.search(r"memory:update\s+│ MemoryUpdate", result.output)


def test_validate_names_missing_modules_and_unknown_session_keys(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        textwrap.dedent(
            """\
            bundle:
              name: typos
            session:
              injection_size_limt: 3
            providers:
              - module: provider-scripted
                config: {script: missing.yaml}
            tools:
              - module: tool-grep
            hooks:
              - module: hooks-templat
            """
        ),
    )
    result = invoke("validate", str(bundle))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"warning: {bundle}:4: session.injection_size_limt: unknown session key "
        "'injection_size_limt' (did you mean 'injection_size_limit'?)",
        f"error: {bundle}:11: hooks[0].module: module 'hooks-templat' is not installed (did you "
        "mean 'hooks-template'?); `amplifier-hooks modules` lists the installed ones",
        f"error: {bundle}:9: tools[0].module: module 'tool-grep' is not installed; "
        "`amplifier-hooks modules` lists the installed ones",
    ]


def test_validate_checks_hook_config_against_the_module_schema(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n  - module: hooks-template\n    config:\n      deny_tools: bash\n",
    )
    for args in (("validate",), ("validate", "--mount")):
        result = invoke(*args, str(bundle), cwd=tmp_path)
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            f"error: {bundle}:4: hooks[0].config.deny_tools: expected a list, got str 'bash'"
        ]
    assert list(tmp_path.iterdir()) == [bundle]  # checking wrote nothing


def test_validate_a_file_that_is_not_there(tmp_path: Path) -> None:
    result = invoke("validate", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"error: invalid bundle {tmp_path / 'nope.yaml'}: cannot read the file: "
        "No such file or directory"
    )


def test_emit_refuses_bad_data_in_one_line(tmp_path: Path) -> None:
    bundle = write(tmp_path / "bundle.yaml", GOOD_BUNDLE)
    broken = invoke("emit", "tool:pre", "--bundle", str(bundle), "--data", '{"a": 1')
    assert broken.exit_code == 2
    assert broken.stderr.strip() == (
        "error: --data: not valid JSON at line 1 column 8: Expecting ',' delimiter"
    )
    listed = invoke("emit", "tool:pre", "--bundle", str(bundle), "--data", "[1]")
    assert (listed.exit_code, listed.stderr.strip()) == (
        2,
        "error: --data: expected a JSON object, got list",
    )
    pattern = invoke("emit", "tool:*", "--bundle", str(bundle))
    assert pattern.exit_code == 2
    assert "is a subscription pattern" in pattern.stderr


def test_emit_an_unknown_event_still_runs_the_wildcard_handlers(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n  - module: hooks-logging\n    config: {path: log.jsonl}\n",
    )
    workspace = tmp_path / "ws"
    args = ("emit", "my_module:thing", "--bundle", str(bundle), "--workspace", str(workspace))
    result = invoke(*args, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "note: unknown event 'my_module:thing': not in the event catalogue" in result.stderr
    assert "emit my_module:thing: 1 handler(s)" in result.stdout
    lines = (workspace / "log.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["my_module:thing"]


def test_emit_without_a_workspace_writes_nothing_where_it_runs(tmp_path: Path) -> None:
    bundle = write(tmp_path / "bundle.yaml", "hooks:\n  - module: hooks-logging\n")
    result = invoke("emit", "tool:pre", "--bundle", str(bundle), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "emit tool:pre: 1 handler(s)" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle.yaml"]


def test_run_approval_policies(tmp_path: Path, asking_bundle: Path) -> None:
    script = write(
        tmp_path / "script.yaml",
        "- tool_calls: [{name: bash, input: {command: echo approved-run}}]\n- text: over\n",
    )
    common = ["run", "--bundle", str(asking_bundle), "--script", str(script)]
    common += ["--prompt", "go", "--workspace", str(tmp_path)]
    approved = invoke(*common, "--approve")
    assert approved.exit_code == 0, approved.output
    assert "Run 'echo approved-run'?" in approved.stderr
    assert '"command": "echo approved-run"\n} -> Allow once (no one to ask; policy: allow)' in (
        approved.stderr
    )
    assert "tool bash" in approved.stdout
    assert "approved-run" in approved.stdout
    for flag in ("--deny", "--ask"):  # no terminal here: --ask follows the deny policy
        denied = invoke(*common, flag)
        assert denied.exit_code == 0, denied.output
        assert '"command": "echo approved-run"\n} -> Deny (no one to ask; policy: deny)' in (
            denied.stderr
        )
        assert "denied bash by hooks-asker" in denied.stdout
    both = invoke(*common, "--approve", "--deny")
    assert both.exit_code == 2
    assert "--approve and --deny: choose one approval policy" in both.stderr


def test_run_resumes_from_the_checkpoint_it_names(tmp_path: Path) -> None:
    script = write(tmp_path / "script.yaml", "- text: first answer\n- text: second answer\n")
    first = invoke("run", "--script", str(script), "--prompt", "one", "--workspace", str(tmp_path))
    assert first.exit_code == 0, first.output
    checkpoint = re.search(r"--resume (\S+\.json)", first.stdout)
    assert checkpoint is not None, first.stdout
    again = write(tmp_path / "again.yaml", "- expect: two\n  text: I remember one\n")
    second = invoke(
        "run",
        "--script",
        str(again),
        "--prompt",
        "two",
        "--workspace",
        str(tmp_path),
        "--resume",
        checkpoint.group(1),
    )
    assert second.exit_code == 0, second.output
    assert "after turn 1" in second.stdout
    assert "turn 2 completed" in second.stdout
    saved = json.loads(Path(checkpoint.group(1)).with_name("checkpoint-0002.json").read_text())
    contents = [m["content"] for m in saved["messages"]]
    assert contents == ["one", "first answer", "two", "I remember one"]


def test_run_takes_prompts_from_the_bundle_script(tmp_path: Path) -> None:
    result = invoke("run", "--bundle", str(DEMO_BUNDLE), "--workspace", str(tmp_path / "ws"))
    assert result.exit_code == 0, result.output
    assert "created workspace" in result.stdout
    assert "user: Thanks! Please push it to origin." in result.stdout
    assert "python-check says: python-check: stats.py is clean" in result.stdout
    assert (tmp_path / "ws" / "stats.py").is_file()
    assert (tmp_path / "ws" / "stats.py").read_text().startswith("def mean(")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["run", "--prompt", "hi"], 2, "no model to talk to: pass --script FILE"),
        (["run", "--script", "{script}"], 2, "no prompt: pass --prompt TEXT"),
        (["run", "--prompt", "hi", "--script", "{missing}"], 1, "cannot read the script"),
        (["run", "--prompt", "hi", "--bundle", "{bad}"], 1, "expected a mapping, got str"),
        (
            ["run", "--prompt", "hi", "--script", "{script}", "--resume", "{script}"],
            1,
            "not valid JSON",
        ),
        (["run", "--prompt", "hi", "--script", "{broken}"], 1, "broken.yaml:2: entry 1"),
    ],
)
def test_run_errors_are_one_line_without_a_traceback(
    tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    paths: dict[str, Any] = {
        "script": write(tmp_path / "s.yaml", "- text: hi\n"),
        "missing": tmp_path / "missing.yaml",
        "bad": write(tmp_path / "bad.yaml", BAD_BUNDLE),
        "broken": write(tmp_path / "broken.yaml", "- text: ok\n- txt: typo\n"),
    }
    result = invoke(*(a.format(**paths) for a in args), "--workspace", str(tmp_path))
    assert result.exit_code == code, result.output
    assert message in result.stderr
    no_traceback(result.output)
    error_lines = [line for line in result.stderr.splitlines() if "rror" in line]
    assert len(error_lines) >= 1


def test_a_provider_failure_in_a_turn_exits_1(tmp_path: Path) -> None:
    script = write(tmp_path / "s.yaml", "- error: the model is down\n")
    result = invoke("run", "--script", str(script), "--prompt", "hi", "--workspace", str(tmp_path))
    assert result.exit_code == 1
    assert "turn 1 error" in result.stdout
    assert "the model is down" in result.stdout
    no_traceback(result.output)


def test_modules_explains_why_a_module_does_not_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    write(site / "broken_hooks_pkg" / "__init__.py", "import os\nimport not_a_real_dependency\n")
    dist = site / "amplifier_module_hooks_broken-0.3.0.dist-info"
    write(
        dist / "METADATA",
        "Metadata-Version: 2.1\nName: amplifier-module-hooks-broken\nVersion: 0.3.0\n",
    )
    write(dist / "entry_points.txt", "[amplifier.modules]\nhooks-broken = broken_hooks_pkg:mount\n")
    monkeypatch.syspath_prepend(str(site))
    result = invoke("modules")
    assert result.exit_code == 1
    row = next(line for line in result.stdout.splitlines() if "hooks-broken" in line)
    assert "amplifier-module-hooks-broken" in row
    assert "0.3.0" in row
    assert row.rstrip(" │").endswith("no")
    assert result.stderr.strip() == (
        "error: module 'hooks-broken' (entry point 'hooks-broken = broken_hooks_pkg:mount' from "
        "distribution amplifier-module-hooks-broken 0.3.0) does not load: ModuleNotFoundError: "
        f"No module named 'not_a_real_dependency' at {site / 'broken_hooks_pkg' / '__init__.py'}:2"
    )
    listed = invoke("modules", "--no-import")
    assert listed.exit_code == 0
    assert "not checked" in listed.stdout


@pytest.fixture(scope="module")
def asking_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle with a local module that asks before every bash call."""
    root = tmp_path_factory.mktemp("asking")
    write(
        root / "asker" / "src" / "amplifier_module_hooks_asker" / "__init__.py",
        textwrap.dedent(
            """
            from amplifier_core.models import HookResult


            async def mount(coordinator, config):
                async def ask(event, data):
                    if data.get("tool_name") != "bash":
                        return HookResult()
                    return HookResult(
                        action="ask_user",
                        approval_prompt=f"Run {data['tool_input']['command']!r}?",
                        approval_options=["Allow once", "Deny"],
                    )

                return coordinator.hooks.register("tool:pre", ask, name="hooks-asker")
            """
        ),
    )
    return write(root / "bundle.yaml", "hooks:\n  - module: hooks-asker\n    source: ./asker\n")
