"""Reading checker output, and turning runs into feedback: pure functions on recorded text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amplifier_module_hooks_python_check import (
    CheckRun,
    Issue,
    build_feedback,
    parse_mypy,
    parse_ruff_json,
)
from amplifier_module_hooks_python_check.checkers import first_change
from amplifier_module_hooks_python_check.parsers import ParseError
from amplifier_module_hooks_python_check.report import (
    MAX_INJECTION_BYTES,
    MAX_MESSAGE_CHARS,
    Feedback,
)


def ruff_item(
    filename: str, code: str | None, message: str, row: int = 1, column: int = 1
) -> dict[str, object]:
    return {
        "code": code,
        "filename": filename,
        "location": {"row": row, "column": column},
        "message": message,
    }


def test_ruff_json_keeps_the_checked_file_and_names_syntax_errors(tmp_path: Path) -> None:
    path = str(tmp_path / "mod.py")
    output = json.dumps(
        [
            ruff_item(path, "F401", "`os` imported but unused", 1, 8),
            ruff_item(str(tmp_path / "other.py"), "F401", "elsewhere"),
            ruff_item(path, None, "SyntaxError: Expected an expression", 3, 5),
            ruff_item("mod.py", "invalid-syntax", "Expected `)`", 4, 2),  # relative to cwd
        ]
    )
    issues = parse_ruff_json(output, path, str(tmp_path))
    assert issues == [
        Issue(1, 8, "ruff", "F401", "`os` imported but unused"),
        Issue(3, 5, "ruff", "syntax", "Expected an expression"),
        Issue(4, 2, "ruff", "syntax", "Expected `)`"),
    ]


@pytest.mark.parametrize("output", ["error: no such option", '{"not": "a list"}'])
def test_ruff_output_that_is_not_a_json_list_is_an_error(output: str) -> None:
    with pytest.raises(ParseError, match="ruff printed"):
        parse_ruff_json(output, "/x/mod.py", "/x")


def test_empty_ruff_output_is_no_issue() -> None:
    assert parse_ruff_json("", "/x/mod.py", "/x") == []
    assert parse_ruff_json("[]\n", "/x/mod.py", "/x") == []


def test_mypy_lines_keep_errors_of_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "mod.py")
    output = "\n".join(
        [
            f'{path}:2:12: error: Incompatible return value type (got "float", expected "int")'
            "  [return-value]",
            f"{path}:2:12: note: See https://mypy.rtfd.io for more",
            f"{tmp_path / 'other.py'}:1:1: error: Elsewhere  [misc]",
            f"{path}:5: error: No column here  [attr-defined]",
            f"{path}:7:3: error: A message without a code",
            "mod.py:9:1: error: Relative to the working directory  [name-defined]",
            "Found 4 errors in 2 files (checked 1 source file)",
        ]
    )
    assert parse_mypy(output, path, str(tmp_path)) == [
        Issue(
            2,
            12,
            "mypy",
            "return-value",
            'Incompatible return value type (got "float", expected "int")',
        ),
        Issue(5, 1, "mypy", "attr-defined", "No column here"),
        Issue(7, 3, "mypy", None, "A message without a code"),
        Issue(9, 1, "mypy", "name-defined", "Relative to the working directory"),
    ]


def test_first_change_skips_the_context_lines() -> None:
    diff = "--- a.py\n+++ a.py\n@@ -5,5 +5,6 @@\n     x\n     y\n \n+\n def g():\n"
    assert first_change(diff) == 8
    assert first_change("@@ -1 +1 @@\n-x=1\n+x = 1\n") == 1
    assert first_change("") is None


# ------------------------------------------------------------------------------ feedback


def run(check: str, *issues: Issue, **extra: object) -> CheckRun:
    return CheckRun(check, list(issues), **extra)  # type: ignore[arg-type]


def test_mypy_syntax_errors_are_dropped_when_ruff_reports_one() -> None:
    runs = [
        run("ruff", Issue(1, 7, "ruff", "syntax", "Expected a parameter")),
        run("mypy", Issue(1, 8, "mypy", "syntax", "Expected a parameter")),
    ]
    feedback = build_feedback("m.py", runs, max_issues=10)
    assert feedback.user_message == "python-check: 1 issue in m.py (ruff 1)"
    alone = build_feedback("m.py", runs[1:], max_issues=10)
    assert alone.user_message == "python-check: 1 issue in m.py (mypy 1)"


def test_long_messages_and_long_reports_are_cut() -> None:
    long = Issue(1, 1, "mypy", "misc", "word " * 200)
    line = build_feedback("m.py", [run("mypy", long)], max_issues=10).injection
    assert line is not None
    assert len(line.splitlines()[1]) == MAX_MESSAGE_CHARS
    assert line.splitlines()[1].endswith("...")

    many = [Issue(n, 1, "mypy", "misc", "x" * 300) for n in range(1, 100)]
    report = build_feedback("m.py", [run("mypy", *many)], max_issues=99).injection
    assert report is not None
    assert len(report.encode()) <= MAX_INJECTION_BYTES
    assert report.endswith("... (cut to stay within the injection size limit)")


def test_a_check_that_did_not_run_is_named_to_the_model_and_the_human() -> None:
    runs = [run("mypy", problem="mypy timed out after 5s"), run("ruff")]
    feedback = build_feedback("m.py", runs, max_issues=10, notes=["ruff is not available"])
    assert feedback.injection == (
        "python-check could not fully check m.py (ruff check found nothing):\n"
        "mypy did not run: mypy timed out after 5s"
    )
    assert feedback.user_message == (
        "python-check: m.py: mypy timed out after 5s; ruff is not available"
    )


def test_with_issues_the_checks_that_did_not_run_follow_them() -> None:
    issue = Issue(line=1, column=8, checker="ruff", code="F401", message="`os` imported but unused")
    runs = [run("ruff", issue), run("mypy", missing=("mypy", "not found"))]
    feedback = build_feedback("m.py", runs, max_issues=10)
    assert feedback.injection == (
        "python-check found 1 issue in m.py (ruff 1):\n"
        "m.py:1:8: [ruff F401] `os` imported but unused\n"
        "\n"
        "Not checked, so m.py may have more issues:\n"
        "mypy did not run: mypy is not available"
    )


def test_clean_is_silent_unless_asked_and_names_the_checks_that_ran() -> None:
    runs = [run("ruff"), run("stubs")]
    assert build_feedback("m.py", runs, max_issues=10) == Feedback(None, None)
    clean = build_feedback("m.py", runs, max_issues=10, report_clean=True)
    assert clean.injection == "python-check: m.py is clean (ruff, stubs)"
    assert clean.level == "info"
    missing = [run("ruff"), run("mypy", missing=("mypy", "not found")), run("stubs")]
    told = build_feedback("m.py", missing, max_issues=10)
    assert told.injection == (
        "python-check could not fully check m.py (ruff check, stubs found nothing):\n"
        "mypy did not run: mypy is not available"
    )
    assert told.user_message is None  # the human heard it when the module first found it missing


def test_a_relative_path_is_taken_from_the_checkers_directory(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "mod.py").write_text("x = 1\n")
    out = f"{tmp_path}/lib/mod.py:1:5: error: Bad  [misc]\n"
    found = parse_mypy(out, "../lib/mod.py", str(tmp_path / "work"))
    assert [(i.line, i.code) for i in found] == [(1, "misc")]
