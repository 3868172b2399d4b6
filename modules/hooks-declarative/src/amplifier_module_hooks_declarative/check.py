"""A module config checked as mounting would check it, without mounting: what ``amplifier-hooks
validate`` reports, located by key path within the config.

:class:`CheckedConfig` is the package's ``config_schema``: :class:`~.config.DeclarativeConfig`
with the ``config_problems`` method ``validate`` calls. It lives here, above the sources and
the formats it reads, so that the config model itself imports none of them."""

from __future__ import annotations

from pathlib import Path

from amplifier_hooks_util.config_errors import ConfigProblem, key_path
from pydantic import ConfigDict

from .config import DeclarativeConfig
from .discovery import check_scripts, format_reader, load_source, plugin_sources
from .document import HooksConfigError, Problem
from .formats.claude_code.plugins import discover_plugins
from .parsing import parse_hooks_data
from .source import Source

__all__ = ["CheckedConfig", "config_problems"]


def _problem(found: Problem, base: tuple[str | int, ...] = ()) -> ConfigProblem:
    loc = (*base, *found.loc)
    return ConfigProblem(found.message, key_path(loc), None, None, loc, found.key)


def config_problems(
    settings: DeclarativeConfig, *, working_dir: str | None = None
) -> list[ConfigProblem]:
    """The inline ``hooks``, every file of ``files`` and every plugin of ``plugins``, checked
    with their script files; the project directory is ``project_dir``, else ``working_dir``,
    else the current directory."""
    project_dir = Path(settings.project_dir or working_dir or ".").expanduser().resolve()
    problems: list[ConfigProblem] = []
    if settings.hooks is not None:
        try:
            document = parse_hooks_data({"hooks": settings.hooks}, "config")
        except HooksConfigError as err:
            problems += [_problem(p) for p in err.problems]
        else:
            problems += [_problem(p) for p in check_scripts(document, project_dir=project_dir)]
    for index, raw in enumerate(settings.files):
        path = Path(raw).expanduser()
        path = (path if path.is_absolute() else project_dir / path).resolve()
        source = Source("file", str(path), path, required=True, reader=format_reader(path))
        try:
            load_source(source, settings, project_dir=project_dir)
        except HooksConfigError as err:
            loc: tuple[str | int, ...] = ("files", index)
            problems.append(ConfigProblem(str(err), key_path(loc), None, None, loc))
    for plugin in discover_plugins(settings, project_dir=project_dir):
        for source in plugin_sources(plugin, project_dir):
            try:
                load_source(source, settings, project_dir=project_dir)
            except HooksConfigError as err:
                loc = ("plugins", plugin.index)
                problems.append(ConfigProblem(str(err), key_path(loc), None, None, loc))
    return problems


class CheckedConfig(DeclarativeConfig):
    """The module config as ``amplifier-hooks validate`` checks it (the ``config_schema``)."""

    model_config = ConfigDict(title="DeclarativeConfig")

    def config_problems(self, *, working_dir: str | None = None) -> list[ConfigProblem]:
        """What mounting would reject beyond the keys' types: the inline ``hooks`` (events,
        patterns, hook entries, script files) and each file in ``files``, located by key path
        within this config. ``working_dir`` stands for the session's working directory."""
        return config_problems(self, working_dir=working_dir)
