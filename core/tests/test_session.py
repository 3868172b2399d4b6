"""AmplifierSession: a mount plan in, modules mounted through the loader, prompts handed on.

The modules here are real packages written to a temporary directory and mounted by ``source``,
the way a bundle names a local module; no installed entry point is read.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import HookResult
from amplifier_core.session import AmplifierSession

MODULES = {
    "echo-loop": """
        from amplifier_core import HookResult

        class Unprintable(RuntimeError):
            def __str__(self):
                raise UnicodeDecodeError("utf-8", b"\\xff", 0, 1, "invalid start byte")

        class Loop:
            async def execute(self, prompt, context, providers, tools, hooks, **kwargs):
                coordinator = kwargs["coordinator"]
                await hooks.emit("prompt:submit", {"prompt": prompt})
                await context.add_message({"role": "user", "content": prompt})
                if prompt == "cancel me":
                    coordinator.cancellation.request_graceful()
                if prompt == "explode":
                    raise RuntimeError("the loop broke")
                if prompt == "unprintable":
                    raise Unprintable("no message")
                name = next(iter(providers))
                return f"{name}:{prompt}:{sorted(tools)}"

        async def mount(coordinator, config):
            await coordinator.mount("orchestrator", Loop())
            coordinator.order.append("loop")
            async def cleanup():
                coordinator.order.append("loop cleanup")
            return cleanup
    """,
    "list-context": """
        class Context:
            def __init__(self):
                self.messages = []
            async def add_message(self, message):
                self.messages.append(message)
            async def get_messages(self):
                return list(self.messages)
            async def get_messages_for_request(self, token_budget=None, provider=None):
                return list(self.messages)
            async def set_messages(self, messages):
                self.messages = list(messages)
            async def clear(self):
                self.messages = []

        async def mount(coordinator, config):
            await coordinator.mount("context", Context())
            coordinator.order.append("context")
    """,
    "fixed-provider": """
        class Provider:
            name = "fixed"
            async def complete(self, request, **kwargs):
                raise NotImplementedError

        async def mount(coordinator, config):
            await coordinator.mount("providers", Provider(), name="fixed")
            coordinator.order.append("provider")
            return lambda: coordinator.order.append("provider cleanup")
    """,
    "noop-tool": """
        class Tool:
            name = "noop"
            description = "does nothing"
            input_schema = {"type": "object"}
            async def execute(self, input):
                return None

        async def mount(coordinator, config):
            await coordinator.mount("tools", Tool(), name="noop")
    """,
    "broken-provider": """
        async def mount(coordinator, config):
            raise ValueError("api_key: missing")
    """,
}


def _write_modules(root: Path) -> None:
    for module_id, source in MODULES.items():
        package = root / ("amplifier_module_" + module_id.replace("-", "_"))
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(textwrap.dedent(source))


def _entry(root: Path, module_id: str) -> dict[str, Any]:
    return {"module": module_id, "source": str(root)}


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory of modules for the whole file: a package is imported once per process."""
    root = tmp_path_factory.mktemp("modules")
    _write_modules(root)
    return root


@pytest.fixture
def plan(module_root: Path) -> dict[str, Any]:
    root = module_root
    return {
        "session": {
            "orchestrator": _entry(root, "echo-loop"),
            "context": _entry(root, "list-context"),
            "metadata": {"team": "core"},
        },
        "providers": [_entry(root, "fixed-provider")],
        "tools": [_entry(root, "noop-tool")],
        "hooks": [],
    }


def _session(plan: dict[str, Any], **kwargs: Any) -> tuple[AmplifierSession, list[tuple[str, Any]]]:
    session = AmplifierSession(plan, **kwargs)
    session.coordinator.order = []  # type: ignore[attr-defined]
    seen: list[tuple[str, Any]] = []

    def record(event: str, data: dict[str, Any]) -> HookResult:
        seen.append((event, data))
        return HookResult()

    for event in (
        "session:start",
        "session:resume",
        "session:fork",
        "session:end",
        "cancel:completed",
        "prompt:submit",
        "module:load_failed",
    ):
        session.coordinator.hooks.register(event, record, name=f"record {event}")
    return session, seen


