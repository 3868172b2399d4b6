"""Documented hook outputs in real session turns, run by whichever kernel is installed.

``python outputs.py CASE WORKDIR`` composes a session of our runtime modules (loop-session,
context-simple, provider-anthropic or provider-openai talking to a loopback API server from
``amplifier_hooks_testsupport``, tool-filesystem) and hooks-declarative with a hooks file that
uses one documented output (:data:`CASES`), runs its turns, and prints one JSON line: the exact
request bodies the API server received, the turns' answers, the events a recorder saw, the
conversation the context holds, what each hook process was given on stdin. The tests beside it
(``test_outputs.py``) run it with amplifier-core 2.0.2 and with our kernel and check the report.
It ends with ``os._exit`` because amplifier-core 2.0.2's engine may crash while the interpreter
shuts down.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_hooks_testsupport.loopback import (
    AnthropicApi,
    LoopbackServer,
    OpenAIApi,
    Reply,
    anthropic_message,
    openai_completion,
)

from amplifier_core import AmplifierSession, HookResult
from amplifier_module_hooks_declarative.trust import trust_project

HOOK = """\
# A hook: logs its stdin to LOG, answers with the ANSWER file; "UPPER_LAST" there stands for
# the last message it was shown, upper-cased; with ONCE, only the first call answers.
import json, os, sys
event = json.load(sys.stdin)
log, answer, once = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3] == "once"
with open(log, "a") as out:
    out.write(json.dumps(event) + "\\n")
if once and sum(1 for _ in open(log)) > 1:
    sys.exit(0)
messages = event.get("llm_request", {}).get("messages", [])
if "UPPER_LAST" in answer:
    answer = answer.replace("UPPER_LAST", messages[-1]["content"].upper())
print(answer)
"""

RECORDED = (
    "orchestrator:complete",
    "execution:end",
    "policy:violation",
    "context:pre_compact",
    "context:compaction",
    "session:fork",
)


def _llm_response(text: str) -> dict[str, Any]:
    """A Gemini ``LLMResponse`` with one candidate of ``text``."""
    return {
        "candidates": [{"content": {"role": "model", "parts": [text]}, "finishReason": "STOP"}],
        "usageMetadata": {"totalTokenCount": 0},
    }


@dataclass(frozen=True)
class Case:
    """A hooks file with one output, the turns to run, the model API's answers."""

    kind: str  # "gemini" (the project's .gemini/settings.json) or "claude_code" (a hooks file)
    event: str
    answer: dict[str, Any]
    prompts: tuple[str, ...]
    replies: Callable[[str], list[Reply]]
    provider: str = "anthropic"
    once: bool = False
    matcher: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    child: str | None = None  # a prompt for a child session forked after the turns


def _text(provider: str, *texts: str) -> list[Reply]:
    make = anthropic_message if provider == "anthropic" else openai_completion
    return [make(t) for t in texts]


def _forced_read(provider: str) -> list[Reply]:
    """The model calls read_file on notes.txt, then answers with what it read."""
    if provider == "anthropic":
        call = anthropic_message("", [("toolu_1", "read_file", {"file_path": "notes.txt"})])
    else:
        call = openai_completion(None, [("call_1", "read_file", '{"file_path": "notes.txt"}')])
    return [call, *_text(provider, "the notes say: remember the milk")]


def _deny(reason: str) -> dict[str, Any]:
    return {"decision": "deny", "reason": reason}


