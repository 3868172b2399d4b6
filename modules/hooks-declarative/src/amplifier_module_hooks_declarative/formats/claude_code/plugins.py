"""Claude Code plugins and marketplaces named in the config's ``plugins``, read as Claude Code
reads them.

A **plugin** is a directory with ``.claude-plugin/plugin.json`` (its ``name``; the manifest may
be left out, the name is then the directory's) and hooks in ``hooks/hooks.json``
(``{"description": ..., "hooks": {<Claude Code event>: [matcher groups]}}``). The manifest's
``hooks`` adds to that file: an object is hooks inline (``{<event>: [matcher groups]}``), a
string or a list names more hooks files, relative to the plugin (``./config/hooks.json``) and
inside it. A **marketplace** is a directory (a git checkout) with
``.claude-plugin/marketplace.json`` whose ``plugins`` list each plugin's ``name`` and
``source``: a relative path from the marketplace (``metadata.pluginRoot`` before it, when set).
Other sources (``github``, ``url``, ``npm``) are fetched by Claude Code's installer; here they
are skipped with a note. A directory that is neither is read as a **directory of plugins**: each
of its subdirectories that is a plugin, in name order.

Each plugin's commands get ``CLAUDE_PLUGIN_ROOT`` (the plugin's directory) and
``CLAUDE_PLUGIN_DATA`` (its persistent data directory, :func:`plugin_data_dir`, made when the
plugin is loaded and kept across sessions) in their environment and in their text, where Claude
Code substitutes ``${CLAUDE_PLUGIN_ROOT}`` before the shell runs the command
(:mod:`...variables`: quoted so that a path with spaces stays one word), and run with the
``claude-code`` protocol.

A plugin is turned off by ``disabled_plugins`` (its name, or ``name@marketplace``) or by
``"enabledPlugins": {"name@marketplace": false}`` in the project's ``.claude/settings.json`` or
``.claude/settings.local.json`` (the latter wins), as Claude Code's own switch.

A plugin that cannot be read (no such directory, invalid JSON, a hooks path outside the
plugin) is a :class:`Plugin` with its ``error``, naming the plugin, the file, the line and the
key path; :mod:`...sources` fails the mount with it, as for every source the bundle names.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.config_errors import describe_value, key_path
from amplifier_hooks_util.regular_file import read_regular
from amplifier_hooks_util.state import state_home

from amplifier_module_hooks_declarative.trust import trust_status

from ...config import MODULE_ID, DeclarativeConfig
from ...document import HooksConfigError, Problem

__all__ = [
    "MARKETPLACE_MANIFEST",
    "PLUGIN_DATA_VARIABLE",
    "PLUGIN_HOOKS_FILE",
    "PLUGIN_MANIFEST",
    "PLUGIN_ROOT_VARIABLE",
    "Plugin",
    "PluginHooksFile",
    "discover_plugins",
    "is_plugin",
    "plugin_data_dir",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

PLUGIN_MANIFEST: Final = ".claude-plugin/plugin.json"
MARKETPLACE_MANIFEST: Final = ".claude-plugin/marketplace.json"
PLUGIN_HOOKS_FILE: Final = "hooks/hooks.json"
PLUGIN_ROOT_VARIABLE: Final = "CLAUDE_PLUGIN_ROOT"
PLUGIN_DATA_VARIABLE: Final = "CLAUDE_PLUGIN_DATA"
_SETTINGS: Final = (".claude/settings.json", ".claude/settings.local.json")


@dataclass(frozen=True, slots=True)
class PluginHooksFile:
    """One file of a plugin's hooks (``hooks/hooks.json``, a file the manifest names, or the
    manifest itself for inline hooks); ``label`` names the plugin and the file."""

    path: Path
    label: str


@dataclass(frozen=True, slots=True)
class Plugin:
    """One plugin found through ``plugins[index]``.

    ``skipped`` says why its hooks do not run (disabled, a remote source); ``error`` why it
    cannot be read. Otherwise ``files`` are its hooks files, in order.
    """

    name: str
    root: Path
    entry: str
    """The config key that led to it (``plugins[0]``)."""
    marketplace: str | None = None
    files: tuple[PluginHooksFile, ...] = ()
    skipped: str | None = None
    error: HooksConfigError | None = None
    declared: Path | None = None
    """The path ``plugins[index]`` names, made absolute and otherwise as written (links and
    ``..`` kept): a relative one lies in whichever project the session runs in, wherever its
    links point."""

    @property
    def index(self) -> int:
        """The index in ``plugins`` that led to it."""
        return int(self.entry.removeprefix("plugins[").removesuffix("]"))

    @property
    def id(self) -> str:
        """``name@marketplace``, as Claude Code names an installed plugin, else ``name``."""
        return f"{self.name}@{self.marketplace}" if self.marketplace else self.name

    @property
    def label(self) -> str:
        return f"plugin {self.id}"


def plugin_data_dir(plugin_id: str) -> Path:
    """The persistent data directory of the plugin ``plugin_id`` (``name@marketplace``):
    ``plugins/data/<id>/`` in the state directory (``$AMPLIFIER_HOME``, else
    ``~/.amplifier``), every character but letters, digits, ``_`` and ``-`` replaced by ``-``,
    as Claude Code names ``~/.claude/plugins/data/<id>/``."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "-", plugin_id)
    return state_home() / "plugins" / "data" / safe


