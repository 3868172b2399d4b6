"""The handler with the real ruff and mypy on real files: findings, silence, failures, config."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.models import HookResult
from amplifier_core.testing import MockCoordinator, create_test_coordinator
from amplifier_module_hooks_python_check import MODULE_ID, mount
from amplifier_module_hooks_python_check import daemon as daemon_module
from amplifier_module_hooks_python_check.hook import _crashed

CLEAN = '''"""Adds numbers."""


def add(a: int, b: int) -> int:
    """Return the sum."""
    return a + b
'''
SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
NOT_LINT = ["ruff", "format", "stubs"]  # every check but mypy: fast


_CLEANUPS: list[Callable[[], None]] = []


@pytest.fixture(autouse=True)
def _unmount() -> Iterator[None]:
    """Every module :func:`mounted` mounted is cleaned up after its test (its mypy daemon too)."""
    yield
    while _CLEANUPS:
        _CLEANUPS.pop()()


async def mounted(project: Path, config: dict[str, Any]) -> MockCoordinator:
    """A test coordinator whose session works in ``project``, with the module mounted."""
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    _CLEANUPS.append(await mount(coordinator, config))
    return coordinator


async def emit(
    coordinator: MockCoordinator,
    file_path: str | Path,
    *,
    tool: str = "write_file",
    success: bool = True,
    output: Any = None,
) -> HookResult:
    data = {
        "tool_name": tool,
        "tool_input": {"file_path": str(file_path), "content": "..."},
        "tool_call_id": "call_1",
        "tool_result": {"success": success, "output": output, "error": None},
    }
    return await coordinator.hooks.emit("tool:post", data)


def write(project: Path, name: str, text: str | bytes) -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def lines(result: HookResult) -> list[str]:
    assert result.context_injection is not None
    return result.context_injection.splitlines()


def assert_silent(result: HookResult) -> None:
    assert result.action == "continue"
    assert result.context_injection is None
    assert result.user_message is None


# ---------------------------------------------------------------- what each checker finds


async def test_lint_errors_are_appended_to_the_tool_result(project: Path) -> None:
    coordinator = await mounted(project, {"checks": ["ruff"]})
    write(project, "mod.py", "import os\n\n\ndef f(x: int) -> bool:\n    return x == None\n")
    result = await emit(coordinator, "mod.py")

    assert result.action == "inject_context"
    assert result.ephemeral is True
    assert result.append_to_last_tool_result is True
    assert result.user_message == "python-check: 2 issues in mod.py (ruff 2)"
    assert result.user_message_level == "warning"
    assert result.user_message_source == "python-check"
    header, first, second = lines(result)
    assert header == "python-check found 2 issues in mod.py (ruff 2):"
    assert first.startswith("mod.py:1:8: [ruff F401] ")
    assert "`os`" in first
    assert second.startswith("mod.py:5:17: [ruff E711] ")
    assert "None" in second


async def test_format_differences_point_at_the_first_change(project: Path) -> None:
    coordinator = await mounted(project, {"checks": ["format"]})
    write(project, "mod.py", "x = 1\n\n\n\ny=2\n")
    result = await emit(coordinator, "mod.py")
    assert result.user_message == "python-check: 1 issue in mod.py (format 1)"
    assert lines(result)[1:] == [
        "mod.py:4:1: [format] ruff format would reformat this file (first change at line 4); "
        "run `ruff format mod.py`"
    ]


async def test_format_diff_shows_what_would_change_capped_at_max_diff_lines(
    project: Path,
) -> None:
    text = "".join(f"v{i}=[{i},{i}]\n" for i in range(30))
    write(project, "mod.py", text)
    config: dict[str, Any] = {"checks": ["format"], "format_diff": True, "max_diff_lines": 500}
    shown = lines(await emit(await mounted(project, config), "mod.py"))
    start = shown.index("ruff format would change mod.py:")
    assert "-v0=[0,0]" in shown
    assert "+v0 = [0, 0]" in shown
    assert "+v29 = [29, 29]" in shown
    assert len(shown[start + 1 :]) == 63  # ---, +++, @@, then 30 lines out and 30 lines in

    default = {"checks": ["format"], "format_diff": True}
    shown = lines(await emit(await mounted(project, default), "mod.py"))
    start = shown.index("ruff format would change mod.py:")
    assert len(shown[start + 1 :]) == 41
    assert shown[-1] == "... (23 more diff lines)"

    config = {"checks": ["format"], "format_diff": True, "max_diff_lines": 5}
    capped = lines(await emit(await mounted(project, config), "mod.py"))
    start = capped.index("ruff format would change mod.py:")
    assert len(capped[start + 1 :]) == 6
    assert capped[-1] == "... (58 more diff lines)"

    plain = lines(await emit(await mounted(project, {"checks": ["format"]}), "mod.py"))
    assert "ruff format would change mod.py:" not in plain


async def test_type_errors_come_from_mypy(project: Path, mypy_args: list[str]) -> None:
    coordinator = await mounted(project, {"checks": ["mypy"], "args": {"mypy": mypy_args}})
    write(project, "mod.py", "def half(n: int) -> int:\n    return n / 2\n")
    result = await emit(coordinator, "mod.py")
    assert result.user_message == "python-check: 1 issue in mod.py (mypy 1)"
    assert lines(result)[1] == (
        'mod.py:2:12: [mypy return-value] Incompatible return value type (got "float", '
        'expected "int")'
    )


async def test_mypy_findings_are_kept_when_the_session_dir_is_not_above_the_file(
    project: Path, mypy_args: list[str]
) -> None:
    # the session works in project/app; the model writes project/lib/mod.py by absolute path
    (project / "app").mkdir()
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project / "app"))
    await mount(coordinator, {"checks": ["mypy"], "args": {"mypy": mypy_args}})
    target = write(project, "lib/mod.py", "def half(n: int) -> int:\n    return n / 2\n")
    result = await emit(coordinator, target)
    assert result.user_message == f"python-check: 1 issue in {target} (mypy 1)"
    assert lines(result)[1] == (
        f'{target}:2:12: [mypy return-value] Incompatible return value type (got "float", '
        'expected "int")'
    )


async def test_stubs_are_found(project: Path) -> None:
    coordinator = await mounted(project, {"checks": ["stubs"]})
    source = (
        "def todo() -> None:\n"
        "    pass  # TODO: write me\n"
        "\n"
        "\n"
        "def later() -> int:\n"
        '    """Soon."""\n'
        "    raise NotImplementedError\n"
    )
    write(project, "mod.py", source)
    result = await emit(coordinator, "mod.py")
    assert result.user_message == "python-check: 3 issues in mod.py (stubs 3)"
    assert lines(result)[1:] == [
        "mod.py:1:1: [stubs empty-body] function `todo` has no implementation: its body is "
        "only `pass`",
        "mod.py:2:13: [stubs TODO] TODO marker: write me",
        "mod.py:7:5: [stubs not-implemented] function `later` raises NotImplementedError",
    ]


async def test_every_checker_together_in_line_order(project: Path) -> None:
    coordinator = await mounted(project, {"checks": NOT_LINT})
    write(project, "mod.py", "import os\ndef f() -> None:\n    ...\n")
    result = await emit(coordinator, "mod.py")
    assert result.user_message == "python-check: 3 issues in mod.py (ruff 1, format 1, stubs 1)"
    tags = [line.split(" ", 2)[1] for line in lines(result)[1:]]
    assert tags == ["[ruff", "[format]", "[stubs"]


async def test_a_clean_file_is_silent(project: Path, mypy_args: list[str]) -> None:
    coordinator = await mounted(project, {"args": {"mypy": mypy_args}})
    write(project, "mod.py", CLEAN)
    assert_silent(await emit(coordinator, "mod.py"))


async def test_report_clean_adds_a_short_note(project: Path) -> None:
    coordinator = await mounted(project, {"checks": NOT_LINT, "report_clean": True})
    write(project, "mod.py", CLEAN)
    result = await emit(coordinator, "mod.py")
    assert result.action == "inject_context"
    assert result.context_injection == "python-check: mod.py is clean (ruff, format, stubs)"
    assert result.user_message == result.context_injection
    assert result.user_message_level == "info"


# ---------------------------------------------------------------- failures are reported


async def test_a_missing_checker_is_announced_once(project: Path) -> None:
    nowhere = str(project / "bin" / "no-such-ruff")
    coordinator = await mounted(project, {"checks": NOT_LINT, "commands": {"ruff": nowhere}})
    write(project, "mod.py", "x = 1  # TODO: more\n")

    first = await emit(coordinator, "mod.py")
    assert first.action == "inject_context"  # the stub scan still ran
    assert lines(first)[1] == "mod.py:1:10: [stubs TODO] TODO marker: more"
    assert first.user_message is not None
    assert first.user_message.startswith("python-check: 1 issue in mod.py (stubs 1); ruff is ")
    assert f"cannot start {nowhere!r}" in first.user_message
    assert first.user_message.count("not available") == 1  # ruff and format: one note

    second = await emit(coordinator, "mod.py")
    assert second.user_message == "python-check: 1 issue in mod.py (stubs 1)"


async def test_a_missing_checker_is_named_to_the_model_every_time_and_to_the_human_once(
    project: Path,
) -> None:
    command = [sys.executable, "-m", "no_such_checker_module"]
    coordinator = await mounted(project, {"checks": ["ruff"], "commands": {"ruff": command}})
    write(project, "mod.py", CLEAN)
    told = (
        "python-check could not fully check mod.py (no check ran):\n"
        "ruff check did not run: ruff is not available"
    )
    first = await emit(coordinator, "mod.py")
    assert (first.action, first.context_injection) == ("inject_context", told)
    assert first.user_message is not None
    assert first.user_message.startswith("python-check: mod.py: ruff is not available (")
    assert "No module named no_such_checker_module" in first.user_message
    assert first.user_message_level == "warning"
    second = await emit(coordinator, "mod.py")
    assert (second.action, second.context_injection) == ("inject_context", told)
    assert second.user_message is None


async def test_a_checker_past_its_timeout_is_killed_and_reported(project: Path) -> None:
    config = {"checks": ["ruff"], "commands": {"ruff": SLEEPER}, "timeout": 0.5}
    coordinator = await mounted(project, config)
    write(project, "mod.py", CLEAN)
    started = time.perf_counter()
    result = await emit(coordinator, "mod.py")
    assert time.perf_counter() - started < 30  # the checker sleeps 60 s: it was killed
    assert result.action == "inject_context"
    assert result.context_injection == (
        "python-check could not fully check mod.py (no check ran):\n"
        "ruff check did not run: ruff check timed out after 0.5s"
    )
    assert result.user_message == "python-check: mod.py: ruff check timed out after 0.5s"


RENDEZVOUS = """
import pathlib, sys, time
here = pathlib.Path(sys.argv[0]).parent
mine, theirs = ("format", "check") if "format" in sys.argv[1:] else ("check", "format")
(here / f"{mine}.started").touch()
deadline = time.monotonic() + 60
while not (here / f"{theirs}.started").exists():  # run one after the other: never there
    if time.monotonic() > deadline:
        sys.exit(f"{mine}: {theirs} did not start while {mine} ran")
    time.sleep(0.01)