async def test_a_plan_mounts_every_module_and_execute_goes_to_the_orchestrator(
    plan: dict[str, Any],
) -> None:
    session, seen = _session(plan)
    await session.initialize()
    assert session.coordinator.order == ["loop", "context", "provider"]  # type: ignore[attr-defined]

    assert await session.execute("hello") == "fixed:hello:['noop']"
    assert await session.execute("again") == "fixed:again:['noop']"
    assert session.status.status == "completed"
    await session.cleanup()

    names = [name for name, _ in seen]
    assert names == ["session:start", "prompt:submit", "prompt:submit", "session:end"]
    start = seen[0][1]
    assert start["session_id"] == session.session_id
    assert start["metadata"] == {"team": "core"}
    assert seen[-1][1]["status"] == "completed"
    order = session.coordinator.order  # type: ignore[attr-defined]
    assert order[-2:] == ["provider cleanup", "loop cleanup"]  # last mounted, first cleaned


async def test_a_resumed_session_fires_resume_and_a_child_fires_fork(
    plan: dict[str, Any],
) -> None:
    resumed, seen = _session(plan, is_resumed=True, session_id="s-1")
    await resumed.initialize()
    await resumed.execute("hi")
    await resumed.cleanup()
    assert next(n for n, _ in seen) == "session:resume"

    child, seen = _session(plan, parent_id="s-1")
    await child.initialize()
    fork = [d for n, d in seen if n == "session:fork"]
    assert fork == [
        {
            "parent": "s-1",
            "session_id": child.session_id,
            "metadata": {"team": "core"},
            "parent_id": "s-1",
            "timestamp": fork[0]["timestamp"],
        }
    ]
    await child.cleanup()


async def test_a_cancelled_prompt_fires_cancel_completed(plan: dict[str, Any]) -> None:
    session, seen = _session(plan)
    await session.initialize()
    await session.execute("cancel me")
    assert session.status.status == "cancelled"
    assert [d["was_immediate"] for n, d in seen if n == "cancel:completed"] == [False]
    await session.cleanup()


async def test_an_orchestrator_failure_is_raised_and_recorded(plan: dict[str, Any]) -> None:
    session, _ = _session(plan)
    await session.initialize()
    with pytest.raises(RuntimeError, match="the loop broke"):
        await session.execute("explode")
    assert session.status.status == "failed"
    await session.cleanup()


async def test_a_failure_whose_message_cannot_be_rendered_is_raised_as_it_is(
    plan: dict[str, Any],
) -> None:
    session, _ = _session(plan)
    await session.initialize()
    with pytest.raises(RuntimeError) as raised:
        await session.execute("unprintable")
    assert type(raised.value).__name__ == "Unprintable"
    assert session.status.last_error == {
        "type": "Unprintable",
        "message": "Unprintable('no message')",
    }
    await session.cleanup()


async def test_a_provider_that_fails_to_mount_is_reported_and_the_session_goes_on(
    plan: dict[str, Any], module_root: Path
) -> None:
    plan["providers"].insert(0, _entry(module_root, "broken-provider"))
    session, seen = _session(plan)
    await session.initialize()
    assert await session.execute("still here") == "fixed:still here:['noop']"
    failed = [d for n, d in seen if n == "module:load_failed"]
    assert len(failed) == 1
    assert failed[0]["module_id"] == "broken-provider"
    assert "api_key: missing" in failed[0]["error"]
    await session.cleanup()


async def test_without_a_provider_execute_says_so(plan: dict[str, Any]) -> None:
    plan["providers"] = []
    session, _ = _session(plan)
    await session.initialize()
    with pytest.raises(RuntimeError, match="No providers mounted"):
        await session.execute("hello")
    await session.cleanup()


