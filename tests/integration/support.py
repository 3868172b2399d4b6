"""What the whole-session tests share: hermetic bundles, sessions on a script, what was sent.

Every module a bundle here names carries a ``source: <package>:mount``, so the loader imports
the package directly and never reads the machine's installed entry points. A session runs
the real runtime modules (``loop-session``, ``context-simple``), the real tools
(``tool-bash``, ``tool-filesystem``, ``tool-todo``) and the scripted provider, in a
temporary workspace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from amplifier_hooks_bundle import Bundle
from amplifier_hooks_cli.session import AgentSession

from amplifier_core.display import RecordingDisplay
from amplifier_core.message_models import ChatRequest
from amplifier_core.testing import EventRecorder
from amplifier_module_provider_scripted import ScriptedProvider

__all__ = [
    "CLEANED",
    "DECLARATIVE_FIXTURES",
    "DECLARATIVE_SCRIPTS",
    "DEFAULT_TOOLS",
    "REPO",
    "call",
    "cleaned_up",
    "declarative_session",
    "make_bundle",
    "module",
    "records",
    "sent",
    "session_for",
    "tool_results",
]

REPO = Path(__file__).resolve().parents[2]
DECLARATIVE_SCRIPTS = REPO / "modules" / "hooks-declarative" / "tests" / "scripts"
"""Hook scripts (Claude Code validators and others) that hooks-declarative's tests run too."""
DECLARATIVE_FIXTURES = REPO / "modules" / "hooks-declarative" / "tests" / "fixtures"
"""Hooks files of hooks-declarative's tests (the proposal's YAML example among them)."""
DEFAULT_TOOLS = ("tool-bash", "tool-filesystem", "tool-todo")
"""The tools a session has when its bundle names none (as the CLI's default plan)."""
CLEANED = "Wrote notes instead."
"""The model's answer at the end of :func:`cleaned_up`."""


def module(module_id: str, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A bundle entry for ``module_id``, imported from its package (not its entry point)."""
    package = "amplifier_module_" + module_id.replace("-", "_")
    return {"module": module_id, "source": f"{package}:mount", "config": dict(config or {})}


def make_bundle(
    *,
    session: Mapping[str, Any] | None = None,
    hooks: Sequence[Mapping[str, Any]] = (),
    tools: Sequence[str | Mapping[str, Any]] = DEFAULT_TOOLS,
    providers: Sequence[Mapping[str, Any]] = (),
    orchestrator: Mapping[str, Any] | None = None,
) -> Bundle:
    """A bundle of the runtime modules, ``tools`` (ids or entries) and ``hooks`` entries.

    ``session`` holds the bundle's session settings (``context_max_tokens``, ``memory_files``,
    ...); ``orchestrator`` is loop-session's own config.
    """
    settings = {
        "orchestrator": module("loop-session", orchestrator),
        "context": module("context-simple"),
        **(session or {}),
    }
    return Bundle.model_validate(
        {
            "session": settings,
            "providers": list(providers),
            "tools": [module(t) if isinstance(t, str) else dict(t) for t in tools],
            "hooks": list(hooks),
        }
    )


def session_for(
    workspace: Path,
    script: Any,
    bundle: Bundle | None = None,
    **kwargs: Any,
) -> tuple[AgentSession, EventRecorder, ScriptedProvider]:
    """A session on ``script`` (a :class:`ScriptedProvider` or its script) with a recorder.

    ``display`` (default a :class:`RecordingDisplay`) and every other keyword go to
    :class:`AgentSession`.
    """
    provider = script if isinstance(script, ScriptedProvider) else ScriptedProvider(script)
    session = AgentSession(
        bundle if bundle is not None else make_bundle(),
        workspace=workspace,
        provider=provider,
        display_system=kwargs.pop("display", None) or RecordingDisplay(),
        **kwargs,
    )
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    return session, recorder, provider


def declarative_session(
    workspace: Path, script: Any
) -> tuple[AgentSession, EventRecorder, ScriptedProvider]:
    """:func:`session_for` with hooks-declarative mounted (its defaults: the project's and the
    user's hooks files of every format), strict about every hook's problems."""
    bundle = make_bundle(hooks=[module("hooks-declarative")])
    return session_for(workspace, script, bundle, strict=True)


def install_executable(path: Path, text: str) -> None:
    """Write the hook script ``text`` at ``path`` (its folders made), executable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def call(name: str, **tool_input: Any) -> dict[str, Any]:
    """A script entry asking for one tool call."""
    return {"tool_calls": [{"name": name, "input": tool_input}]}


def sent(request: ChatRequest) -> list[dict[str, Any]]:
    """The messages of a request the provider received, as dicts (extra keys kept)."""
    return [m.model_dump(exclude_none=True) for m in request.messages]


def tool_results(provider: ScriptedProvider) -> list[str]:
    """What the model saw as each tool call's result, in order, each once."""
    seen: list[str] = []
    for request in provider.requests:
        for message in request.messages:
            if message.role == "tool" and message.content not in seen:
                seen.append(str(message.content))
    return seen


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON records of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def cleaned_up(workspace: Path) -> tuple[Any, EventRecorder, str]:
    """A :func:`declarative_session` in ``workspace`` told to ``clean up``: the model asks for
    ``rm -rf victim`` (what the guards under test deny), then writes ``cleaned`` to
    ``notes.txt`` and answers :data:`CLEANED`. The run's outcome, its events, and what the
    model saw as the ``rm`` call's result."""
    script = [
        call("bash", command="rm -rf victim"),
        call("write_file", file_path="notes.txt", content="cleaned"),
        {"text": CLEANED},
    ]
    agent, recorder, provider = declarative_session(workspace, script)
    async with agent:
        outcome = await agent.run("clean up")
    return outcome, recorder, tool_results(provider)[0]
