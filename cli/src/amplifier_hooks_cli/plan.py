"""A bundle turned into the mount plan the kernel's ``AmplifierSession`` mounts.

:func:`mount_plan` composes a session from modules: the orchestrator (``loop-session``) and
context manager (``context-simple``) unless ``session.orchestrator`` / ``session.context``
name others, the bundle's providers (the scripted provider saying ``(no provider configured)``
when it has none), its tools (``tool-bash``, ``tool-filesystem`` and ``tool-todo`` when it has
none) and its hooks. Each session setting of the bundle goes to the module that owns it:

=========================  ===========================================
bundle ``session:`` key     where it goes
=========================  ===========================================
``max_iterations``          orchestrator config ``max_iterations``
``checkpoint_dir``          orchestrator config ``checkpoint_dir``
``checkpoint_every_turn``   orchestrator config ``checkpoint_every_turn``
``memory_files``            orchestrator config ``memory_files``
``context_max_tokens``      context config ``max_tokens`` (and ``use_provider_window: false``)
``tools.bash``              ``tool-bash`` config
``tools.files``             ``tool-filesystem`` config
everything else             the plan's ``session`` (the kernel reads it)
=========================  ===========================================

A module's own config in the bundle wins over a routed setting. Relative ``source`` paths
are resolved against the bundle's directory, so is the scripted provider's ``script`` (its
``base_dir``), and ``session.working_dir`` is the workspace. hooks-declarative's inline
``hooks`` are told where they were written (config ``hooks_origin``: the bundle file and the
line of each entry, and for a bundle composed with ``includes:`` the file of each entry),
for their receipts.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_bundle import Bundle, ModuleEntry

from amplifier_core.injections import (
    DEFAULT_INJECTION_BUDGET_PER_TURN,
    DEFAULT_INJECTION_SIZE_LIMIT,
)

__all__ = [
    "DEFAULT_CONTEXT",
    "DEFAULT_ORCHESTRATOR",
    "DEFAULT_PROVIDER",
    "DEFAULT_TOOLS",
    "NO_PROVIDER_TEXT",
    "PlanError",
    "mount_plan",
    "resolve_source",
]

DEFAULT_ORCHESTRATOR: Final = "loop-session"
DEFAULT_CONTEXT: Final = "context-simple"
DEFAULT_PROVIDER: Final = "provider-scripted"
DEFAULT_TOOLS: Final = ("tool-bash", "tool-filesystem", "tool-todo")
NO_PROVIDER_TEXT: Final = "(no provider configured)"
"""What the default provider answers when the bundle names no provider."""

_ORCHESTRATOR_SETTINGS: Final = {
    "max_iterations": "max_iterations",
    "checkpoint_dir": "checkpoint_dir",
    "checkpoint_every_turn": "checkpoint_every_turn",
    "memory_files": "memory_files",
}
_CONTEXT_SETTINGS: Final = {"context_max_tokens": "max_tokens"}
_TOOL_SETTINGS: Final = {"tool-bash": "bash", "tool-filesystem": "files"}
_REMOTE: Final = re.compile(r"^(?:git\+|hg\+|svn\+|bzr\+|https?://|ssh://|git@|git://)")
_REFERENCE: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


class PlanError(ValueError):
    """A bundle's session settings cannot be made into a mount plan; names the key path."""


def resolve_source(source: str | None, base_dir: Path | None) -> str | None:
    """``source`` with a relative directory made absolute against ``base_dir``.

    Remote sources (``git+https://...``) and ``package.module:attr`` references stay as
    they are.
    """
    if source is None:
        return None
    text = source.strip()
    if _REMOTE.match(text):
        return text
    path = Path(text.removeprefix("file://")).expanduser()
    if _REFERENCE.fullmatch(text) and not (base_dir or Path.cwd()).joinpath(path).exists():
        return text
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return str(path)


def _entry(
    module: str,
    config: Mapping[str, Any],
    source: str | None,
    *,
    optional: bool = False,
    observe: bool = False,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"module": module, "config": dict(config)}
    if source is not None:
        entry["source"] = source
    if optional:
        entry["optional"] = True
    if observe:
        entry["observe"] = True
    return entry


def _named_module(
    value: Any, default: str, routed: dict[str, Any], key: str, base_dir: Path | None
) -> dict[str, Any]:
    """The plan entry of ``session.<key>``: a module id, ``{module, config, source}`` or absent."""
    if value is None:
        return _entry(default, routed, None)
    if isinstance(value, str) and value.strip():
        return _entry(value.strip(), routed, None)
    if isinstance(value, Mapping):
        module = value.get("module", default)
        if not isinstance(module, str) or not module.strip():
            raise PlanError(f"session.{key}.module: expected a module id, got {module!r}")
        config = value.get("config") or {}
        if not isinstance(config, Mapping):
            raise PlanError(
                f"session.{key}.config: expected a mapping, got {type(config).__name__}"
            )
        source = value.get("source")
        if source is not None and not isinstance(source, str):
            raise PlanError(f"session.{key}.source: expected a string, got {source!r}")
        unknown = sorted(set(value) - {"module", "config", "source"})
        if unknown:
            raise PlanError(
                f"session.{key}: unknown key(s) {', '.join(unknown)}; "
                "expected module, config and source"
            )
        return _entry(module.strip(), {**routed, **config}, resolve_source(source, base_dir))
    raise PlanError(
        f"session.{key}: expected a module id or a mapping with module, config and source, "
        f"got {value!r}"
    )