async def test_an_orchestrator_that_cannot_load_stops_initialize(plan: dict[str, Any]) -> None:
    plan["session"]["orchestrator"] = {"module": "no-such-loop", "source": "/nonexistent"}
    session, _ = _session(plan)
    with pytest.raises(
        RuntimeError, match=r"Cannot initialize without orchestrator: .*no-such-loop"
    ):
        await session.initialize()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, "Configuration is required"),
        ({"session": {"context": "c"}}, "must specify session.orchestrator"),
        ({"session": {"orchestrator": "o"}}, "must specify session.context"),
        (
            {"session": {"orchestrator": "o", "context": "c", "hook_timeout": 0}},
            "session.hook_timeout",
        ),
    ],
)
def test_a_plan_missing_what_it_needs_is_refused(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AmplifierSession(config)


async def test_the_working_dir_setting_becomes_the_capability_tools_read(
    plan: dict[str, Any], tmp_path: Path
) -> None:
    plan["session"]["working_dir"] = str(tmp_path)
    session = AmplifierSession(plan)
    assert session.coordinator.get_capability("session.working_dir") == str(tmp_path)


async def test_a_raw_session_sends_its_redacted_plan_in_session_config_before_each_prompt(
    plan: dict[str, Any],
) -> None:
    plan["session"]["raw"] = True
    plan["providers"][0]["config"] = {
        "api_key": "sk-live-1",
        "openai_api_key": "sk-live-2",
        "Token": "t",
        "max_tokens": 100,
        "headers": [{"authorization": "Bearer x"}],
    }
    session, seen = _session(plan)
    await session.initialize()
    configs: list[dict[str, Any]] = []

    def record(event: str, data: dict[str, Any]) -> HookResult:
        seen.append((event, data))
        configs.append(data)
        return HookResult()

    session.coordinator.hooks.register("session:config", record, name="record config")
    await session.execute("hello")
    await session.execute("again")
    await session.cleanup()

    names = [name for name, _ in seen]
    assert names == [
        "session:start",
        "session:config",
        "prompt:submit",
        "session:config",  # before every prompt, as 2.0.2 emits it
        "prompt:submit",
        "session:end",
    ]
    assert "raw" not in seen[0][1]
    config = configs[0]
    assert configs[1]["raw"] == config["raw"]
    assert set(config) == {"session_id", "parent_id", "raw", "timestamp"}
    assert config["session_id"] == session.session_id
    raw = config["raw"]
    assert raw["providers"][0]["config"] == {
        "api_key": "[REDACTED]",
        "openai_api_key": "[REDACTED]",
        "Token": "[REDACTED]",
        "max_tokens": 100,
        "headers": [{"authorization": "[REDACTED]"}],
    }
    assert raw["session"]["raw"] is True
    assert raw["session"]["metadata"] == {"team": "core"}
    assert raw["tools"] == plan["tools"]
    assert plan["providers"][0]["config"]["api_key"] == "sk-live-1"  # the plan is untouched


async def test_a_resumed_raw_session_sends_session_config_after_resume(
    plan: dict[str, Any],
) -> None:
    plan["session"]["raw"] = True
    session, seen = _session(plan, is_resumed=True)
    await session.initialize()
    session.coordinator.hooks.register(
        "session:config", lambda e, d: seen.append((e, d)), name="record config"
    )
    await session.execute("hello")
    await session.cleanup()

    assert [name for name, _ in seen][:2] == ["session:resume", "session:config"]


async def test_without_raw_there_is_no_session_config(plan: dict[str, Any]) -> None:
    session, seen = _session(plan)
    await session.initialize()
    session.coordinator.hooks.register(
        "session:config", lambda e, d: seen.append((e, d)), name="record config"
    )
    await session.execute("hello")
    await session.cleanup()

    assert "session:config" not in [name for name, _ in seen]


@pytest.mark.parametrize("where", ["amplifier_core._session_init", "amplifier_core.session"])
async def test_initialize_calls_initialize_session_where_2_0_2s_suites_replace_it(
    plan: dict[str, Any], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """2.0.2's suites replace ``initialize_session`` on ``amplifier_core.session`` (tests/) or on
    ``amplifier_core._session_init`` (bindings/python/tests/) to run a session without
    modules; the session calls the replacement either way."""
    import importlib

    calls: list[tuple[str, str | None]] = []

    async def fake(config: Any, coordinator: Any, session_id: str, parent_id: str | None) -> None:
        calls.append((session_id, parent_id))

    monkeypatch.setattr(importlib.import_module(where), "initialize_session", fake)
    session = AmplifierSession(plan, session_id="s-9", parent_id="p-1")
    await session.initialize()

    assert calls == [("s-9", "p-1")]
    assert session.initialized
    assert session.coordinator.get("orchestrator") is None  # nothing was mounted
    await session.cleanup()
