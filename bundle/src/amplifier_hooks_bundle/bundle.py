"""Bundle files: which modules a session mounts, in which order, with which config.

A bundle is a YAML file (``bundle.yaml``), or a Markdown file whose YAML front matter holds
the same keys (``bundle.md``; the Markdown body is kept as :attr:`Bundle.instruction`)::

    bundle:
      name: my-assistant
      version: 1.0.0
    session:
      injection_size_limit: 10240
    hooks:
      - module: hooks-logging
      - module: hooks-approval
        source: ./modules/hooks-approval     # optional: a local directory
        config:
          require_approval: [bash, write_file]

``hooks``, ``tools`` and ``providers`` are lists of module entries ``{module, config,
source}``; ``session`` is the session's settings (:class:`~amplifier_core.session_settings.
SessionSettings`); every other top-level key (``agents``,
``includes``, ...) is kept as it is, in :attr:`Bundle.model_extra`.

A bad file raises :class:`~amplifier_core.errors.BundleError` naming the file, the line,
the key path and what was expected, never a bare traceback::

    invalid bundle bundle.yaml:9: hooks[1].config: expected a mapping, got str 'verbose'

Beyond the schema, a bundle must not list one module twice (the loader mounts each module
once), must not repeat a key inside one mapping (YAML would silently keep the last), and
must not misspell a known top-level key (``hoks:`` would otherwise mount nothing).

This module reads one file; :func:`~amplifier_hooks_bundle.load.load_bundle` reads a bundle
with its includes.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import yaml
from amplifier_hooks_util.config_errors import describe_value, key_path, validation_problems
from amplifier_hooks_util.yaml_locations import YamlDocument, describe_yaml_error
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from amplifier_core.errors import BundleError, BundleProblem
from amplifier_core.session_settings import SessionSettings

__all__ = [
    "BUNDLE_FILE_NAMES",
    "MODULE_SECTIONS",
    "Bundle",
    "BundleInfo",
    "ModuleEntry",
    "parse_bundle",
    "read_bundle_file",
]

MODULE_SECTIONS: Final = ("providers", "tools", "hooks")
"""Top-level keys holding lists of module entries, in the order a session mounts them."""

BUNDLE_FILE_NAMES: Final = ("bundle.yaml", "bundle.yml", "bundle.md")
"""File names :func:`load_bundle` looks for when given a directory."""

_KNOWN_KEYS: Final = frozenset(
    {"bundle", "session", "instruction", "includes", "agents", "context", "spawn", *MODULE_SECTIONS}
)
_SKIP_CROSS_CHECKS: Final = "amplifier_hooks_bundle.skip_cross_checks"
_MARKDOWN_SUFFIXES: Final = (".md", ".markdown")

Loc = tuple[str | int, ...]


class BundleInfo(BaseModel):
    """The ``bundle:`` block: who this bundle is. Extra keys are kept."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    version: str = "0.0.0"
    description: str = ""

    @field_validator("name", "version", mode="before")
    @classmethod
    def _numbers_as_text(cls, value: Any) -> Any:
        """``version: 1.0`` is a float in YAML; keep it as the text the author meant."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return value


class ModuleEntry(BaseModel):
    """One module to mount: its id, its config and, optionally, where its code lives.

    ``source`` is a local directory holding the module or a ``package.module:attr``
    reference; without it the module's ``amplifier.modules`` entry point is used.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str
    config: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None
    optional: bool = False
    """Run without this module, with a warning, when it cannot be loaded or mounted; by
    default such a failure stops a session of the bundle before its first turn."""
    observe: bool = False
    """Observe mode: the module's hook decisions (deny, ask_user, modify, inject_context) are
    emitted as ``hook:observed`` events, not applied (see :mod:`amplifier_core.observe_mode`)."""

    @field_validator("module")
    @classmethod
    def _module_id(cls, value: str) -> str:
        if not value or value != value.strip() or "=" in value:
            raise ValueError(f"expected a module id such as 'hooks-logging', got {value!r}")
        return value

    @field_validator("config", mode="before")
    @classmethod
    def _empty_config(cls, value: Any) -> Any:
        """``config:`` with nothing under it is an empty mapping, not an error."""
        return {} if value is None else value


