"""The config: defaults, the accepted spellings, and bad values rejected with a clear message."""

from __future__ import annotations

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_python_check import PythonCheckConfig, mount, parse_config


def test_defaults() -> None:
    config = parse_config(None)
    assert config == parse_config({})
    assert config.tools == ("write_file", "edit_file")
    assert config.file_patterns == ("*.py", "*.pyi")
    assert config.checks == ("ruff", "format", "mypy", "stubs")
    assert (config.commands.ruff, config.commands.mypy) == (None, None)
    assert (config.args.ruff, config.args.format) == ((), ())
    assert config.args.mypy == ("--follow-imports=silent",)
    assert config.timeout == 30.0
    assert config.max_issues == 10
    assert config.format_diff is False
    assert config.max_diff_lines == 40
    assert config.stub_markers == ("TODO", "FIXME", "XXX")
    assert config.report_clean is False
    assert config.working_dir is None
    assert config.priority == 50


def test_accepted_spellings() -> None:
    config = parse_config(
        {
            "checks": ["lint", "types", "stubs"],
            "commands": {"ruff": "uvx ruff@0.6.9", "mypy": ["python3", "-m", "mypy"]},
            "args": {"mypy": ["--strict"]},
        }
    )
    assert config.checks == ("ruff", "mypy", "stubs")
    assert config.commands.ruff == ("uvx", "ruff@0.6.9")
    assert config.commands.mypy == ("python3", "-m", "mypy")
    assert config.args.mypy == ("--strict",)  # replaces the default mypy arguments
    assert config.args.ruff == ()
    assert config.runs("mypy")
    assert not config.runs("format")
    assert parse_config({"checks": ["ruff", "lint", "stubs", "ruff"]}).checks == ("ruff", "stubs")
    assert isinstance(config, PythonCheckConfig)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"check": ["ruff"]},
            "check: unknown key 'check' (did you mean 'checks'?); expected one of: tools, "
            "file_patterns, checks, commands, args, "
            "timeout, max_issues, format_diff, max_diff_lines, stub_markers, report_clean, "
            "mypy_daemon, working_dir, priority",
        ),
        (
            {"checks": ["ruff", "pyright"]},
            "checks[1]: unknown check 'pyright'; expected one of: ruff, format, mypy, stubs, "
            "lint, types",
        ),
        ({"checks": "ruff"}, "checks: expected a list, got str 'ruff'"),
        ({"tools": []}, "tools: expected at least 1 item, got 0 items"),
        ({"tools": [" write_file"]}, "tools[0]: expected a tool name such as 'write_file'"),
        ({"file_patterns": [""]}, "file_patterns[0]: expected a file pattern such as '*.py'"),
        ({"commands": {"ruff": []}}, "commands.ruff: expected a command such as 'ruff'"),
        ({"commands": {"ruff": 'ruff "x'}}, "commands.ruff: cannot split 'ruff \"x' into"),
        (
            {"commands": {"pyright": "pyright"}},
            "commands.pyright: unknown key 'pyright'; expected one of: ruff, mypy",
        ),
        (
            {"args": {"stubs": []}},
            "args.stubs: unknown key 'stubs'; expected one of: ruff, format, mypy",
        ),
        ({"args": {"mypy": "--strict"}}, "args.mypy: expected a list, got str '--strict'"),
        ({"timeout": 0}, "timeout: expected a number greater than 0, got int 0"),
        ({"timeout": "soon"}, "timeout: expected a number, got str 'soon'"),
        ({"max_issues": 0}, "max_issues: expected a number at least 1, got int 0"),
        ({"max_diff_lines": -1}, "max_diff_lines: expected a number at least 1, got int -1"),
        ({"format_diff": "sometimes"}, "format_diff: expected true or false, got str 'sometimes'"),
        ({"report_clean": "maybe"}, "report_clean: expected true or false, got str 'maybe'"),
        ({"stub_markers": ["TO DO"]}, "stub_markers[0]: expected a marker word such as 'TODO'"),
        ({"working_dir": ""}, "working_dir: expected a non-empty string, got str ''"),
        ({"priority": "high"}, "priority: expected an integer, got str 'high'"),
        ("not a mapping", "config: expected a mapping of keys, got str 'not a mapping'"),
    ],
)
async def test_bad_config_is_rejected_clearly(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=r"^hooks-python-check: config: ") as caught:
        await mount(create_test_coordinator(), raw)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(ValueError) as caught:
        parse_config({"timeout": -1, "max_issues": 0})
    assert str(caught.value) == (
        "hooks-python-check: config: timeout: expected a number greater than 0, got int -1; "
        "max_issues: expected a number at least 1, got int 0"
    )
