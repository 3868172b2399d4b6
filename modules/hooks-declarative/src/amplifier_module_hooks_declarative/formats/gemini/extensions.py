"""Gemini CLI extensions: the hooks of the extensions ``gemini extensions install`` installed,
read as Gemini CLI reads them (``packages/cli/src/config/extension-manager.ts``), so they run
here as they run there, with ``protocol: gemini``.

**Where**: each directory ``<name>/`` of ``~/.gemini/extensions`` (the user's) and of the
project's ``.gemini/extensions`` (the workspace's, where earlier Gemini CLI releases also
looked; current ones read only the user's). An extension is a directory holding
``gemini-extension.json`` (``name`` and ``version`` required); its
``.gemini-extension-install.json`` (written by ``gemini extensions install``) says where it
came from, and for a ``link`` install (``gemini extensions link``) the extension is read from
the linked ``source`` directory. Its hooks are in ``hooks/hooks.json``: ``{"hooks": {...}}``
in the shape of ``settings.json``'s ``hooks`` (:mod:`.reader`). A directory without a
config file, or with a broken one, is skipped with a warning naming the file, as Gemini skips
it; an extension without ``hooks/hooks.json`` has no hooks.

**Variables**: before the hooks are read, ``${extensionPath}`` (the extension's directory),
``${workspacePath}`` (the project directory), ``${/}`` and ``${pathSeparator}`` (``/``) are
replaced in every string of the file, as Gemini hydrates it; any other ``${...}`` stays.

**Enabled or not** (``extension-enablement.json`` in ``~/.gemini/extensions``, written by
``gemini extensions enable|disable [--scope user|workspace]``): an extension is enabled unless
the last of its ``overrides`` rules whose path matches the project directory starts with
``!`` (``"!/home/me/*"``: disabled there and below; ``"/home/me/work/"``: enabled in that
directory only). ``hooksConfig.enabled: false`` in ``~/.gemini/settings.json`` turns every
extension hook off, as it turns off Gemini's hooks system. A disabled extension yields no
hooks; :func:`skipped_extensions` says why, for ``amplifier-hooks hooks list``.

**Trust**: the user's extensions are the user's own, trusted as ``~/.gemini/settings.json`` is.
A workspace extension comes with the project: like a plugin kept inside the project it runs
only when the project's trust record covers its directory (``amplifier-hooks trust PATH
--include .gemini/extensions/<name>``); a workspace extension that links elsewhere in the
project needs the linked directory covered, and one that links outside the project is skipped
with a warning.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from ...config import DeclarativeConfig
from ...document import HooksDocument
from ...source import Source
from .places import EXTENSIONS_DIR
from .reader import parse_gemini_settings, strip_json_comments

__all__ = [
    "CONFIG_FILE",
    "ENABLEMENT_FILE",
    "EXTENSIONS_DIR",
    "HOOKS_FILE",
    "INSTALL_METADATA_FILE",
    "GeminiExtension",
    "discover_extensions",
    "extension_reader",
    "gemini_extension_sources",
    "hydrate",
    "is_enabled",
    "parse_extension_hooks",
    "skipped_extensions",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

CONFIG_FILE: Final = "gemini-extension.json"
INSTALL_METADATA_FILE: Final = ".gemini-extension-install.json"
ENABLEMENT_FILE: Final = "extension-enablement.json"
"""In the user's extensions directory: each extension's enable/disable ``overrides``."""
HOOKS_FILE: Final = "hooks/hooks.json"
"""An extension's hooks, relative to its directory."""

_VARIABLE: Final = re.compile(r"\$\{(.*?)\}")

Scope = Literal["user", "workspace"]


@dataclass(frozen=True, slots=True)
class GeminiExtension:
    """One installed extension."""

    name: str
    version: str
    scope: Scope
    installed: Path
    """Its directory under an extensions directory."""
    root: Path
    """Where it is read from: ``installed``, or the ``source`` of a ``link`` install."""
    disabled: str | None = None
    """Why its hooks do not run, or ``None``."""

    @property
    def hooks_file(self) -> Path:
        return self.root / HOOKS_FILE

    @property
    def label(self) -> str:
        """How labels name it: ``gemini extension guard: hooks/hooks.json``."""
        where = "" if self.scope == "user" else " (workspace)"
        return f"gemini extension {self.name}{where}: {HOOKS_FILE}"