def _specific(**fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": fields}


CASES: dict[str, Case] = {
    "before_model_request": Case(
        "gemini",
        "BeforeModel",
        _specific(
            llm_request={
                "model": "claude-small",
                "config": {"temperature": 0.1, "topP": 0.9},
                "messages": [{"role": "user", "content": "UPPER_LAST"}],
            }
        ),
        ("please shout",),
        lambda p: _text(p, "ok"),
    ),
    "before_model_response": Case(
        "gemini",
        "BeforeModel",
        _specific(llm_response=_llm_response("from the cache")),
        ("what is cached?",),
        lambda p: _text(p, "never sent"),
    ),
    "after_model_response": Case(
        "gemini",
        "AfterModel",
        _specific(llm_response=_llm_response("The password is [redacted].")),
        ("what is the password?",),
        lambda p: _text(p, "The password is hunter2."),
    ),
    **{
        f"tool_selection_forces_read_{provider}": Case(
            "gemini",
            "BeforeToolSelection",
            _specific(toolConfig={"mode": "ANY", "allowedFunctionNames": ["read_file"]}),
            ("what do the notes say?",),
            _forced_read,
            provider=provider,
            once=True,
        )
        for provider in ("anthropic", "openai")
    },
    "tool_selection_none": Case(
        "gemini",
        "BeforeToolSelection",
        _specific(toolConfig={"mode": "NONE"}),
        ("look around",),
        lambda p: _text(p, "no tools today"),
    ),
    **{
        f"deny_{event}": Case(
            "gemini",
            event,
            _deny("model calls are paused"),
            ("hello",),
            lambda p: _text(p, "the model's answer"),
        )
        for event in ("BeforeModel", "AfterModel", "BeforeToolSelection")
    },
    "pre_compact_block": Case(
        "claude_code",
        "PreCompact",
        {"decision": "block", "reason": "a migration is half done"},
        ("first", "second"),
        lambda p: _text(p, "x" * 1200, "ok"),
        matcher="auto",
        context={"max_tokens": 250, "use_provider_window": False},
    ),
    "pre_compact_allows": Case(
        "claude_code",
        "PreCompact",
        {},
        ("first", "second"),
        lambda p: _text(p, "x" * 1200, "ok"),
        context={"max_tokens": 250, "use_provider_window": False},
    ),
    "subagent_start_context": Case(
        "claude_code",
        "SubagentStart",
        _specific(
            hookEventName="SubagentStart",
            additionalContext="You are the reviewer: read, never write.",
        ),
        ("plan the work",),
        lambda p: _text(p, "parent answer", "child answer"),
        child="review it",
    ),
}


def _hooks_config(case: Case, workdir: Path) -> dict[str, Any]:
    """hooks-declarative's config, after writing the case's hooks file and hook script."""
    script = workdir / "hook.py"
    script.write_text(HOOK)
    answer = workdir / "answer.json"
    answer.write_text(json.dumps(case.answer))
    log = workdir / "stdin.jsonl"
    command = shlex.join(
        [sys.executable, str(script), str(log), str(answer), "once" if case.once else "always"]
    )
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if case.matcher is not None:
        group["matcher"] = case.matcher
    config: dict[str, Any] = {"include_user": False, "project_dir": str(workdir)}
    if case.kind == "gemini":
        (workdir / ".gemini").mkdir(exist_ok=True)
        settings = {"hooks": {case.event: [group]}}
        (workdir / ".gemini" / "settings.json").write_text(json.dumps(settings))
        trust_project(workdir)  # the user reviewed the project's hooks
    else:
        hooks_file = workdir / "hooks.json"
        hooks_file.write_text(json.dumps({"claude_code": {case.event: [group]}}))
        config["files"] = [str(hooks_file)]
    return config


def _plan(case: Case, workdir: Path, url: str, hooks: dict[str, Any]) -> dict[str, Any]:
    model = "claude-large" if case.provider == "anthropic" else "gpt-large"
    return {
        "session": {
            "orchestrator": {"module": "loop-session", "config": {"working_dir": str(workdir)}},
            "context": {"module": "context-simple", "config": case.context},
        },
        "providers": [
            {
                "module": f"provider-{case.provider}",
                "config": {
                    "base_url": url,
                    "api_key": "test-key",
                    "max_retries": 0,
                    "model": model,
                },
            }
        ],
        "tools": [{"module": "tool-filesystem", "config": {"working_dir": str(workdir)}}],
        "hooks": [{"module": "hooks-declarative", "config": hooks}],
    }


class Recorder:
    """The data of the events in :data:`RECORDED`, in order, per session."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def attach(self, session: AmplifierSession, who: str) -> None:
        for event in RECORDED:

            async def record(name: str, data: dict[str, Any], who: str = who) -> HookResult:
                self.events.append({"session": who, "event": name, "data": _plain(data)})
                return HookResult()

            session.coordinator.hooks.register(event, record, priority=1000, name=f"record-{who}")


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


async def _session(plan: dict[str, Any], workdir: Path, **kwargs: Any) -> AmplifierSession:
    session = AmplifierSession(plan, **kwargs)
    session.coordinator.register_capability("session.working_dir", str(workdir))
    return session


async def run(name: str, workdir: Path) -> dict[str, Any]:
    case = CASES[name]
    (workdir / "notes.txt").write_text("remember the milk\n")
    api_class = AnthropicApi if case.provider == "anthropic" else OpenAIApi
    api = api_class(case.replies(case.provider))
    recorder = Recorder()
    report: dict[str, Any] = {}
    async with LoopbackServer(api) as server:
        plan = _plan(case, workdir, server.url, _hooks_config(case, workdir))
        session = await _session(plan, workdir)
        recorder.attach(session, "parent")
        await session.initialize()
        report["answers"] = [await session.execute(p) for p in case.prompts]
        context = session.coordinator.get("context")
        report["messages"] = _plain(await context.get_messages())
        report["compactions"] = getattr(context, "compactions", None)
        report["compactions_blocked"] = getattr(context, "compactions_blocked", None)
        report["parent_requests"] = len(api.bodies)
        if case.child is not None:
            child = await _session(plan, workdir, parent_id=session.session_id)
            recorder.attach(child, "child")
            await child.initialize()
            report["child_answer"] = await child.execute(case.child)
            report["child_messages"] = _plain(await child.coordinator.get("context").get_messages())
            await child.cleanup()
        await session.cleanup()
    report["bodies"] = api.bodies
    report["rejected"] = api.rejected
    report["events"] = recorder.events
    log = workdir / "stdin.jsonl"
    report["stdin"] = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return report


if __name__ == "__main__":
    result = asyncio.run(run(sys.argv[1], Path(sys.argv[2])))
    print(json.dumps(result))
    sys.stdout.flush()
    os._exit(0)
