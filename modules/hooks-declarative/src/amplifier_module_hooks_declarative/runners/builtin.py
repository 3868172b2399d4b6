"""The module's own hook types, registered as entry points of its ``pyproject.toml``
(``amplifier_hooks.runners``) exactly as another distribution registers its own: each a
:class:`~..runner_plugins.RunnerType`. A runner's module is imported when the first hook of its
type is built, so a file with only matchers needs none of the others."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..runner_plugins import RunnerEnvironment, RunnerType
from ..specs import (
    AgentHookSpec,
    CommandHookSpec,
    HttpHookSpec,
    LlmHookSpec,
    MatcherHookSpec,
    McpToolHookSpec,
    PromptHookSpec,
    UnreadableHookSpec,
)
from ..types import Runner

if TYPE_CHECKING:
    from .prompt_hook import PromptDefaults

__all__ = ["AGENT", "COMMAND", "HTTP", "LLM", "MATCHER", "MCP_TOOL", "PROMPT", "UNREADABLE"]


def _matcher(spec: MatcherHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .matcher import MatcherRunner

    return MatcherRunner(spec, label=label, project_dir=env.project_dir)


def _command(spec: CommandHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from ..protocols import configured_protocol
    from .command import CommandRunner

    settings = env.settings
    options = {"cursor_version": settings.cursor_version} if settings else {}
    return CommandRunner(
        spec,
        label=label,
        project_dir=env.project_dir,
        pass_env=env.pass_env,
        protocol=configured_protocol(spec.protocol, options),
        write_paths=settings.sandbox_write_paths if settings else (),
    )


def _unreadable(spec: UnreadableHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .unreadable import UnreadableRunner

    return UnreadableRunner(spec, label=label, strict=env.settings.strict if env.settings else True)


def _mcp_tool(spec: McpToolHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .mcp_tool import McpToolRunner

    return McpToolRunner(spec, label=label, project_dir=env.project_dir, tools=env.tools())


def _http(spec: HttpHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .http_hook import HttpRunner

    return HttpRunner(spec, label=label, project_dir=env.project_dir)


def _llm(spec: LlmHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .llm import LlmRunner
    from .llm_cache import LlmCache

    cache = None
    if spec.cache:  # one cache per size; each answer keeps its hook's cache_ttl_s
        caches: dict[int, LlmCache] = env.shared.setdefault("llm_caches", {})
        cache = caches.get(spec.cache_size)
        if cache is None:
            cache = caches[spec.cache_size] = LlmCache(spec.cache_size, spec.cache_ttl_s)
    return LlmRunner(spec, label=label, cache=cache, providers=env.providers(), guards=env.guards)


def _prompt_defaults(env: RunnerEnvironment) -> PromptDefaults:
    from .prompt_hook import PromptDefaults

    return PromptDefaults.from_config(env.settings) if env.settings else PromptDefaults()


def _prompt(spec: PromptHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .prompt_hook import PromptRunner

    return PromptRunner(
        spec,
        label=label,
        providers=env.providers(),
        defaults=_prompt_defaults(env),
        guards=env.guards,
    )


def _agent(spec: AgentHookSpec, label: str, env: RunnerEnvironment) -> Runner:
    from .agent_hook import AgentRunner

    return AgentRunner(
        spec,
        label=label,
        providers=env.providers(),
        tools=env.tools(),
        defaults=_prompt_defaults(env),
        guards=env.guards,
    )


COMMAND: Final = RunnerType(CommandHookSpec, _command)
MATCHER: Final = RunnerType(MatcherHookSpec, _matcher)
LLM: Final = RunnerType(LlmHookSpec, _llm)
PROMPT: Final = RunnerType(PromptHookSpec, _prompt, in_hooks_files=False)
AGENT: Final = RunnerType(AgentHookSpec, _agent, in_hooks_files=False)
HTTP: Final = RunnerType(HttpHookSpec, _http, in_hooks_files=False)
MCP_TOOL: Final = RunnerType(McpToolHookSpec, _mcp_tool, in_hooks_files=False)
UNREADABLE: Final = RunnerType(UnreadableHookSpec, _unreadable, in_hooks_files=False)
