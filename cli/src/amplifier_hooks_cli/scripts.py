"""The prompts a scripted provider's script file carries, and the script a bundle names.

A script file (docs/scripted-provider.md) may hold the user's turns under ``prompts:``: the
demo sends them, and so does ``amplifier-hooks run`` when no ``--prompt`` is given.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from amplifier_hooks_bundle import Bundle, ModuleEntry

__all__ = ["bundle_script", "script_prompts", "scripted_provider"]


def script_prompts(path: Path) -> list[str]:
    """The user prompts a script file carries under ``prompts:`` (empty when it has none).

    :raises ValueError: the file cannot be read or ``prompts`` is not a list of strings; the
        message names the file.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"{path}: cannot read the script: {err.strerror or err}") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ValueError(f"{where}: invalid YAML: {getattr(err, 'problem', err)}") from err
    if not isinstance(data, dict) or "prompts" not in data:
        return []
    prompts = data["prompts"]
    if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
        raise ValueError(f"{path}: prompts: expected a list of strings")
    return list(prompts)


def bundle_script(bundle: Bundle) -> Path | None:
    """The script file of the bundle's first provider, when it is a scripted one."""
    if not bundle.providers:
        return None
    entry = bundle.providers[0]
    kind = entry.config.get("type", entry.module.removeprefix("provider-"))
    script = entry.config.get("script")
    if kind != "scripted" or not isinstance(script, str):
        return None
    path = Path(script).expanduser()
    if not path.is_absolute() and bundle.base_dir is not None:
        path = bundle.base_dir / path
    return path


def scripted_provider(bundle: Bundle, script: Path) -> Bundle:
    """``bundle`` with its providers replaced by the scripted provider replaying ``script``."""
    entry = ModuleEntry(module="provider-scripted", config={"script": str(script.resolve())})
    return bundle.model_copy(update={"providers": [entry]})
