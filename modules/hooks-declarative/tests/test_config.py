"""Hooks files: the proposal's YAML verbatim, every accepted shape, Claude Code blocks, the
module's config keys, and one clear error (file, line, key path, expectation) for bad input."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative import (
    CommandHookSpec,
    HookEntry,
    HookGroup,
    HooksConfigError,
    HooksDocument,
    LlmHookSpec,
    MatcherHookSpec,
    parse_claude_settings,
    parse_config,
    parse_hooks_data,
    parse_hooks_text,
)

FIXTURES = Path(__file__).parent / "fixtures"


def entries(document: HooksDocument) -> list[tuple[str, str, str]]:
    """(event, label, hook type) of every hook, groups flattened."""
    found: list[tuple[str, str, str]] = []
    for block in document.events:
        for step in block.steps:
            for entry in step.hooks if isinstance(step, HookGroup) else (step,):
                found.append((block.event, entry.label, entry.spec.type))
    return found


def only(document: HooksDocument) -> HookEntry:
    (block,) = document.events
    (step,) = block.steps
    assert isinstance(step, HookEntry)
    return step


# ----------------------------------------------------------------------- the proposal


def test_the_issue_example_loads_verbatim() -> None:
    text = (FIXTURES / "issue-example.yaml").read_text()
    document = parse_hooks_text(text, "~/.amplifier/hooks.yaml")
    assert [(b.name, b.event) for b in document.events] == [
        ("PreToolUse", "tool:pre"),
        ("PostToolUse", "tool:post"),
        ("SessionStart", "session:start"),
        ("SessionStop", "session:end"),
    ]
    assert entries(document) == [
        ("tool:pre", "~/.amplifier/hooks.yaml:hooks.PreToolUse[0]", "command"),
        ("tool:pre", "~/.amplifier/hooks.yaml:hooks.PreToolUse[1]", "matcher"),
        ("tool:post", "~/.amplifier/hooks.yaml:hooks.PostToolUse[0]", "command"),
        ("session:start", "~/.amplifier/hooks.yaml:hooks.SessionStart[0]", "command"),
        ("session:end", "~/.amplifier/hooks.yaml:hooks.SessionStop[0]", "command"),
    ]
    pre = document.events[0].steps
    command, matcher = (step.spec for step in pre if isinstance(step, HookEntry))
    assert command == CommandHookSpec(
        type="command",
        command="python ~/.amplifier/hooks/pre_tool.py",
        timeout_ms=5000,
        on_failure="warn",
    )
    assert isinstance(matcher, MatcherHookSpec)
    assert matcher.match.tool == "Bash"
    assert matcher.match.args == {"command": "rm *"}
    assert (matcher.action, matcher.message) == (
        "block",
        "Destructive rm commands require confirmation",
    )
    post = document.events[1].steps[0]
    assert isinstance(post, HookEntry)
    assert isinstance(post.spec, CommandHookSpec)
    assert post.spec.async_ is True
    assert post.spec.protocol == "amplifier"
    start = document.events[2].steps[0]
    assert isinstance(start, HookEntry)
    assert isinstance(start.spec, CommandHookSpec)
    assert start.spec.command == "echo 'Session started' >> ~/.amplifier/session.log"


def test_the_issue_hook_type_snippets_load() -> None:
    document = parse_hooks_text((FIXTURES / "issue-hook-types.yaml").read_text(), "t.yaml")
    command, matcher, llm = (
        step.spec for step in document.events[0].steps if isinstance(step, HookEntry)
    )
    assert isinstance(command, CommandHookSpec)
    assert (command.command, command.timeout_ms, command.async_) == ("path/to/script", 5000, False)
    assert isinstance(matcher, MatcherHookSpec)
    assert (matcher.match.tool, matcher.match.args) == ("Write", {"path": "**/.env*"})
    assert isinstance(llm, LlmHookSpec)
    assert (llm.model, llm.max_tokens, llm.cache) == ("claude-3-haiku", 100, True)
    assert "Tool: {{tool}}\nArgs: {{args}}\n" in llm.prompt


# ----------------------------------------------------------------------- shapes


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("PreToolUse", "tool:pre"),
        ("tool:pre", "tool:pre"),
        ("PromptSubmit", "prompt:submit"),
        ("UserPromptSubmit", "prompt:submit"),  # Claude Code's name works too
        ("ResponseComplete", "prompt:complete"),
        ("Stop", "prompt:complete"),
        ("SessionEnd", "session:end"),
        ("Notification", "user:notification"),
        ("Checkpoint", "session:checkpoint"),
        ("ModelSwitch", "provider:switch"),
        ("MemoryUpdate", "memory:update"),
        ("Error", "*:error"),
        ("*:error", "*:error"),
        ("provider:error", "provider:error"),
        ("context:include", "context:include"),
        ("my_plugin:done", "my_plugin:done"),  # a third-party module's event
    ],
)
def test_event_names(name: str, event: str) -> None:
    text = f"hooks:\n  {name!r}:\n    - {{type: matcher, match: {{}}, action: allow}}\n"
    document = parse_hooks_text(text, "h.yaml")
    assert [(b.name, b.event) for b in document.events] == [(name, event)]


def test_empty_documents_and_lists() -> None:
    assert parse_hooks_text("", "h.yaml").events == ()
    assert parse_hooks_text("hooks:\n", "h.yaml").events == ()
    assert parse_hooks_text("hooks:\n  PreToolUse:\n", "h.yaml").events == ()
    assert parse_hooks_text("hooks: {PreToolUse: []}", "h.yaml").events[0].steps == ()


def test_groups_parallel_and_matcher() -> None:
    text = """\
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash}
      action: ask
    - parallel: true
      matcher: "Write|Edit"
      hooks:
        - {type: command, command: ./lint.sh}
        - {type: llm, model: claude-3-haiku, prompt: "Safe? {{args}}"}
    - hooks:
        - {type: command, command: ./one.sh}
