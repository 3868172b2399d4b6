"""Dispatch through a real registry: declaration order, block and modify chaining, parallel
groups and their combination, fire-and-forget hooks, failures, ``Error``, registration.

Command hooks here are stand-in runners whose ``command`` is a JSON script of what they decide
(and how long they take); matcher hooks are the real ones.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.models import HookResult
from amplifier_core.testing import MockCoordinator, create_test_coordinator
from amplifier_module_hooks_declarative import (
    CommandHookSpec,
    Decision,
    HookContext,
    HookSpec,
    LlmHookSpec,
    MatcherHookSpec,
    MatcherRunner,
    Runner,
    default_runner_factory,
    mount,
)
from amplifier_module_hooks_declarative.dispatch import Dispatcher

Cleanup = Callable[[], Awaitable[None]]


class Journal:
    """What the stand-ins did, in order, and the gates they wait on."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, Any]] = []
        self.contexts: dict[str, HookContext] = {}
        self.gates: dict[str, asyncio.Event] = {}
        self.arrived: dict[str, int] = {}

    def gate(self, name: str) -> asyncio.Event:
        return self.gates.setdefault(name, asyncio.Event())

    def of(self, what: str) -> list[str]:
        return [label for kind, label, _ in self.entries if kind == what]


class StandIn:
    """A runner whose command text is a JSON script: the Decision's fields, plus ``delay``,
    ``gate`` (wait for the journal's event), ``barrier`` (wait until N runners arrived),
    ``raise`` and ``garbage``."""

    def __init__(self, spec: CommandHookSpec, label: str, journal: Journal) -> None:
        self.spec = spec
        self.label = label
        self.journal = journal
        self.script: dict[str, Any] = json.loads(spec.command)

    async def run(self, context: HookContext) -> Decision:
        script = dict(self.script)
        self.journal.entries.append(("start", self.label, dict(context.args)))
        self.journal.contexts[self.label] = context
        try:
            if "delay" in script:
                await asyncio.sleep(script.pop("delay"))
            if "gate" in script:
                await self.journal.gate(script.pop("gate")).wait()
            if "barrier" in script:
                name, size = script.pop("barrier")
                self.journal.arrived[name] = self.journal.arrived.get(name, 0) + 1
                if self.journal.arrived[name] >= size:
                    self.journal.gate(name).set()
                await asyncio.wait_for(self.journal.gate(name).wait(), 2.0)
        except asyncio.CancelledError:
            self.journal.entries.append(("cancelled", self.label, None))
            raise
        if script.pop("raise", False):
            raise RuntimeError("stand-in exploded")
        if script.pop("garbage", False):
            return "not a decision"  # type: ignore[return-value]
        self.journal.entries.append(("done", self.label, None))
        return Decision(**script)


def factory(journal: Journal, project_dir: str = "/project") -> Callable[[HookSpec, str], Runner]:
    def build(spec: HookSpec, label: str) -> Runner:
        if isinstance(spec, CommandHookSpec):
            return StandIn(spec, label, journal)
        if isinstance(spec, MatcherHookSpec):
            return MatcherRunner(spec, label=label, project_dir=project_dir)
        raise AssertionError(f"no stand-in for {spec!r}")

    return build


def cmd(**script: Any) -> dict[str, Any]:
    """A stand-in command hook; ``async_``/``timeout_ms``/``on_failure`` go to the spec."""
    spec: dict[str, Any] = {"type": "command"}
    for key in ("timeout_ms", "on_failure"):
        if key in script:
            spec[key] = script.pop(key)
    if "async_" in script:
        spec["async"] = script.pop("async_")
    spec["command"] = json.dumps(script)
    return spec


async def mounted(
    hooks: dict[str, Any], journal: Journal, coordinator: Any = None, **config: Any
) -> tuple[Any, Cleanup]:
    coordinator = coordinator or create_test_coordinator()
    settings = {"include_user": False, "include_project": False, "hooks": hooks, **config}
    cleanup = await mount(coordinator, settings, runner_factory=factory(journal))
    return coordinator, cleanup


def bash(command: str) -> dict[str, Any]:
    return {
        "tool_name": "bash",
        "tool": "bash",
        "tool_input": {"command": command},
        "input": {"command": command},
        "tool_call_id": "call-1",
    }