if mine == "check":
    print("[]")
"""


async def test_checkers_run_concurrently(project: Path, tmp_path: Path) -> None:
    # ruff check and ruff format each wait until the other has started: they can only both
    # finish (clean) when they run at the same time.
    script = tmp_path / "rendezvous" / "ruff.py"
    script.parent.mkdir()
    script.write_text(RENDEZVOUS)
    command = [sys.executable, str(script)]
    config = {"checks": ["ruff", "format"], "commands": {"ruff": command}, "timeout": 120}
    coordinator = await mounted(project, config)
    write(project, "mod.py", CLEAN)
    result = await emit(coordinator, "mod.py")
    assert_silent(result)
    assert sorted(p.name for p in script.parent.glob("*.started")) == [
        "check.started",
        "format.started",
    ]


async def test_a_failing_checker_is_reported_with_its_output(project: Path) -> None:
    broken = [sys.executable, "-c", "import sys; sys.exit('error: bad settings')"]
    coordinator = await mounted(project, {"checks": ["ruff"], "commands": {"ruff": broken}})
    write(project, "mod.py", CLEAN)
    result = await emit(coordinator, "mod.py")
    assert result.user_message == "python-check: mod.py: ruff failed (exit 1): error: bad settings"


async def test_a_check_that_raises_is_reported_and_the_others_still_count() -> None:
    run = _crashed("stubs", RecursionError("too deep"))
    assert run.problem == "stubs check failed: RecursionError: too deep"
    assert run.issues == []
    with pytest.raises(asyncio.CancelledError):
        _crashed("mypy", asyncio.CancelledError())


async def test_files_the_ruff_settings_exclude_get_no_ruff_findings(project: Path) -> None:
    settings = 'extend-exclude = ["generated.py"]\n\n[lint]\nselect = ["F"]\n'
    (project / "ruff.toml").write_text(settings)
    write(project, "generated.py", "import os\nx=1\n")
    write(project, "kept.py", "import os\nx=1\n")
    coordinator = await mounted(project, {"checks": ["ruff", "format"]})
    assert_silent(await emit(coordinator, "generated.py"))
    kept = await emit(coordinator, "kept.py")
    assert kept.user_message == "python-check: 2 issues in kept.py (ruff 1, format 1)"


async def test_a_vanished_file_is_reported(project: Path) -> None:
    coordinator = await mounted(project, {"checks": NOT_LINT})
    result = await emit(coordinator, "gone.py")
    assert result.action == "continue"
    assert result.user_message == "python-check: cannot check gone.py: the file no longer exists"
    assert result.user_message_level == "warning"


async def test_a_directory_is_reported(project: Path) -> None:
    (project / "pkg.py").mkdir()
    coordinator = await mounted(project, {"checks": NOT_LINT})
    result = await emit(coordinator, "pkg.py")
    assert result.user_message == "python-check: cannot check pkg.py: Is a directory"


async def test_bytes_that_are_not_utf8_are_reported_to_the_model(project: Path) -> None:
    coordinator = await mounted(project, {"checks": NOT_LINT})
    write(project, "mod.py", b"x = 1\n# caf\xe9\n")
    result = await emit(coordinator, "mod.py")
    assert result.action == "inject_context"
    assert lines(result) == [
        "python-check could not check mod.py:",
        "mod.py:2:6: [python-check encoding] byte 0xe9 at offset 11 is not valid UTF-8; "
        "Python source must be UTF-8, so no checks ran",
    ]
    assert result.user_message == "python-check: mod.py is not valid UTF-8 (line 2); not checked"


async def test_an_unusable_path_never_raises(project: Path) -> None:
    coordinator = await mounted(project, {})
    result = await emit(coordinator, "bad\0name.py")
    assert result.action == "continue"
    assert result.user_message == (
        "python-check: could not check 'bad\\x00name.py': ValueError: embedded null byte"
    )


# ---------------------------------------------------------------- which calls are checked


async def test_max_issues_caps_the_list(project: Path) -> None:
    write(project, "mod.py", "".join(f"import m{i}\n" for i in range(15)))
    default = lines(await emit(await mounted(project, {"checks": ["ruff"]}), "mod.py"))
    assert default[0] == "python-check found 15 issues in mod.py (ruff 15):"
    assert len(default) == 1 + 10 + 1
    assert default[10].startswith("mod.py:10:8: [ruff F401] ")
    assert default[-1] == "... and 5 more"

    capped = await mounted(project, {"checks": ["ruff"], "max_issues": 3})
    three = lines(await emit(capped, "mod.py"))
    assert len(three) == 1 + 3 + 1
    assert three[-1] == "... and 12 more"


async def test_only_matching_files_are_checked(project: Path) -> None:
    write(project, "notes.txt", "import os\n")
    write(project, "api.pyi", "# TODO: document\ndef f() -> int: ...\n")
    write(project, "src/a.py", "import os\n")
    write(project, "b.py", "import os\n")

    default = await mounted(project, {"checks": ["stubs", "ruff"]})
    assert_silent(await emit(default, "notes.txt"))
    stub_file = await emit(default, "api.pyi")  # a .pyi body of `...` is not a stub
    assert lines(stub_file)[1:] == ["api.pyi:1:3: [stubs TODO] TODO marker: document"]

    only_src = await mounted(project, {"checks": ["ruff"], "file_patterns": ["src/*.py"]})
    assert (await emit(only_src, "src/a.py")).action == "inject_context"
    assert_silent(await emit(only_src, "b.py"))

    text = await mounted(project, {"checks": ["stubs"], "file_patterns": ["*.txt"]})
    assert_silent(await emit(text, "b.py"))


async def test_only_the_configured_tools_trigger(project: Path) -> None:
    write(project, "mod.py", "import os\n")
    default = await mounted(project, {"checks": ["ruff"]})
    assert (await emit(default, "mod.py", tool="write_file")).action == "inject_context"
    assert (await emit(default, "mod.py", tool="edit_file")).action == "inject_context"
    assert_silent(await emit(default, "mod.py", tool="read_file"))
    assert_silent(await emit(default, "mod.py", tool="bash"))

    custom = await mounted(project, {"checks": ["ruff"], "tools": ["Write", "MultiEdit"]})
    assert (await emit(custom, "mod.py", tool="MultiEdit")).action == "inject_context"
    assert_silent(await emit(custom, "mod.py", tool="write_file"))


async def test_a_failed_tool_call_is_not_checked(project: Path) -> None:
    write(project, "mod.py", "import os\n")
    coordinator = await mounted(project, {"checks": ["ruff"]})
    assert_silent(await emit(coordinator, "mod.py", success=False))


async def test_the_path_comes_from_the_result_or_the_input(project: Path) -> None:
    write(project, "mod.py", "import os\n")
    write(project, "other.py", CLEAN)
    coordinator = await mounted(project, {"checks": ["ruff"]})
    # The result names the resolved file; it wins over the input.
    output = {"file_path": str(project / "mod.py"), "path": str(project / "mod.py")}
    assert (await emit(coordinator, "other.py", output=output)).action == "inject_context"
    # The input's `path` key, and the legacy `tool` and `input` keys.
    legacy = {"tool": "write_file", "input": {"path": "mod.py"}, "result": {"success": True}}
    found = await coordinator.hooks.emit("tool:post", legacy)
    assert found.user_message == "python-check: 1 issue in mod.py (ruff 1)"
    assert_silent(await coordinator.hooks.emit("tool:post", {"tool_name": "write_file"}))


# ---------------------------------------------------------------- the other config keys


async def test_checks_accepts_the_lint_and_types_aliases(project: Path) -> None:
    write(project, "mod.py", "import os\n")
    coordinator = await mounted(project, {"checks": ["lint", "ruff"]})
    assert (await emit(coordinator, "mod.py")).user_message == (
        "python-check: 1 issue in mod.py (ruff 1)"
    )


@pytest.mark.slow
async def test_commands_and_args_are_used(project: Path, mypy_args: list[str]) -> None:
    write(project, "mod.py", "import os\n\n\ndef f(x):\n    return x == None\n")
    config = {
        "checks": ["ruff", "mypy"],
        "commands": {
            "ruff": [sys.executable, "-m", "ruff"],
            "mypy": shlex.join([sys.executable, "-m", "mypy"]),
        },
        "args": {"ruff": ["--select", "E711"], "mypy": [*mypy_args, "--strict"]},
    }
    result = await emit(await mounted(project, config), "mod.py")
    found = lines(result)[1:]
    assert [line.split(" ", 2)[:2] for line in found] == [
        ["mod.py:4:1:", "[mypy"],
        ["mod.py:5:17:", "[ruff"],
    ]
    assert "[mypy no-untyped-def]" in found[0]
    assert "[ruff E711]" in found[1]


async def test_format_args_are_used(project: Path) -> None:
    write(project, "mod.py", "values = [1111, 2222, 3333]\n")
    config: dict[str, Any] = {"checks": ["format"]}
    assert_silent(await emit(await mounted(project, config), "mod.py"))
    config["args"] = {"format": ["--line-length", "20"]}
    result = await emit(await mounted(project, config), "mod.py")
    assert result.user_message == "python-check: 1 issue in mod.py (format 1)"


async def test_stub_markers_are_configurable(project: Path) -> None:
    write(project, "mod.py", "x = 1  # TODO: a\ny = 2  # HACK: b\n")
    hack = await mounted(project, {"checks": ["stubs"], "stub_markers": ["HACK"]})
    assert lines(await emit(hack, "mod.py"))[1:] == ["mod.py:2:10: [stubs HACK] HACK marker: b"]
    none = await mounted(project, {"checks": ["stubs"], "stub_markers": []})
    assert_silent(await emit(none, "mod.py"))


async def test_working_dir_places_relative_paths_and_shapes_the_display(project: Path) -> None:
    write(project, "sub/mod.py", "import os\n")
    relative = await mounted(project, {"checks": ["ruff"], "working_dir": "sub"})
    result = await emit(relative, "mod.py")
    assert result.user_message == "python-check: 1 issue in mod.py (ruff 1)"

    absolute = await mounted(project, {"checks": ["ruff"], "working_dir": str(project / "sub")})
    assert (await emit(absolute, project / "sub" / "mod.py")).user_message == (
        "python-check: 1 issue in mod.py (ruff 1)"
    )

    elsewhere = await mounted(project / "sub", {"checks": ["ruff"]})
    outside = write(project, "top.py", "import os\n")
    shown = lines(await emit(elsewhere, outside))
    assert shown[1].startswith(f"{outside}:1:8: [ruff F401] ")


async def test_without_a_session_the_process_directory_is_used(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    coordinator = create_test_coordinator()
    await mount(coordinator, {"checks": ["ruff"]})
    write(project, "mod.py", "import os\n")
    result = await emit(coordinator, "mod.py")
    assert result.user_message == "python-check: 1 issue in mod.py (ruff 1)"


async def test_priority_is_the_registered_priority_and_cleanup_unregisters(
    project: Path,
) -> None:
    coordinator = create_test_coordinator()
    cleanup = await mount(coordinator, {"priority": 7})
    (info,) = coordinator.hooks.handlers_for("tool:post")
    assert (info.name, info.priority) == (MODULE_ID, 7)
    assert (await mount(create_test_coordinator(), None)) is not None
    default = create_test_coordinator()
    await mount(default, {})
    assert default.hooks.handlers_for("tool:post")[0].priority == 50
    cleanup()
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": []}


async def test_the_session_shows_the_user_message(project: Path) -> None:
    coordinator = await mounted(project, {"checks": ["ruff"]})
    write(project, "mod.py", "import os\n")
    result = await emit(coordinator, "mod.py")
    await coordinator.process_hook_result(result, "tool:post", MODULE_ID)
    assert [(m.message, m.level, m.source) for m in coordinator.display.messages] == [
        ("python-check: 1 issue in mod.py (ruff 1)", "warning", "python-check")
    ]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers; it is gone for every purpose once its parent reaped it
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[-1].startswith("Z"))


async def test_mypy_runs_through_its_daemon_and_cleanup_stops_it(
    project: Path, mypy_args: list[str]
) -> None:
    before = set(daemon_module._STARTED)
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    config = {"checks": ["mypy"], "args": {"mypy": mypy_args}}
    cleanup = await mount(coordinator, config)
    write(project, "calc.py", "def f(x: int) -> str:\n    return x\n")
    first = await emit(coordinator, "calc.py")
    (status_file,) = set(daemon_module._STARTED) - before
    pid = json.loads(status_file.read_text())["pid"]
    assert _alive(pid)
    assert first.context_injection is not None
    assert "calc.py:2:12: [mypy return-value] Incompatible return value type" in (
        first.context_injection
    )
    write(project, "calc.py", "def f(x: int) -> str:\n    return str(x)\n\n\ny: int = 'a'\n")
    second = await emit(coordinator, "calc.py")  # the same daemon, the file changed
    assert set(daemon_module._STARTED) - before == {status_file}
    assert second.context_injection is not None
    assert "calc.py:5:10: [mypy assignment]" in second.context_injection
    assert "return-value" not in second.context_injection

    plain = create_test_coordinator()
    plain.register_capability("session.working_dir", str(project))
    undo = await mount(plain, {**config, "mypy_daemon": False})
    try:
        alone = await emit(plain, "calc.py")
    finally:
        undo()
    assert alone.context_injection == second.context_injection  # the same findings either way

    cleanup()
    assert status_file not in daemon_module._STARTED
    for _ in range(200):  # a bound against a hang, not a timing assertion
        if not _alive(pid):
            break
        await asyncio.sleep(0.05)
    assert not _alive(pid)