"""
    document = parse_hooks_text(text, "h.yaml")
    first, group, plain = document.events[0].steps
    assert isinstance(first, HookEntry)
    assert isinstance(group, HookGroup)
    assert (group.parallel, group.matcher, group.label) == (
        True,
        "Write|Edit",
        "h.yaml:hooks.PreToolUse[1]",
    )
    assert [e.label for e in group.hooks] == [
        "h.yaml:hooks.PreToolUse[1].hooks[0]",
        "h.yaml:hooks.PreToolUse[1].hooks[1]",
    ]
    assert isinstance(plain, HookGroup)
    assert (plain.parallel, plain.matcher) == (False, None)


def test_the_same_event_under_two_names_adds_up_in_file_order() -> None:
    text = """\
hooks:
  PreToolUse:
    - {type: matcher, match: {tool: a}, action: block}
  tool:pre:
    - {type: matcher, match: {tool: b}, action: block}
"""
    assert [label for _, label, _ in entries(parse_hooks_text(text, "h.yaml"))] == [
        "h.yaml:hooks.PreToolUse[0]",
        "h.yaml:hooks.tool:pre[0]",
    ]


def test_async_alias_and_every_command_key() -> None:
    text = """\
hooks:
  PostToolUse:
    - type: command
      command: ./log.sh
      timeout_ms: 250
      on_failure: ignore
      async: true
      env: {LOG_LEVEL: debug}
      max_output_bytes: 4096
      protocol: claude-code
"""
    spec = only(parse_hooks_text(text, "h.yaml")).spec
    assert spec == CommandHookSpec.model_validate(
        {
            "type": "command",
            "command": "./log.sh",
            "timeout_ms": 250,
            "on_failure": "ignore",
            "async": True,
            "env": {"LOG_LEVEL": "debug"},
            "max_output_bytes": 4096,
            "protocol": "claude-code",
        }
    )


# ----------------------------------------------------------------------- Claude Code


@pytest.mark.parametrize("nested", [False, True])
def test_claude_code_block_in_a_hooks_file(nested: bool) -> None:
    inner = """\
    PreToolUse:
      - matcher: "Bash"
        hooks:
          - type: command
            command: .claude/hooks/guard.sh
            timeout: 30