def is_plugin(path: Path) -> bool:
    """``path`` holds a plugin manifest or a plugin's ``hooks/hooks.json``."""
    return (path / PLUGIN_MANIFEST).is_file() or (path / PLUGIN_HOOKS_FILE).is_file()


class _Json:
    """A JSON file's data, with the line of each key path."""

    def __init__(self, path: Path, label: str) -> None:
        import yaml  # with the first plugin read, not by a mount that reads none
        from amplifier_hooks_util.yaml_locations import YamlDocument

        self.label = label
        self.positions = YamlDocument(None)
        try:
            self.text = read_regular(path).decode("utf-8-sig")
        except OSError as err:
            reason = str(err) if err.strerror is None else err.strerror
            raise self.error(f"cannot read the file: {reason}") from err
        except UnicodeDecodeError as err:
            line = err.object[: err.start].count(b"\n") + 1
            problem = Problem(f"not UTF-8 text: byte {err.object[err.start]:#04x}", line=line)
            raise HooksConfigError(label, [problem]) from err
        try:
            self.data: Any = json.loads(self.text)
        except json.JSONDecodeError as err:
            raise HooksConfigError(
                label, [Problem(f"invalid JSON: {err.msg} (column {err.colno})", line=err.lineno)]
            ) from err
        with contextlib.suppress(yaml.YAMLError):  # lines are a convenience; the JSON is valid
            self.positions = YamlDocument.positions(self.text.replace("\t", " "))

    def error(self, message: str, *loc: str | int) -> HooksConfigError:
        line = self.positions.line_of(loc) if loc else None
        return HooksConfigError(self.label, [Problem(message, key_path(loc) or None, line, loc)])


def _enabled_switches(project_dir: Path) -> dict[str, tuple[bool, str]]:
    """``enabledPlugins`` of the project's Claude Code settings: id -> (enabled, file); none
    unless the project is trusted. The settings are parsed from the bytes its trust check
    hashed (a file swapped after the check switches nothing off)."""
    paths = [project_dir / name for name in _SETTINGS]
    status = trust_status(project_dir, keep=paths)
    if not status.trusted:
        return {}  # the project's own settings switch plugins off only once it is trusted
    switches: dict[str, tuple[bool, str]] = {}
    for name, path in zip(_SETTINGS, paths, strict=True):
        try:
            if status.surface is not None:
                raw = status.surface.contents.get(os.path.realpath(path))
                if raw is None:
                    continue
            else:  # trusted by the environment: nothing was hashed
                raw = read_regular(path)
            data = json.loads(raw.decode("utf-8-sig"))
        except (OSError, ValueError):  # absent; a broken one is reported as a hooks source
            continue
        enabled = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(enabled, dict):
            for key, value in enabled.items():
                if isinstance(value, bool):
                    switches[str(key)] = (value, name)
    return switches