def _slashed(path: str) -> str:
    path = path.replace("\\", "/")
    return ("" if path.startswith("/") else "/") + path + ("" if path.endswith("/") else "/")


def _rule_regex(rule: str) -> re.Pattern[str]:
    """Gemini's ``Override.asRegex`` for a rule of the enablement file (without its ``!``)."""
    subdirs = rule.endswith("*")
    base = rule[:-1] if subdirs else rule
    glob = base + ("*" if subdirs else "")
    escaped = re.sub(r"[.+?^${}()|\[\]\\]", lambda m: "\\" + m.group(0), glob)
    return re.compile("^" + re.sub(r"(/?)\*", r"(\1.*)?", escaped) + "$")


def is_enabled(overrides: list[str], path: Path) -> tuple[bool, str | None]:
    """Whether ``overrides`` (one extension's rules, in order) leave it enabled in ``path``,
    and the rule that decided, if any: the last matching rule wins, default enabled."""
    enabled, deciding = True, None
    target = _slashed(str(path))
    for rule in overrides:
        disable = rule.startswith("!")
        if _rule_regex(rule[1:] if disable else rule).match(target):
            enabled, deciding = not disable, rule
    return enabled, deciding


def _read_json(path: Path) -> Any:
    return json.loads(strip_json_comments(path.read_text(encoding="utf-8-sig")))


def _enablement(user_extensions: Path) -> dict[str, list[str]]:
    path = user_extensions / ENABLEMENT_FILE
    try:
        data = _read_json(path)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        logger.warning("Gemini extensions: %s cannot be read (%s); every one is enabled", path, err)
        return {}
    rules: dict[str, list[str]] = {}
    if isinstance(data, dict):
        for name, entry in data.items():
            overrides = entry.get("overrides") if isinstance(entry, dict) else None
            if isinstance(overrides, list) and all(isinstance(r, str) for r in overrides):
                rules[str(name)] = overrides
            else:
                logger.warning("Gemini extensions: %s: %s.overrides is not a list", path, name)
    return rules


def _hooks_switched_off(home: Path) -> bool:
    """``hooksConfig.enabled: false`` in the user's Gemini settings."""
    try:
        data = _read_json(home / ".gemini" / "settings.json")
    except (OSError, ValueError):
        return False
    config = data.get("hooksConfig") if isinstance(data, dict) else None
    return isinstance(config, dict) and config.get("enabled") is False


def _install_source(directory: Path) -> Path | None:
    """The linked directory of a ``link`` install, else ``None``."""
    try:
        metadata = _read_json(directory / INSTALL_METADATA_FILE)
    except (OSError, ValueError):
        return None
    if isinstance(metadata, dict) and metadata.get("type") == "link":
        source = metadata.get("source")
        if isinstance(source, str) and source:
            return Path(source).expanduser()
    return None


def _extensions_in(
    base: Path, scope: Scope, rules: Mapping[str, list[str]], project_dir: Path, off: bool
) -> Iterator[GeminiExtension]:
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return
    for entry in names:
        installed = base / entry
        if not installed.is_dir():
            continue
        root = _install_source(installed) or installed
        config_path = root / CONFIG_FILE
        try:
            config = _read_json(config_path)
        except FileNotFoundError:
            logger.warning("Gemini extension %s: no %s; skipped", installed, config_path)
            continue
        except (OSError, ValueError) as err:
            logger.warning("Gemini extension %s: %s: %s; skipped", installed, config_path, err)
            continue
        name = config.get("name") if isinstance(config, dict) else None
        version = config.get("version") if isinstance(config, dict) else None
        if not isinstance(name, str) or not name or not isinstance(version, str) or not version:
            missing = "name" if not isinstance(name, str) or not name else "version"
            logger.warning(
                "Gemini extension %s: %s: missing %r; skipped", installed, config_path, missing
            )
            continue
        enabled, rule = is_enabled(list(rules.get(name, ())), project_dir)
        disabled = None
        if off:
            disabled = "hooksConfig.enabled is false in ~/.gemini/settings.json"
        elif not enabled:
            disabled = f"disabled for {project_dir} by {rule!r} in {ENABLEMENT_FILE}"
        yield GeminiExtension(name, version, scope, installed, root.resolve(), disabled)