L = "config:hooks.PreToolUse"


# ----------------------------------------------------------------------- sequential


async def test_hooks_run_in_declaration_order_and_allow_continues() -> None:
    journal = Journal()
    hooks = {"PreToolUse": [cmd(action="continue"), cmd(action="allow"), cmd()]}
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert result.action == "continue"
    assert journal.of("done") == [f"{L}[0]", f"{L}[1]", f"{L}[2]"]
    await cleanup()


async def test_a_block_stops_the_rest() -> None:
    journal = Journal()
    hooks = {
        "PreToolUse": [
            cmd(action="allow"),
            {
                "type": "matcher",
                "match": {"tool": "Bash", "args": {"command": "rm *"}},
                "action": "block",
                "message": "Destructive rm commands require confirmation",
            },
            cmd(action="allow"),
        ]
    }
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("rm -rf build"))
    assert result.action == "deny"
    assert result.reason == "Destructive rm commands require confirmation"
    assert result.source == f"{L}[1]"
    assert journal.of("start") == [f"{L}[0]"]
    journal.entries.clear()
    assert (await coordinator.hooks.emit("tool:pre", bash("ls"))).action == "continue"
    assert journal.of("start") == [f"{L}[0]", f"{L}[2]"]
    await cleanup()


async def test_stop_is_a_deny_that_also_stops_the_rest() -> None:
    journal = Journal()
    hooks = {"PreToolUse": [cmd(stop=True, message="tests are red"), cmd(action="allow")]}
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert (result.action, result.reason) == ("deny", "tests are red")
    assert journal.of("start") == [f"{L}[0]"]
    await cleanup()


async def test_modify_feeds_the_next_hook_and_ends_in_tool_input() -> None:
    journal = Journal()
    hooks = {
        "PreToolUse": [
            cmd(action="modify", modified_args={"command": "ls -la", "timeout": 5}),
            cmd(action="modify", modified_args={"command": "ls -la --color=never"}),
            cmd(action="allow"),
        ]
    }
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    seen = [args for kind, _, args in journal.entries if kind == "start"]
    assert seen == [
        {"command": "ls"},
        {"command": "ls -la", "timeout": 5},
        {"command": "ls -la --color=never", "timeout": 5},
    ]
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["tool_input"] == {"command": "ls -la --color=never", "timeout": 5}
    assert result.data["input"] == result.data["tool_input"]
    assert journal.contexts[f"{L}[2]"].data["tool_input"] == result.data["tool_input"]
    await cleanup()


async def test_modify_at_prompt_submit_changes_the_prompt() -> None:
    journal = Journal()
    hooks = {"PromptSubmit": [cmd(action="modify", modified_args={"prompt": "Be brief. hi"})]}
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("prompt:submit", {"prompt": "hi", "turn": 1})
    assert result.action == "continue"
    assert result.data is not None
    assert (result.data["prompt"], result.data["turn"]) == ("Be brief. hi", 1)
    await cleanup()


async def test_ask_does_not_stop_the_others_and_a_later_block_wins() -> None:
    journal = Journal()
    hooks = {
        "PreToolUse": [cmd(action="ask", message="Push?"), cmd(action="block", message="frozen")]
    }
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("git push"))
    assert (result.action, result.reason) == ("deny", "frozen")
    assert journal.of("done") == [f"{L}[0]", f"{L}[1]"]
    await cleanup()


async def test_ask_alone_asks_the_human_through_the_coordinator() -> None:
    journal = Journal()
    coordinator = MockCoordinator(approval="deny")
    hooks = {"PreToolUse": [cmd(action="ask", message="Push to origin?")]}
    _, cleanup = await mounted(hooks, journal, coordinator)
    result = await coordinator.hooks.emit("tool:pre", bash("git push"))
    assert result.action == "ask_user"
    assert result.approval_options == ["Allow once", "Allow always", "Deny"]
    handled = await coordinator.process_hook_result(result, "tool:pre", "hooks")
    assert handled.action == "deny"
    # a fixed message: the kernel adds the tool and its input to what the human sees
    assert coordinator.approvals.requests == [
        'Push to origin?\n\nTool: bash\nInput: {\n  "command": "git push"\n}'
    ]
    await cleanup()


