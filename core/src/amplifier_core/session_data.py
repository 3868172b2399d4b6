"""The data the kernel session's own events carry, beyond amplifier-core 2.0.2's.

2.0.2 sends ``session:start`` / ``session:resume`` with ids only and ``session:end`` with the
status. Ours adds what the catalogue documents (docs/events.md): the mounted plan (secrets
masked), the provider and model the session starts with, the tools, the working directory; the
checkpoint a resumed session came from (as the host says, :attr:`AmplifierSession.resumed_from`);
and at the end the duration, the number of prompts and the error. Keys are only added: every
key 2.0.2 sends is there with 2.0.2's value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final

from .session_settings import SessionSettings

__all__ = ["end_data", "opening_data", "raw_plan", "redacted"]

_SECRET_WORDS: Final = ("key", "token", "secret", "password", "authorization")


def redacted(value: Any) -> Any:
    """``value`` with every secret-looking key's value masked."""
    if isinstance(value, Mapping):
        return {
            k: "[REDACTED]" if any(w in str(k).lower() for w in _SECRET_WORDS) else redacted(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


def raw_plan(config: Mapping[str, Any]) -> Any:
    """The plan ``session:config`` carries (``session.raw``): a copy with the value of each key
    amplifier-core 2.0.2 masks (``SENSITIVE_KEYS``: ``api_key``, ``token``, ``password`` ...)
    replaced by ``[REDACTED]``, and of each key ending in one of them (``openai_api_key``,
    ``github-token``), which 2.0.2 would send as it is."""
    return _mask(dict(config))


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "[REDACTED]" if _sensitive(k) else _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _sensitive(key: Any) -> bool:
    if not isinstance(key, str):
        return False
    from .utils.truncate import SENSITIVE_KEYS

    lowered = key.lower()
    return lowered in SENSITIVE_KEYS or any(
        lowered.endswith(("_" + name, "-" + name)) for name in SENSITIVE_KEYS
    )


def _entry(entry: Any) -> dict[str, Any]:
    if isinstance(entry, Mapping):
        return {"module": entry.get("module"), "config": dict(entry.get("config") or {})}
    return {"module": entry, "config": {}}


def _provider_and_model(coordinator: Any) -> tuple[str, str]:
    """The provider the next prompt goes to and its model, as far as the modules tell."""
    orchestrator = coordinator.get("orchestrator")
    providers = coordinator.get("providers") or {}
    name = _attribute(orchestrator, "provider_name")
    if not isinstance(name, str) or name not in providers:
        name = next(iter(providers), "")
    model = _attribute(orchestrator, "model")
    if not isinstance(model, str) or not model:
        model = _attribute(providers.get(name), "model") if name else ""
    return name, str(model or "")


def _attribute(owner: Any, name: str) -> Any:
    """``owner.name``, or ``None`` when the module does not have it or cannot say yet."""
    try:
        return getattr(owner, name, None)
    except Exception:  # a property of a module that raises: the value is unknown, not fatal
        return None


def opening_data(config: Mapping[str, Any], coordinator: Any) -> dict[str, Any]:
    """What ``session:start`` (and ``session:resume``) adds: mount plan, provider, model,
    tools and working directory."""
    settings = SessionSettings.of_plan(config, coordinator)
    provider, model = _provider_and_model(coordinator)
    tools = sorted(coordinator.get("tools") or {})
    plan = {
        "orchestrator": _entry(settings.orchestrator)["module"],
        "context": _entry(settings.context)["module"],
        "providers": [_entry(e)["module"] for e in config.get("providers") or []],
        "hooks": [_entry(e) for e in config.get("hooks") or []],
        "provider": provider,
        "model": model,
        "tools": tools,
    }
    working_dir = settings.working_dir
    return {
        "mount_plan": redacted(plan),
        "provider": provider,
        "model": model,
        "tools": tools,
        "cwd": str(working_dir) if working_dir else os.getcwd(),
    }


def end_data(duration: float, prompts: int, last_error: Mapping[str, Any] | None) -> dict[str, Any]:
    """What ``session:end`` adds: seconds since the session started, prompts it processed, and
    the error it failed with (``{type, message}``)."""
    data: dict[str, Any] = {"duration": duration, "turns": prompts}
    if last_error:
        data["error"] = {
            "type": str(last_error.get("type", "Error")),
            "message": str(last_error.get("message", "")),
        }
    return data