"""
    text = "claude_code:\n" + ("  hooks:\n" + inner if nested else inner[2:].replace("\n  ", "\n"))
    document = parse_hooks_text(text, "h.yaml")
    (group,) = document.events[0].steps
    assert isinstance(group, HookGroup)
    assert (group.parallel, group.matcher) == (True, "Bash")
    (entry,) = group.hooks
    assert isinstance(entry.spec, CommandHookSpec)
    assert entry.spec.protocol == "claude-code"
    assert entry.spec.timeout_ms == 30_000
    prefix = "claude_code.hooks" if nested else "claude_code"
    assert entry.label == f"h.yaml:{prefix}.PreToolUse[0].hooks[0]"


def test_claude_code_settings_file(caplog: pytest.LogCaptureFixture) -> None:
    document = parse_claude_settings(
        (FIXTURES / "claude-settings.json").read_text(), ".claude/settings.json"
    )
    assert [(b.name, b.event) for b in document.events] == [
        ("PreToolUse", "tool:pre"),
        ("UserPromptSubmit", "prompt:submit"),
        ("Stop", "prompt:complete"),
        ("SessionStart", "session:start"),
        ("SessionStart", "session:resume"),
    ]
    bash, write = document.events[0].steps
    assert isinstance(bash, HookGroup)
    assert isinstance(write, HookGroup)
    assert (bash.matcher, write.matcher) == ("Bash", "Write|Edit")
    spec = bash.hooks[0].spec
    assert isinstance(spec, CommandHookSpec)
    assert spec.command == '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check-bash.sh'
    assert spec.timeout_ms == 30_000
    assert write.hooks[0].spec.timeout_ms == 60_000  # type: ignore[union-attr]
    start, resume = document.events[3:]
    assert [h.spec.command for s in start.steps for h in s.hooks] == ["./boot.sh"]  # type: ignore[union-attr]
    assert [h.spec.command for s in resume.steps for h in s.hooks] == ["./resume.sh"]  # type: ignore[union-attr]


def test_claude_code_events_without_counterpart_are_skipped_and_prompt_hooks_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text = """{"hooks": {
      "TeammateIdle": [{"hooks": [{"type": "command", "command": "./x.sh"}]}],
      "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"},
                          {"type": "command", "command": "./y.sh"}]}]
    }, "model": "opus"}"""
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        document = parse_claude_settings(text, ".claude/settings.local.json")
    assert entries(document) == [
        ("prompt:complete", ".claude/settings.local.json:hooks.Stop[0].hooks[0]", "prompt"),
        ("prompt:complete", ".claude/settings.local.json:hooks.Stop[0].hooks[1]", "command"),
    ]
    assert "'TeammateIdle' is never fired here" in caplog.text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"hooks": {"PreToolUze": []}}',
            ".claude/settings.json:1: hooks.PreToolUze: unknown Claude Code event 'PreToolUze'",
        ),
        (
            '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [\n'
            '  {"type": "command", "command": "x", "timeout": "30s"}]}]}}',
            ".claude/settings.json:2: hooks.PreToolUse[0].hooks[0].timeout: expected a number "
            "of seconds greater than 0, got str '30s'",
        ),
        (
            '{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}}',
            "hooks.PreToolUse[0].matcher: invalid regular expression 'Bash('",
        ),
        (
            '{\n  "hooks": {\n    "Stop": [,]\n  }\n}',
            ".claude/settings.json:3: invalid JSON: Expecting value (column 14)",
        ),
        ("[1, 2]", "expected a JSON object (Claude Code settings), got a list"),
    ],
)
def test_bad_claude_code_settings(text: str, expected: str) -> None:
    with pytest.raises(HooksConfigError) as caught:
        parse_claude_settings(text, ".claude/settings.json")
    assert expected in str(caught.value)


def test_claude_settings_without_hooks_are_fine() -> None:
    assert parse_claude_settings('{"model": "opus"}', ".claude/settings.json").events == ()
    assert parse_claude_settings("", ".claude/settings.json").events == ()


# ----------------------------------------------------------------------- bad files

BAD_FILES: list[tuple[str, str]] = [
    (
        "hooks:\n  PreToolUse:\n    - type: command\n      command: ls\n      timout_ms: 5000\n",
        "hooks-declarative: .amplifier/hooks.yaml:5: hooks.PreToolUse[0].timout_ms: unknown key "
        "'timout_ms' (did you mean 'timeout_ms'?); expected one of: type, command, timeout_ms, "
        "on_failure, async, env, max_output_bytes, protocol",
    ),
    (
        "hooks:\n  PreToolUse:\n    - type: command\n     command: ls\n",
        "hooks-declarative: .amplifier/hooks.yaml:4: invalid YAML: expected <block end>, but "
        "found '<block mapping start>' (while parsing a block collection at line 3)",
    ),
    (
        "hooks:\n  PreToolUze:\n    - {type: command, command: ls}\n",
        "hooks-declarative: .amplifier/hooks.yaml:2: hooks.PreToolUze: unknown event "
        "'PreToolUze' (did you mean 'PreToolUse'?)",
    ),
    (
        "hooks:\n  tool:pree: []\n",
        "hooks-declarative: .amplifier/hooks.yaml:2: hooks.tool:pree: unknown event 'tool:pree' "
        "(did you mean 'tool:pre'?)",
    ),
    (
        "hooks:\n  TeammateIdle: []\n",
        "hooks.TeammateIdle: event 'TeammateIdle' (Claude Code) has no counterpart here",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: comand\n      command: ls\n",
        "hooks-declarative: .amplifier/hooks.yaml:3: hooks.tool:pre[0].type: unknown hook type "
        "'comand'; expected one of: command, matcher, llm",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: command\n      command: ls\n      on_failure: explode\n",
        "hooks-declarative: .amplifier/hooks.yaml:5: hooks.tool:pre[0].on_failure: expected one "
        "of 'warn', 'block' or 'ignore', got str 'explode'",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: command\n      command: ls\n      timeout_ms: 0\n",
        ".amplifier/hooks.yaml:5: hooks.tool:pre[0].timeout_ms: expected a number greater than "
        "0, got int 0",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: command\n      command: ''\n",
        ".amplifier/hooks.yaml:4: hooks.tool:pre[0].command: expected a non-empty string, got "
        "str ''",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: matcher\n      match: {tool: Bash, argz: {}}\n"
        "      action: block\n",
        ".amplifier/hooks.yaml:4: hooks.tool:pre[0].match.argz: unknown key 'argz' (did you "
        "mean 'args'?); expected one of: tool, args, regex",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: matcher\n      match: {tool: Bash}\n      action: deny\n",
        ".amplifier/hooks.yaml:5: hooks.tool:pre[0].action: expected one of 'block', 'allow' or "
        "'ask', got str 'deny'",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: matcher\n      action: block\n",
        ".amplifier/hooks.yaml:3: hooks.tool:pre[0].match: missing required key 'match'",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: matcher\n      match: {args: {command: '(x'}, "
        "regex: true}\n      action: block\n",
        ".amplifier/hooks.yaml:4: hooks.tool:pre[0].match.args.command: invalid regular "
        "expression: missing ), unterminated subpattern at position 0",
    ),
    (
        "hooks:\n  tool:pre:\n    - type: llm\n      model: haiku\n",
        ".amplifier/hooks.yaml:3: hooks.tool:pre[0].prompt: missing required key 'prompt'",
    ),
    (
        "hooks:\n  tool:pre: []\n  tool:pre: []\n",
        ".amplifier/hooks.yaml:3: hooks.tool:pre: duplicate key 'tool:pre' (first at line 2)",
    ),
    (
        "hook:\n  tool:pre: []\n",
        ".amplifier/hooks.yaml:1: hook: unknown key 'hook' (did you mean 'hooks'?); expected "
        "one of: hooks, claude_code",
    ),
    (
        "hooks:\n  tool:pre:\n    - ls\n",
        ".amplifier/hooks.yaml:3: hooks.tool:pre[0]: expected a hook (a mapping with 'type: "
        "command | matcher | llm') or a group (a mapping with 'hooks:'), got str 'ls'",
    ),
    (
        "hooks:\n  tool:pre:\n    type: command\n",
        ".amplifier/hooks.yaml:3: hooks.tool:pre: expected a list of hooks, got a mapping",
    ),
    (
        "hooks:\n  - PreToolUse\n",
        ".amplifier/hooks.yaml:2: hooks: expected a mapping of event name to a list of hooks, "
        "got a list",
    ),
    (
        "hooks:\n  tool:pre:\n    - parallel: yes please\n      hooks: []\n",
        ".amplifier/hooks.yaml:3: hooks.tool:pre[0].parallel: expected true or false, got str "
        "'yes please'",
    ),
    (
        "hooks:\n  tool:pre:\n    - parallel: true\n      hooks:\n        - hooks: []\n",
        ".amplifier/hooks.yaml:5: hooks.tool:pre[0].hooks[0]: groups cannot be nested",
    ),
    (
        "hooks:\n  tool:pre:\n    - hooks: []\n      paralel: true\n",
        ".amplifier/hooks.yaml:4: hooks.tool:pre[0].paralel: unknown key 'paralel' (did you "
        "mean 'parallel'?); expected one of: hooks, parallel, matcher",
    ),
    (
        "- just a list\n",
        ".amplifier/hooks.yaml:1: expected a mapping with 'hooks:', got a list",
    ),
    (
        "claude_code:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        "        - {type: command, command: x, timeout: 0}\n",
        ".amplifier/hooks.yaml:5: claude_code.PreToolUse[0].hooks[0].timeout: expected a number "
        "of seconds greater than 0, got int 0",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD_FILES)
def test_bad_files_give_one_error_with_line_and_key_path(text: str, expected: str) -> None:
    with pytest.raises(HooksConfigError) as caught:
        parse_hooks_text(text, ".amplifier/hooks.yaml")
    assert expected in str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert caught.value.source == ".amplifier/hooks.yaml"


def test_several_problems_are_one_error_sorted_by_line() -> None:
    text = (
        "hooks:\n  tool:pre:\n    - type: command\n      command: ls\n      timout: 1\n"
        "    - type: matcher\n      match: {}\n      action: nope\n"
    )
    with pytest.raises(HooksConfigError) as caught:
        parse_hooks_text(text, "h.yaml")
    message = str(caught.value)
    assert message.startswith("hooks-declarative: h.yaml: 2 problems:\n")
    first, second = message.splitlines()[1:]
    assert first.strip().startswith("h.yaml:5: hooks.tool:pre[0].timout: unknown key")
    assert second.strip().startswith("h.yaml:8: hooks.tool:pre[1].action: expected one of")
    assert [p.line for p in caught.value.problems] == [5, 8]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "hooks: &h\n  PreToolUse: [*h]\n",
            ".amplifier/hooks.yaml:1: hooks.PreToolUse[0]: expected a hook (a mapping with 'type: "
            "command | matcher | llm') or a group (a mapping with 'hooks:'), got a mapping",
        ),
        (
            "hooks:\n  PreToolUse: &l [*l]\n",
            ".amplifier/hooks.yaml:2: hooks.PreToolUse[0]: expected a hook",
        ),
        (
            "hooks: {PreToolUse: " + "[" * 5000 + "]" * 5000 + "}\n",
            ".amplifier/hooks.yaml:1: invalid YAML: found collections nested more than",
        ),
        ("a: &a {b: 1, <<: *a}\n", "merges this mapping into itself"),
    ],
)
def test_cycles_and_deep_nesting_are_reported_not_followed(text: str, expected: str) -> None:
    with pytest.raises(HooksConfigError) as caught:
        parse_hooks_text(text, ".amplifier/hooks.yaml")
    assert expected in str(caught.value)


def test_json_nested_too_deeply_is_an_error() -> None:
    with pytest.raises(HooksConfigError) as caught:
        parse_claude_settings('{"hooks": ' + "[" * 100_000 + "]" * 100_000 + "}", "s.json")
    assert "s.json: invalid JSON: nested too deeply" in str(caught.value)


def test_json_hooks_files_have_lines_too() -> None:
    text = (
        '{\n\t"hooks": {\n\t\t"PreToolUse": [\n'
        '\t\t\t{"type": "matcher", "match": {}, "acton": "block"}\n\t\t]\n\t}\n}\n'
    )
    with pytest.raises(HooksConfigError) as caught:
        parse_hooks_text(text, "hooks.json", json_text=True)
    assert "hooks.json:4: hooks.PreToolUse[0].acton: unknown key 'acton'" in str(caught.value)


# ----------------------------------------------------------------------- inline config


def test_inline_config_hooks_are_labelled_config() -> None:
    document = parse_hooks_data(
        {
            "hooks": {
                "PreToolUse": [{"type": "matcher", "match": {"tool": "Bash"}, "action": "ask"}]
            }
        },
        "config",
    )
    assert entries(document) == [("tool:pre", "config:hooks.PreToolUse[0]", "matcher")]


def test_inline_config_errors_start_like_every_config_error() -> None:
    with pytest.raises(ValueError) as caught:
        parse_hooks_data({"hooks": {"PreToolUse": [{"type": "command"}]}}, "config")
    assert str(caught.value) == (
        "hooks-declarative: config: hooks.PreToolUse[0].command: missing required key 'command'"
    )


# ----------------------------------------------------------------------- module config keys


def test_config_defaults() -> None:
    config = parse_config(None)
    assert config.model_dump() == {
        "hooks": None,
        "hooks_origin": None,
        "files": [],
        "project_dir": None,
        "user_dir": None,
        "include_user": True,
        "include_project": True,
        "claude_code": True,
        "gemini": True,
        "cursor": True,
        "codex": True,
        "factory": True,
        "copilot": True,
        "windsurf": True,
        "cline": True,
        "cursor_version": "2.4.0",
        "plugins": [],
        "disabled_plugins": [],
        "hook_shell": True,
        "priority": 0,
        "async_grace_s": 5.0,
        "strict": True,
        "environment": "inherit",
        "pass_env": [],
        "sandbox": False,
        "sandbox_sources": [],
        "observe_sources": [],
        "sandbox_write_paths": [],
        "http_env_vars": [],
        "prompt_provider": None,
        "prompt_model": None,
        "prompt_on_failure": "warn",
        "agent_max_turns": 50,
    }
    assert parse_config({}) == config


def test_every_config_key_is_accepted() -> None:
    raw: dict[str, Any] = {
        "hooks": {"PreToolUse": []},
        "hooks_origin": {
            "file": "/p/bundle.yaml",
            "lines": {"hooks.PreToolUse": 9},
            "files": {"hooks.PreToolUse": "/p/base.yaml"},
        },
        "files": ["extra.yaml"],
        "project_dir": "/p",
        "user_dir": "/u",
        "include_user": False,
        "include_project": False,
        "claude_code": False,
        "gemini": False,
        "cursor": False,
        "codex": False,
        "factory": False,
        "copilot": False,
        "windsurf": False,
        "cline": False,
        "cursor_version": "1.7.52",
        "plugins": ["plugins/security-guard", "~/marketplaces/acme"],
        "disabled_plugins": ["lint@acme"],
        "hook_shell": False,
        "priority": -10,
        "async_grace_s": 0.5,
        "strict": True,
        "environment": "minimal",
        "pass_env": ["GIT_*"],
        "sandbox": "project",
        "sandbox_sources": ["plugin guard*"],
        "observe_sources": ["config"],
        "sandbox_write_paths": ["~/.cache/guard"],
        "http_env_vars": ["GUARD_TOKEN"],
        "prompt_provider": "guard",
        "prompt_model": "gpt-4o-mini",
        "prompt_on_failure": "block",
        "agent_max_turns": 5,
    }
    assert parse_config(raw).model_dump() == raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"hookz": {}},
            "hooks-declarative: config: hookz: unknown key 'hookz' (did you mean 'hooks'?); "
            "expected one of: hooks, hooks_origin, files, project_dir, user_dir, include_user, "
            "include_project, claude_code, gemini, cursor, codex, factory, copilot, windsurf, "
            "cline, cursor_version, plugins, disabled_plugins, hook_shell, priority, "
            "async_grace_s, strict, environment, pass_env, "
            "sandbox, sandbox_sources, observe_sources, sandbox_write_paths, http_env_vars, "
            "prompt_provider, prompt_model, prompt_on_failure, agent_max_turns",
        ),
        ({"files": "a.yaml"}, "hooks-declarative: config: files: expected a list, got str"),
        ({"files": [3]}, "hooks-declarative: config: files[0]: expected a string, got int 3"),
        ({"project_dir": 1}, "hooks-declarative: config: project_dir: expected a string"),
        ({"user_dir": ["x"]}, "hooks-declarative: config: user_dir: expected a string"),
        ({"include_user": "no"}, "hooks-declarative: config: include_user: expected true or false"),
        ({"include_project": 1}, "config: include_project: expected true or false, got int 1"),
        ({"claude_code": "yes"}, "hooks-declarative: config: claude_code: expected true or false"),
        ({"priority": "high"}, "hooks-declarative: config: priority: expected an integer"),
        ({"async_grace_s": -1}, "config: async_grace_s: expected a number at least 0"),
        ({"async_grace_s": "5s"}, "config: async_grace_s: expected a number, got str '5s'"),
        (["hooks"], "hooks-declarative: config: expected a mapping of keys, got a list"),
    ],
)
def test_bad_config_keys(raw: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_config(raw)
    assert str(caught.value).startswith("hooks-declarative: config")
    assert message in str(caught.value)


# ----------------------------------------------------------------------- the README


README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_shows_the_issue_example_and_documents_every_key() -> None:
    text = README.read_text()
    example = (FIXTURES / "issue-example.yaml").read_text()
    assert f"```yaml\n{example}```" in text
    config_rows = {
        line.split("|")[1].strip().strip("`")
        for line in text.split("## Config", 1)[1].splitlines()
        if line.startswith("| `")
    }
    assert config_rows == set(parse_config({}).model_dump())
    for model in (CommandHookSpec, MatcherHookSpec, LlmHookSpec):
        for name, field in model.model_fields.items():
            if name in ("type", "match"):
                continue
            assert f"| `{field.alias or name}` |" in text, (model.__name__, name)