def _skip_reason(
    plugin: Plugin, settings: DeclarativeConfig, switches: dict[str, tuple[bool, str]]
) -> str | None:
    for key in (plugin.id, plugin.name):
        if key in settings.disabled_plugins:
            return f"disabled by disabled_plugins ({key!r}) in the {MODULE_ID} config"
    for key in (plugin.id, plugin.name):
        if key in switches and not switches[key][0]:
            return f'disabled by "enabledPlugins": {{"{key}": false}} in {switches[key][1]}'
    return None


def _inside(root: Path, raw: str) -> Path | None:
    path = (root / raw).resolve()
    return path if path.is_relative_to(root) else None


def _read_plugin(root: Path, entry: str, name: str | None, marketplace: str | None) -> Plugin:
    """The plugin at ``root``; ``name`` is the marketplace's name for it, if any."""
    fallback = name or root.name
    label = f"plugin {fallback}@{marketplace}" if marketplace else f"plugin {fallback}"
    files: list[Path] = []
    manifest_path = root / PLUGIN_MANIFEST
    inline = False
    try:
        if manifest_path.is_file():
            manifest = _Json(manifest_path, f"{label}: {PLUGIN_MANIFEST}")
            data = manifest.data
            if not isinstance(data, dict):
                raise manifest.error(f"expected a JSON object, got {describe_value(data)}")
            declared = data.get("name")
            if declared is not None and (not isinstance(declared, str) or not declared.strip()):
                raise manifest.error(
                    f"expected the plugin's name (a string), got {describe_value(declared)}",
                    "name",
                )
            if name is None and declared:
                fallback = declared
                label = f"plugin {declared}"
                manifest.label = f"{label}: {PLUGIN_MANIFEST}"
            hooks = data.get("hooks")
            if isinstance(hooks, dict):
                inline = True
            elif hooks is not None:
                files.extend(_named_files(root, hooks, manifest))
    except HooksConfigError as err:
        return Plugin(fallback, root, entry, marketplace, error=err)
    default = root / PLUGIN_HOOKS_FILE
    ordered = ([default] if default.is_file() else []) + [f for f in files if f != default]
    if inline:
        ordered.append(manifest_path)
    unique = list(dict.fromkeys(ordered))
    found = tuple(
        PluginHooksFile(path, f"{label}: {path.relative_to(root).as_posix()}") for path in unique
    )
    return Plugin(fallback, root, entry, marketplace, files=found)


def _named_files(root: Path, hooks: Any, manifest: _Json) -> Iterator[Path]:
    items: list[tuple[Any, tuple[str | int, ...]]] | None = None
    if isinstance(hooks, str):
        items = [(hooks, ("hooks",))]
    elif isinstance(hooks, list):
        items = [(item, ("hooks", index)) for index, item in enumerate(hooks)]
    if items is None:
        raise manifest.error(
            "expected hooks inline (an object) or the path of a hooks file (a string or a "
            f"list of them), got {describe_value(hooks)}",
            "hooks",
        )
    for raw, loc in items:
        if not isinstance(raw, str) or not raw.strip():
            raise manifest.error(f"expected a relative path, got {describe_value(raw)}", *loc)
        path = None if os.path.isabs(raw) else _inside(root, raw)
        if path is None:
            raise manifest.error(
                f"{raw!r} is outside the plugin; paths are relative to it (./hooks/extra.json)",
                *loc,
            )
        if not path.is_file():
            raise manifest.error(f"no such hooks file: {raw} ({path})", *loc)
        yield path