# ----------------------------------------------------------------------- parallel


async def test_a_parallel_group_runs_concurrently_and_combines() -> None:
    journal = Journal()
    group = {
        "parallel": True,
        "hooks": [
            cmd(barrier=["g", 3], action="modify", modified_args={"command": "ls -1", "n": 1}),
            cmd(barrier=["g", 3], action="allow", message="fine by me"),
            cmd(barrier=["g", 3], action="modify", modified_args={"command": "ls -la"}),
        ],
    }
    coordinator, cleanup = await mounted({"PreToolUse": [group, cmd(action="allow")]}, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert sorted(journal.of("done")[:3]) == [f"{L}[0].hooks[{i}]" for i in range(3)]
    starts = [
        args for kind, label, args in journal.entries if kind == "start" and "hooks[" in label
    ]
    assert starts == [{"command": "ls"}] * 3  # all saw the same arguments
    assert journal.contexts[f"{L}[1]"].args == {"command": "ls -la", "n": 1}  # later wins
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["tool_input"] == {"command": "ls -la", "n": 1}
    assert [m.message for m in result.user_messages] == ["fine by me"]
    await cleanup()


async def test_parallel_precedence_block_over_ask_and_every_message_kept() -> None:
    journal = Journal()
    group = {
        "parallel": True,
        "hooks": [
            cmd(action="ask", message="sure?"),
            cmd(action="block", message="no: policy A"),
            cmd(action="block", message="no: policy B", delay=0.01),
            cmd(message="note from D", level="warning"),
        ],
    }
    coordinator, cleanup = await mounted({"PreToolUse": [group, cmd(action="allow")]}, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert result.action == "deny"
    assert result.reason == "no: policy A; no: policy B"
    assert result.source == f"{L}[0].hooks[1]"
    assert [m.message for m in result.user_messages] == ["note from D"]
    assert f"{L}[1]" not in journal.of("start")  # the block ended the later steps
    await cleanup()


async def test_a_group_matcher_selects_tools() -> None:
    journal = Journal()
    group = {"matcher": "Write|Edit", "hooks": [cmd(action="block", message="formatting")]}
    coordinator, cleanup = await mounted({"PreToolUse": [group]}, journal)
    edit = await coordinator.hooks.emit(
        "tool:pre", {"tool_name": "edit_file", "tool_input": {"file_path": "a.py"}}
    )
    assert edit.action == "deny"
    assert (await coordinator.hooks.emit("tool:pre", bash("ls"))).action == "continue"
    assert journal.of("start") == [f"{L}[0].hooks[0]"]
    await cleanup()


# ----------------------------------------------------------------------- fire and forget


async def test_async_hooks_never_delay_or_change_the_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    journal = Journal()
    hooks = {
        "PostToolUse": [
            cmd(async_=True, gate="release", action="block", message="late"),
            cmd(action="allow"),
        ]
    }
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:post", bash("ls"))
    assert result.action == "continue"
    post = "config:hooks.PostToolUse"
    assert journal.of("done") == [f"{post}[1]"]
    await asyncio.sleep(0)  # the background hook starts on the next turn of the loop
    assert sorted(journal.of("start")) == [f"{post}[0]", f"{post}[1]"]
    with caplog.at_level(logging.INFO, logger="amplifier_module_hooks_declarative"):
        journal.gate("release").set()
        await cleanup()
    assert journal.of("done") == [f"{post}[1]", f"{post}[0]"]
    assert f"async hook {post}[0] decided 'block' after the event went on" in caplog.text


async def test_cleanup_lets_running_async_hooks_finish_within_the_grace() -> None:
    journal = Journal()
    hooks = {"SessionStop": [cmd(async_=True, delay=0.1, message="report written")]}
    coordinator, cleanup = await mounted(hooks, journal, async_grace_s=5)
    await coordinator.hooks.emit("session:end", {"status": "completed"})
    await cleanup()
    assert journal.of("done") == ["config:hooks.SessionStop[0]"]


async def test_cleanup_cancels_async_hooks_after_the_grace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    journal = Journal()
    hooks = {"PostToolUse": [cmd(async_=True, delay=30)]}
    coordinator, cleanup = await mounted(hooks, journal, async_grace_s=0.05)
    await coordinator.hooks.emit("tool:post", bash("ls"))
    started = time.perf_counter()
    await cleanup()
    assert time.perf_counter() - started < 20  # the hook sleeps 30 s: cancelled
    assert journal.of("cancelled") == ["config:hooks.PostToolUse[0]"]
    assert "cancelled 1 async hook(s) still running after 0.05s" in caplog.text


async def test_async_in_a_parallel_group_is_not_waited_for() -> None:
    journal = Journal()
    group = {"parallel": True, "hooks": [cmd(async_=True, gate="never"), cmd(action="allow")]}
    coordinator, cleanup = await mounted({"PreToolUse": [group]}, journal, async_grace_s=0)
    assert (await coordinator.hooks.emit("tool:pre", bash("ls"))).action == "continue"
    await cleanup()
    assert journal.of("cancelled") == [f"{L}[0].hooks[0]"]


# ----------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    ("on_failure", "action"), [("warn", "continue"), ("block", "deny"), ("ignore", "continue")]
)
@pytest.mark.parametrize("failure", ["raise", "garbage"])
async def test_a_broken_runner_follows_on_failure(
    failure: str, on_failure: str, action: str
) -> None:
    journal = Journal()
    hooks = {"PreToolUse": [cmd(on_failure=on_failure, **{failure: True})]}
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert result.action == action
    problem = (
        "the runner raised RuntimeError: stand-in exploded"
        if failure == "raise"
        else "the runner returned str, not a Decision"
    )
    if on_failure == "block":
        assert result.reason == f"hook {L}[0] failed: {problem}"
    elif on_failure == "warn":
        assert [(m.message, m.level) for m in result.user_messages] == [
            (f"hook {L}[0] failed: {problem}", "warning")
        ]
    else:
        assert result.user_messages == []
    await cleanup()


# ----------------------------------------------------------------------- events


async def test_error_covers_every_error_event_in_declaration_order() -> None:
    journal = Journal()
    hooks = {"Error": [cmd(message="any error")], "tool:error": [cmd(message="tool error")]}
    coordinator, cleanup = await mounted(hooks, journal)
    handlers = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
    assert handlers == {"*:error": ["hooks-declarative:*:error"]}
    tool = await coordinator.hooks.emit("tool:error", {"tool_name": "bash", "error": {}})
    assert [m.message for m in tool.user_messages] == ["any error", "tool error"]
    provider = await coordinator.hooks.emit("provider:error", {"error": {}})
    assert [m.message for m in provider.user_messages] == ["any error"]
    custom = await coordinator.hooks.emit("my_module:error", {})
    assert [m.message for m in custom.user_messages] == ["any error"]
    assert journal.contexts["config:hooks.Error[0]"].alias == "Error"
    await cleanup()


def test_without_wildcards_error_expands_to_the_known_error_events() -> None:
    dispatcher = Dispatcher([], project_dir="/p")
    assert dispatcher.subscriptions(wildcard=False) == []
    from amplifier_module_hooks_declarative import parse_hooks_data, plan_steps

    document = parse_hooks_data(
        {"hooks": {"PreToolUse": [cmd()], "Error": [cmd()], "my_module:error": [cmd()]}}, "config"
    )
    dispatcher = Dispatcher(plan_steps([document], factory(Journal())), project_dir="/p")
    assert dispatcher.subscriptions(wildcard=False) == [
        "tool:pre",
        "my_module:error",
        "provider:error",
        "tool:error",
    ]
    assert dispatcher.subscriptions(wildcard=True) == ["tool:pre", "*:error"]


async def test_the_context_each_hook_gets(tmp_path: Path) -> None:
    journal = Journal()
    coordinator = create_test_coordinator(session_id="sess-42")
    hooks = {
        "PreToolUse": [cmd()],
        "tool:pre": [cmd()],
        "UserPromptSubmit": [cmd()],
        "session:start": [cmd()],
    }
    _, cleanup = await mounted(hooks, journal, coordinator, project_dir=str(tmp_path))
    await coordinator.hooks.emit("tool:pre", bash("ls"))
    await coordinator.hooks.emit("prompt:submit", {"prompt": "hi"})
    await coordinator.hooks.emit("session:start", {})
    pascal = journal.contexts["config:hooks.PreToolUse[0]"]
    assert (pascal.event, pascal.alias, pascal.tool, pascal.args) == (
        "tool:pre",
        "PreToolUse",
        "bash",
        {"command": "ls"},
    )
    assert pascal.session_id == "sess-42"
    assert pascal.project_dir == str(tmp_path)
    assert pascal.timestamp.endswith("+00:00")
    assert pascal.data["tool_call_id"] == "call-1"
    assert journal.contexts["config:hooks.tool:pre[0]"].alias == "PreToolUse"
    prompt = journal.contexts["config:hooks.UserPromptSubmit[0]"]
    assert (prompt.alias, prompt.tool, prompt.args) == ("UserPromptSubmit", None, {})
    assert journal.contexts["config:hooks.session:start[0]"].alias == "SessionStart"
    await cleanup()


async def test_context_beside_a_modify_reaches_the_agent() -> None:
    journal = Journal()
    hooks = {
        "PreToolUse": [
            cmd(
                action="modify",
                modified_args={"command": "ls -a"},
                context="Hidden files are listed too.",
            )
        ]
    }
    coordinator, cleanup = await mounted(hooks, journal)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert result.action == "inject_context"  # the kernel keeps both the change and the context
    assert result.data is not None
    assert result.data["tool_input"] == {"command": "ls -a"}
    assert [i.content for i in result.context_injections] == ["Hidden files are listed too."]
    await coordinator.process_hook_result(result, "tool:pre", "hooks")
    messages = await coordinator.injections.own_context.get_messages()
    assert [m["content"] for m in messages] == ["Hidden files are listed too."]  # exactly once
    assert messages[0]["metadata"]["hook_name"] == f"{L}[0]"
    await cleanup()


async def test_context_alone_is_an_injection() -> None:
    journal = Journal()
    coordinator, cleanup = await mounted({"SessionStart": [cmd(context="Branch: main")]}, journal)
    result = await coordinator.hooks.emit("session:start", {})
    assert result.action == "inject_context"
    assert [(i.content, i.hook_name) for i in result.context_injections] == [
        ("Branch: main", "config:hooks.SessionStart[0]")
    ]
    await cleanup()


# ----------------------------------------------------------------------- registration


async def test_priority_timeout_budget_and_fail_closed() -> None:
    journal = Journal()
    hooks = {
        "PreToolUse": [
            cmd(timeout_ms=1500),
            {"parallel": True, "hooks": [cmd(timeout_ms=2000), cmd(timeout_ms=500)]},
            cmd(timeout_ms=60_000, async_=True),  # never waited for
            {"type": "matcher", "match": {"tool": "Bash"}, "action": "ask"},
        ],
        "PostToolUse": [cmd(on_failure="block", timeout_ms=1000)],
    }
    coordinator = create_test_coordinator()
    coordinator.hooks.register("tool:pre", lambda e, d: None, priority=0, name="other")
    _, cleanup = await mounted(hooks, journal, coordinator, priority=-5)
    (pre, other) = coordinator.hooks.handlers_for("tool:pre")
    assert (pre.name, pre.priority, other.name) == ("hooks-declarative:tool:pre", -5, "other")
    assert pre.timeout == pytest.approx(1.5 + 2.0 + 5.0)
    assert pre.fail_closed is False
    (post,) = coordinator.hooks.handlers_for("tool:post")
    assert post.timeout == pytest.approx(6.0)
    assert post.fail_closed is True
    await cleanup()
    assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": ["other"]}


async def test_cleanup_unregisters_everything_and_twice_is_harmless() -> None:
    journal = Journal()
    hooks = {"PreToolUse": [cmd()], "SessionStart": [cmd()], "Error": [cmd()]}
    coordinator, cleanup = await mounted(hooks, journal)
    assert sorted(k for k, v in coordinator.hooks.list_handlers().items() if v) == [
        "*:error",
        "session:start",
        "tool:pre",
    ]
    await cleanup()
    await cleanup()
    assert {k: v for k, v in coordinator.hooks.list_handlers().items() if v} == {}
    await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert journal.entries == []


async def test_no_hooks_registers_nothing() -> None:
    coordinator, cleanup = await mounted({}, Journal())
    assert {k: v for k, v in coordinator.hooks.list_handlers().items() if v} == {}
    await cleanup()


async def test_mount_rejects_bad_config_and_bad_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^hooks-declarative: config: prority: unknown key"):
        await mount(create_test_coordinator(), {"prority": 1})
    with pytest.raises(ValueError, match=r"^hooks-declarative: config: hooks.PreToolUse\[0\]"):
        await mount(
            create_test_coordinator(),
            {
                "include_user": False,
                "include_project": False,
                "hooks": {"PreToolUse": [{"type": "matcher", "match": {}}]},
            },
        )
    with pytest.raises(TypeError, match="has no hook registry"):
        await mount(object(), {"include_user": False, "include_project": False})


def test_the_default_factory_builds_each_runner_type(tmp_path: Path) -> None:
    from amplifier_module_hooks_declarative.runners.command import CommandRunner
    from amplifier_module_hooks_declarative.runners.llm import LlmRunner

    build = default_runner_factory(str(tmp_path))
    command = build(CommandHookSpec(type="command", command="true"), "f:hooks.X[0]")
    assert isinstance(command, CommandRunner)
    assert (command.label, command.project_dir) == ("f:hooks.X[0]", str(tmp_path))
    matcher = build(
        MatcherHookSpec.model_validate({"type": "matcher", "match": {}, "action": "allow"}), "m"
    )
    assert isinstance(matcher, MatcherRunner)
    assert matcher.project_dir == str(tmp_path)
    cached = LlmHookSpec(type="llm", model="claude-3-haiku", prompt="Safe? {{args}}", cache=True)
    first, second = build(cached, "a"), build(cached, "b")
    uncached = build(LlmHookSpec(type="llm", model="gpt-4o-mini", prompt="{{tool}}"), "c")
    assert isinstance(first, LlmRunner)
    assert isinstance(second, LlmRunner)
    assert isinstance(uncached, LlmRunner)
    assert first.cache is not None
    assert first.cache is second.cache  # one cache per mount
    assert uncached.cache is None
    assert first.label == "a"


async def test_a_quiet_event_returns_no_result_on_our_kernel() -> None:
    """``None`` is the cheapest continue; emit still returns a HookResult."""
    journal = Journal()
    coordinator, cleanup = await mounted({"PreToolUse": [cmd()]}, journal)
    handler = coordinator.hooks.handlers_for("tool:pre")[0].handler
    assert await handler("tool:pre", bash("ls")) is None
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert isinstance(result, HookResult)
    assert result.action == "continue"
    await cleanup()


async def test_a_parallel_group_starts_the_hook_that_took_longest_last_time_first() -> None:
    """Decisions stay in declaration order; what changes is only which hook starts first."""
    journal = Journal()
    group = {
        "parallel": True,
        "hooks": [cmd(gate="a", message="A"), cmd(gate="b", message="B"), cmd(gate="c")],
    }
    coordinator, cleanup = await mounted({"PreToolUse": [group]}, journal)
    labels = [f"{L}[0].hooks[{i}]" for i in range(3)]

    async def finish(index: int) -> None:
        journal.gate("abc"[index]).set()
        while labels[index] not in journal.of("done"):  # noqa: ASYNC110 - turns of the loop, no clock
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)  # the next one comes in strictly later on the loop's clock

    first = asyncio.create_task(coordinator.hooks.emit("tool:pre", bash("ls")))
    while len(journal.of("start")) < 3:  # noqa: ASYNC110 - turns of the loop, no clock
        await asyncio.sleep(0)
    assert journal.of("start") == labels  # no history yet: declaration order
    for index in (1, 0, 2):  # b comes in first, then a, then c
        await finish(index)
    await first

    journal.entries.clear()
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert journal.of("start") == [labels[2], labels[0], labels[1]]  # c, a, b
    assert [m.message for m in result.user_messages] == ["A", "B"]  # declaration order
    await cleanup()