def discover_extensions(project_dir: Path, *, home: Path | None = None) -> list[GeminiExtension]:
    """Every extension installed for the user (``~/.gemini/extensions``) and in the project
    (``.gemini/extensions``), enabled or not, in that order and by directory name."""
    home = Path.home() if home is None else home
    user_dir = home / EXTENSIONS_DIR
    rules = _enablement(user_dir)
    off = _hooks_switched_off(home)
    found = list(_extensions_in(user_dir, "user", rules, project_dir, off))
    workspace = project_dir / EXTENSIONS_DIR
    if workspace.resolve() != user_dir.resolve():
        found.extend(_extensions_in(workspace, "workspace", rules, project_dir, off))
    return found


def skipped_extensions(project_dir: Path, *, home: Path | None = None) -> list[tuple[str, str]]:
    """``(label, why)`` for each installed extension whose hooks do not run in ``project_dir``."""
    return [
        (extension.label, extension.disabled)
        for extension in discover_extensions(project_dir, home=home)
        if extension.disabled is not None and extension.hooks_file.is_file()
    ]


def hydrate(text: str, values: Mapping[str, str]) -> str:
    """``text`` (a JSON document) with each ``${key}`` of ``values`` replaced by its value,
    written as JSON string content; lines stay where they were."""

    def value(match: re.Match[str]) -> str:
        found = values.get(match.group(1))
        return match.group(0) if found is None else json.dumps(found)[1:-1]

    return _VARIABLE.sub(value, text)


def parse_extension_hooks(
    text: str, source: str, *, extension_path: str, workspace_path: str
) -> HooksDocument:
    """The hooks of an extension's ``hooks/hooks.json`` (see the module docstring).

    :raises HooksConfigError: invalid JSON or hooks, with file, line and key path.
    """
    values = {
        "extensionPath": extension_path,
        "workspacePath": workspace_path,
        "/": "/",
        "pathSeparator": "/",
    }
    return parse_gemini_settings(hydrate(text, values), source)


def extension_reader(
    extension: GeminiExtension, project_dir: Path
) -> Callable[[str, str], HooksDocument]:
    """The reader of ``extension``'s hooks file: ``reader(text, label)``."""
    return functools.partial(
        parse_extension_hooks,
        extension_path=str(extension.root),
        workspace_path=str(project_dir),
    )


def gemini_extension_sources(
    settings: DeclarativeConfig, project_dir: Path, *, user: bool
) -> list[Source]:
    """The hooks files of the enabled extensions, the user's (``user``) or the workspace's,
    as the ``gemini`` config key allows; a disabled one is logged and left out."""
    if not settings.gemini:
        return []
    scope: Scope = "user" if user else "workspace"
    found: list[Source] = []
    for extension in discover_extensions(project_dir):
        if extension.scope != scope:
            continue
        if extension.disabled is not None:
            logger.info("%s: its hooks do not run: %s", extension.label, extension.disabled)
            continue
        reader = extension_reader(extension, project_dir)
        if user:
            found.append(
                Source(
                    "user-gemini-extension", extension.label, extension.hooks_file, reader=reader
                )
            )
            continue
        if not extension.root.is_relative_to(project_dir):  # a link install, a symbolic link
            logger.warning(
                "%s: skipped: the workspace extension lies in %s, outside the project, where "
                "the project's trust record cannot cover it",
                extension.label,
                extension.root,
            )
            continue
        covers = extension.installed if extension.root == extension.installed else extension.root
        found.append(
            Source(
                "gemini-extension",
                extension.label,
                extension.hooks_file,
                covers=covers,
                reader=reader,
            )
        )
    return found