class Bundle(BaseModel):
    """A parsed, validated bundle. Unknown top-level keys are kept in ``model_extra``."""

    model_config = ConfigDict(extra="allow")

    bundle: BundleInfo | None = None
    session: SessionSettings = Field(default_factory=SessionSettings)
    providers: list[ModuleEntry] = Field(default_factory=list)
    tools: list[ModuleEntry] = Field(default_factory=list)
    hooks: list[ModuleEntry] = Field(default_factory=list)
    instruction: str | None = None

    _source_name: str = PrivateAttr(default="<string>")
    _base_dir: Path | None = PrivateAttr(default=None)
    _origins: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    _included: list[str] = PrivateAttr(default_factory=list)
    _layers: list[tuple[str, dict[str, Any]]] = PrivateAttr(default_factory=list)
    _inline_lines: dict[int, dict[str, int]] = PrivateAttr(default_factory=dict)
    _inline_files: dict[int, dict[str, str]] = PrivateAttr(default_factory=dict)

    @field_validator("session", "providers", "tools", "hooks", mode="before")
    @classmethod
    def _empty_section(cls, value: Any, info: ValidationInfo) -> Any:
        """``hooks:`` with nothing under it is an empty section."""
        if value is None:
            return {} if info.field_name == "session" else []
        return value

    @model_validator(mode="before")
    @classmethod
    def _cross_checks(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and not (info.context or {}).get(_SKIP_CROSS_CHECKS):
            problems = [f"{key_path(loc)}: {message}" for loc, message in _cross_problems(data)]
            if problems:
                raise ValueError("; ".join(problems))
        return data

    @property
    def name(self) -> str | None:
        """``bundle.name``, if the bundle has a ``bundle:`` block."""
        return self.bundle.name if self.bundle is not None else None

    @property
    def source_name(self) -> str:
        """The file this bundle was read from (``<string>`` when parsed from text)."""
        return self._source_name

    @property
    def base_dir(self) -> Path | None:
        """The directory relative ``source`` paths are resolved against."""
        return self._base_dir

    @property
    def origins(self) -> dict[str, list[str]]:
        """For a composed bundle: ``"section.module"`` -> every ``file:line`` that wrote that
        module's entry, first to last (the last one's values win where they differ)."""
        return {key: list(found) for key, found in self._origins.items()}

    @property
    def included_files(self) -> list[str]:
        """For a composed bundle: each bundle file it includes, directly or not, in the order
        they were composed (the bundle's own file is not listed)."""
        return list(self._included)

    @property
    def layers(self) -> list[tuple[str, dict[str, Any]]]:
        """For a composed bundle: each file it was composed from and what that file wrote
        (relative sources made absolute), in composition order, its own file last; empty for
        a bundle read from one file."""
        return list(self._layers)

    @property
    def inline_hook_lines(self) -> dict[int, dict[str, int]]:
        """For each ``hooks`` entry (by index) whose config declares ``hooks`` inline, the line
        of each key path under it (``hooks.PreToolUse[0]``: 12): in :attr:`source_name`, or
        for a composed bundle in the file :attr:`inline_hook_files` names."""
        return {index: dict(lines) for index, lines in self._inline_lines.items()}

    @property
    def inline_hook_files(self) -> dict[int, dict[str, str]]:
        """For a composed bundle: the file each key path of :attr:`inline_hook_lines` was
        written in (one of the composition's files); empty for a bundle read from one
        file (they are all in :attr:`source_name`)."""
        return {index: dict(files) for index, files in self._inline_files.items()}

    def module_entries(self) -> list[tuple[str, ModuleEntry]]:
        """Every ``(section, entry)`` in mount order: providers, then tools, then hooks."""
        return [(section, entry) for section in MODULE_SECTIONS for entry in getattr(self, section)]


# -- public functions ------------------------------------------------------------------


def read_bundle_file(path: str | os.PathLike[str]) -> tuple[Bundle, YamlDocument]:
    """One bundle file, validated, and its YAML document (for the line of each key)."""
    where = Path(path)
    if where.is_dir():
        found = next((where / n for n in BUNDLE_FILE_NAMES if (where / n).is_file()), None)
        if found is None:
            names = ", ".join(BUNDLE_FILE_NAMES)
            raise BundleError(str(where), [BundleProblem(f"a directory without {names}")])
        where = found
    try:
        text = where.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        byte = err.object[err.start]
        problem = BundleProblem(
            f"not UTF-8 text: byte {byte:#04x} at offset {err.start}", line=line
        )
        raise BundleError(str(where), [problem]) from err
    except OSError as err:
        problem = BundleProblem(f"cannot read the file: {err.strerror or err}")
        raise BundleError(str(where), [problem]) from err
    bundle, document = _parse(text, str(where))
    bundle._base_dir = where.resolve().parent
    return bundle, document


def parse_bundle(
    text: str, source_name: str = "<string>", *, markdown: bool | None = None
) -> Bundle:
    """Validate bundle text; ``source_name`` is the file name used in error messages.

    :param markdown: read YAML front matter and keep the body as the instruction;
        ``None`` decides by the suffix of ``source_name`` (``.md``).
    :raises BundleError: see :func:`load_bundle`.
    """
    return _parse(text, source_name, markdown=markdown)[0]


def _parse(
    text: str, source_name: str, *, markdown: bool | None = None
) -> tuple[Bundle, YamlDocument]:
    if markdown is None:
        markdown = source_name.lower().endswith(_MARKDOWN_SUFFIXES)
    instruction: str | None = None
    if markdown:
        text, instruction = _front_matter(text, source_name)
    document = _compose(text, source_name)
    data = document.data
    if data is None:
        raise BundleError(
            source_name,
            [BundleProblem("the bundle is empty; expected a mapping with keys such as 'hooks'")],
        )
    if not isinstance(data, dict):
        raise BundleError(
            source_name,
            [
                BundleProblem(
                    f"expected a mapping with keys such as 'bundle' and 'hooks', "
                    f"got {describe_value(data)}",
                    line=document.line_of(()),
                )
            ],
        )
    if instruction is not None and "instruction" not in data:
        data["instruction"] = instruction
    problems = [
        BundleProblem(
            f"duplicate key {dup.key!r} (first at line {dup.first_line}); "
            "YAML would keep only the last one",
            key_path=key_path(dup.path),
            line=dup.line,
        )
        for dup in document.duplicate_keys()
    ]
    for loc, message in _cross_problems(data, document):
        line = document.line_of(loc, key=len(loc) == 1)
        problems.append(BundleProblem(message, key_path=key_path(loc), line=line))
    try:
        bundle = Bundle.model_validate(data, context={_SKIP_CROSS_CHECKS: True})
    except ValidationError as err:
        problems.extend(_validation_problems(err, document))
        bundle = None
    if problems or bundle is None:
        problems.sort(key=lambda p: (p.line or 0, p.column or 0))
        raise BundleError(source_name, problems)
    bundle._source_name = source_name
    bundle._inline_lines = _inline_hook_lines(bundle, document)
    return bundle, document


_MAX_INLINE_LINES: Final = 10_000
"""Key paths of inline hooks whose lines are kept, at most, per module entry."""


def _inline_hook_lines(bundle: Bundle, document: YamlDocument) -> dict[int, dict[str, int]]:
    """The line of each key path of the inline ``hooks`` of each ``hooks`` entry's config."""
    found: dict[int, dict[str, int]] = {}
    for index, entry in enumerate(bundle.hooks):
        hooks = entry.config.get("hooks")
        if not isinstance(hooks, dict | list):
            continue
        lines: dict[str, int] = {}
        stack: list[tuple[tuple[str | int, ...], Any]] = [(("hooks",), hooks)]
        seen: set[int] = set()  # an alias may repeat a collection: walk it once
        while stack and len(lines) < _MAX_INLINE_LINES:
            loc, value = stack.pop()
            line = document.line_of(("hooks", index, "config", *loc))
            if line is not None:
                lines[key_path(loc)] = line
            if isinstance(value, dict | list):
                if id(value) in seen:
                    continue
                seen.add(id(value))
            if isinstance(value, dict):
                stack.extend(((*loc, str(key)), item) for key, item in value.items())
            elif isinstance(value, list):
                stack.extend(((*loc, number), item) for number, item in enumerate(value))
        found[index] = lines
    return found


# -- YAML with positions ---------------------------------------------------------------


def _front_matter(text: str, source_name: str) -> tuple[str, str | None]:
    """Split Markdown into its YAML front matter (line numbers kept) and its body."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        problem = BundleProblem(
            "a Markdown bundle must start with YAML front matter between '---' lines", line=1
        )
        raise BundleError(source_name, [problem])
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            body = "".join(lines[index + 1 :]).strip()
            return "".join(lines[:index]), body or None
    problem = BundleProblem("the front matter opened at line 1 is never closed with '---'", line=1)
    raise BundleError(source_name, [problem])


def _compose(text: str, source_name: str) -> YamlDocument:
    """Parse YAML once, keeping both the node tree (for line numbers) and the data."""
    try:
        return YamlDocument.parse(text)
    except yaml.YAMLError as err:
        message, line, column = describe_yaml_error(err)
        problem = BundleProblem(f"invalid YAML: {message}", line=line, column=column)
        raise BundleError(source_name, [problem]) from err


# -- checks and messages ---------------------------------------------------------------


def _cross_problems(
    data: dict[Any, Any], document: YamlDocument | None = None
) -> list[tuple[Loc, str]]:
    """Problems the schema cannot see: one module listed twice, a misspelled section."""
    problems: list[tuple[Loc, str]] = []
    for key in data:
        if isinstance(key, str) and key not in _KNOWN_KEYS:
            close = difflib.get_close_matches(key, sorted(_KNOWN_KEYS), n=1, cutoff=0.8)
            if close:
                problems.append(
                    ((key,), f"unknown top-level key {key!r} (did you mean {close[0]!r}?)")
                )
    first: dict[str, Loc] = {}
    for section in MODULE_SECTIONS:
        entries = data.get(section)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            module_id = entry.get("module") if isinstance(entry, dict) else None
            if not isinstance(module_id, str):
                continue
            if module_id in first:
                earlier = first[module_id]
                where = key_path(earlier)
                if document is not None:
                    where += f" (line {document.line_of(earlier)})"
                problems.append(
                    (
                        (section, index, "module"),
                        f"module {module_id!r} is already listed at {where}; "
                        "each module is mounted once (merge the two configs)",
                    )
                )
            else:
                first[module_id] = (section, index)
    return problems


def _validation_problems(err: ValidationError, document: YamlDocument) -> Iterator[BundleProblem]:
    for problem in validation_problems(err, schema=Bundle, document=document):
        message = problem.message
        loc = problem.loc
        if len(loc) == 2 and loc[0] in MODULE_SECTIONS and isinstance(loc[1], int):
            entry = _entry(document.data, loc)
            if isinstance(entry, str):
                message += f"; write it as '- module: {entry}'"
        yield BundleProblem(message, key_path=problem.key_path or None, line=problem.line)


def _entry(data: Any, loc: Loc) -> Any:
    """The value of ``data`` at ``(section, index)``, or ``None``."""
    section, index = loc
    items = data.get(section) if isinstance(data, dict) else None
    if isinstance(items, list) and isinstance(index, int) and 0 <= index < len(items):
        return items[index]
    return None