def _routed(settings: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """Take the settings named in ``names`` out of ``settings``, renamed for their module."""
    return {target: settings.pop(key) for key, target in names.items() if key in settings}


def _module_entries(entries: list[ModuleEntry], base_dir: Path | None) -> list[dict[str, Any]]:
    return [
        _entry(
            e.module,
            copy.deepcopy(e.config),
            resolve_source(e.source, base_dir),
            optional=e.optional,
            observe=e.observe,
        )
        for e in entries
    ]


def mount_plan(bundle: Bundle, *, workspace: Path) -> dict[str, Any]:
    """The mount plan for a session of ``bundle`` working in ``workspace`` (see the module doc).

    :raises PlanError: ``session.orchestrator``, ``session.context`` or ``session.tools`` has
        the wrong shape; the message names the key path.
    """
    settings: dict[str, Any] = copy.deepcopy(bundle.session.given())
    base_dir = bundle.base_dir
    orchestrator_value = settings.pop("orchestrator", None)
    context_value = settings.pop("context", None)
    orchestrator = _named_module(
        orchestrator_value,
        DEFAULT_ORCHESTRATOR,
        _routed(settings, _ORCHESTRATOR_SETTINGS),
        "orchestrator",
        base_dir,
    )
    context_routed = _routed(settings, _CONTEXT_SETTINGS)
    if "max_tokens" in context_routed:  # the bundle's budget, not the provider's window
        context_routed["use_provider_window"] = False
    context = _named_module(context_value, DEFAULT_CONTEXT, context_routed, "context", base_dir)
    tool_settings = settings.pop("tools", None) or {}
    if not isinstance(tool_settings, Mapping):
        raise PlanError(f"session.tools: expected a mapping, got {type(tool_settings).__name__}")
    providers = _module_entries(bundle.providers, base_dir) or [
        _entry(DEFAULT_PROVIDER, {"script": [{"text": NO_PROVIDER_TEXT}]}, None)
    ]
    for provider in providers:  # a script file named in the bundle is relative to the bundle
        if provider["module"] == DEFAULT_PROVIDER and base_dir is not None:
            provider["config"].setdefault("base_dir", str(base_dir))
    tools = _module_entries(bundle.tools, base_dir) or [
        _entry(module, {}, None) for module in DEFAULT_TOOLS
    ]
    for tool in tools:
        section = _TOOL_SETTINGS.get(tool["module"])
        shared = tool_settings.get(section) if section is not None else None
        if shared is None:
            continue
        if not isinstance(shared, Mapping):
            raise PlanError(
                f"session.tools.{section}: expected a mapping, got {type(shared).__name__}"
            )
        tool["config"] = {**copy.deepcopy(dict(shared)), **tool["config"]}
    settings.update(orchestrator=orchestrator, context=context, working_dir=str(workspace))
    # The kernel limits nothing unless told (amplifier-core 2.0.2); our sessions do.
    settings.setdefault("injection_size_limit", DEFAULT_INJECTION_SIZE_LIMIT)
    settings.setdefault("injection_budget_per_turn", DEFAULT_INJECTION_BUDGET_PER_TURN)
    return {
        "session": settings,
        "providers": providers,
        "tools": tools,
        "hooks": _located(_module_entries(bundle.hooks, base_dir), bundle),
    }


_LOCATED_MODULES: Final = frozenset({"hooks-declarative"})
"""Modules whose inline ``hooks`` are told where they were written (``hooks_origin``)."""


def _located(entries: list[dict[str, Any]], bundle: Bundle) -> list[dict[str, Any]]:
    """``entries`` (the bundle's hooks, in order), hooks-declarative's inline hooks told the
    bundle file and the line of each entry: their receipts name them."""
    found = bundle.inline_hook_lines
    in_files = bundle.inline_hook_files
    for index, entry in enumerate(entries):
        lines = found.get(index)
        config = entry["config"]
        if not lines or entry["module"] not in _LOCATED_MODULES or "hooks_origin" in config:
            continue
        origin: dict[str, Any] = {"file": str(Path(bundle.source_name).resolve()), "lines": lines}
        files = in_files.get(index)
        if files:  # a composed bundle: the files of its includes that wrote them
            origin["files"] = files
        config["hooks_origin"] = origin
    return entries