def _read_marketplace(root: Path, entry: str) -> Iterator[Plugin]:
    label = f"marketplace {root.name}: {MARKETPLACE_MANIFEST}"
    try:
        manifest = _Json(root / MARKETPLACE_MANIFEST, label)
        data = manifest.data
        if not isinstance(data, dict) or not isinstance(data.get("plugins"), list):
            raise manifest.error("expected a JSON object with a 'plugins' list")
    except HooksConfigError as err:
        yield Plugin(root.name, root, entry, error=err)
        return
    market = data.get("name") if isinstance(data.get("name"), str) else root.name
    metadata = data.get("metadata")
    base = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    base_dir = root / base if isinstance(base, str) else root
    for index, item in enumerate(data["plugins"]):
        loc = ("plugins", index)
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name:
            yield Plugin(
                f"{market}[{index}]",
                root,
                entry,
                market,
                error=manifest.error("expected a plugin entry with a 'name'", *loc),
            )
            continue
        source = item.get("source")
        if isinstance(source, dict):
            kind = source.get("source", "remote")
            yield Plugin(
                name,
                root,
                entry,
                market,
                skipped=f"its source is {kind} ({MARKETPLACE_MANIFEST}: {key_path(loc)}."
                "source), which Claude Code's installer fetches; check it out and list its "
                "directory in plugins",
            )
            continue
        if "hooks" in item:
            logger.warning(
                "%s: %s.hooks: hooks declared in a marketplace entry are not read; put them in "
                "the plugin's %s",
                label,
                key_path(loc),
                PLUGIN_HOOKS_FILE,
            )
        path = None
        if isinstance(source, str) and not os.path.isabs(source):
            path = _inside(root, str(base_dir / source))
        if path is None or not path.is_dir():
            problem = f"no such plugin directory: {source!r}" + (f" ({path})" if path else "")
            yield Plugin(name, root, entry, market, error=manifest.error(problem, *loc, "source"))
            continue
        yield _read_plugin(path, entry, name, market)


def _plugins_of(raw: str, index: int, project_dir: Path) -> Iterator[Plugin]:
    path = Path(raw).expanduser()
    declared = path if path.is_absolute() else project_dir / path
    for plugin in _plugins_at(raw, index, declared.resolve()):
        yield dataclasses.replace(plugin, declared=declared)


def _plugins_at(raw: str, index: int, root: Path) -> Iterator[Plugin]:
    entry = f"plugins[{index}]"
    if not root.is_dir():
        problem = Problem(f"no such directory: {raw} ({root})", entry, None, ("plugins", index))
        yield Plugin(root.name, root, entry, error=HooksConfigError("config", [problem]))
    elif (root / MARKETPLACE_MANIFEST).is_file():
        yield from _read_marketplace(root, entry)
    elif is_plugin(root):
        yield _read_plugin(root, entry, None, None)
    else:
        children = sorted(p for p in root.iterdir() if p.is_dir() and is_plugin(p))
        if not children:
            problem = Problem(
                f"{raw} ({root}) is not a Claude Code plugin (no {PLUGIN_MANIFEST} or "
                f"{PLUGIN_HOOKS_FILE}), a marketplace (no {MARKETPLACE_MANIFEST}) or a "
                "directory of plugins",
                entry,
                None,
                ("plugins", index),
            )
            yield Plugin(root.name, root, entry, error=HooksConfigError("config", [problem]))
        for child in children:
            yield _read_plugin(child.resolve(), entry, None, None)


def discover_plugins(settings: DeclarativeConfig, *, project_dir: Path) -> list[Plugin]:
    """Every plugin the config's ``plugins`` leads to, in order, each with its hooks files,
    or why it is skipped, or why it cannot be read."""
    read_switches = settings.include_project and settings.claude_code and settings.plugins
    has_settings = any(os.path.lexists(project_dir / name) for name in _SETTINGS)
    switches = _enabled_switches(project_dir) if read_switches and has_settings else {}
    found: list[Plugin] = []
    for index, raw in enumerate(settings.plugins):
        for plugin in _plugins_of(raw, index, project_dir):
            if plugin.error is None and plugin.skipped is None:
                reason = _skip_reason(plugin, settings, switches)
                if reason is not None:
                    plugin = dataclasses.replace(plugin, files=(), skipped=reason)
            found.append(plugin)
    return found
