"""The event catalogue: every event the kernel knows, what it carries and what hooks can do.

One :class:`EventSpec` per name in :data:`amplifier_core.events.ALL_EVENTS` says, for that
event: its PascalCase alias, a one-line summary, when it fires, who emits it, which
:class:`~amplifier_core.models.HookResult` actions change the outcome, and its data fields.
The specs are data: ``catalogue.json``, shipped beside this module, read once on the first
use of :data:`CATALOGUE`, :data:`COMMON_FIELDS`, :data:`EMITTERS` or :data:`CATEGORIES` (or of
a function below), so importing the module reads no file. ``docs/events.md`` is generated from
the catalogue by the command line, so the two cannot drift apart (a test compares them)::

    amplifier-hooks events --markdown > docs/events.md

Look an event up by canonical name or alias, and check a payload against its schema::

    from amplifier_core.catalogue import spec_for, validate_event_data

    spec_for("PreToolUse").name                      # "tool:pre"
    validate_event_data("tool:pre", {"tool_name": "bash"})
    # ["tool:pre: missing required key 'tool_input' (dict[str, Any])", ...]

Every payload also carries the common fields (:data:`COMMON_FIELDS`): ``session_id``, set
through :meth:`HookRegistry.set_default_fields`, and ``timestamp``, set by the registry at emit.
Extra keys are always allowed; handlers ignore keys they do not know.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, cast, get_args

from . import events as _events
from .models import HookAction

__all__ = [
    "CATALOGUE",
    "CATEGORIES",
    "COMMON_FIELDS",
    "EMITTERS",
    "ActionEffect",
    "EventSpec",
    "FieldSpec",
    "UnknownEventError",
    "spec_for",
    "specs_matching",
    "validate_event_data",
]


# ---------------------------------------------------------------------------------- model


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One key of an event's data: its name, its type (as text), whether it is always sent."""

    name: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True, slots=True)
class ActionEffect:
    """What the session does when the combined result of an event's hooks has ``action``."""

    action: HookAction
    effect: str


@dataclass(frozen=True, slots=True)
class EventSpec:
    """The documented contract of one event.

    ``when`` says when the event fires. ``effects`` lists the :class:`HookResult` actions that
    change the outcome (an empty tuple means observe only: the session ignores the action).
    ``modifiable`` names the keys the session reads back from ``result.data`` when a hook
    returns ``modify``. ``fields`` are the event's own keys; :attr:`all_fields` adds the
    common ones.
    """

    name: str
    category: str
    aliases: tuple[str, ...]
    summary: str
    when: str
    emitter: str
    fields: tuple[FieldSpec, ...]
    effects: tuple[ActionEffect, ...] = ()
    modifiable: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        names = [f.name for f in self.all_fields]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"catalogue: {self.name}: duplicate field(s) {duplicates}")
        if ("modify" in self.honours) != bool(self.modifiable):
            raise ValueError(
                f"catalogue: {self.name}: 'modify' must be honoured exactly when "
                f"modifiable keys are named (modifiable={list(self.modifiable)})"
            )
        unknown = [key for key in self.modifiable if key not in names]
        if unknown:
            raise ValueError(f"catalogue: {self.name}: modifiable keys {unknown} are not fields")
        if "continue" in self.honours:
            raise ValueError(f"catalogue: {self.name}: 'continue' is implied, do not list it")
        if self.emitter not in _emitters():
            raise ValueError(f"catalogue: {self.name}: unknown emitter {self.emitter!r}")
        if self.category not in _categories():
            raise ValueError(f"catalogue: {self.name}: unknown category {self.category!r}")

    @property
    def alias(self) -> str | None:
        """The first PascalCase alias, or ``None`` when the event has none."""
        return self.aliases[0] if self.aliases else None

    @property
    def honours(self) -> tuple[HookAction, ...]:
        """Actions besides ``continue`` that change what the session does."""
        return tuple(e.action for e in self.effects)

    @property
    def observe_only(self) -> bool:
        """True when no hook result can change what the session does."""
        return not self.effects

    @property
    def upstream(self) -> bool:
        """True for the 43 events of amplifier-core 2.0.2; False for the three added here."""
        return self.name in _events._UPSTREAM_EVENTS

    @property
    def all_fields(self) -> tuple[FieldSpec, ...]:
        """The common fields followed by the event's own fields."""
        return _common_fields() + self.fields

    @property
    def required_keys(self) -> frozenset[str]:
        """Every key the emitter always sends, common fields included."""
        return frozenset(f.name for f in self.all_fields if f.required)


class UnknownEventError(KeyError):
    """An event name (or alias) the catalogue does not document."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown event"


# ----------------------------------------------------------------------------- the data

_DATA_FILE: Final = "catalogue.json"

if TYPE_CHECKING:
    #: Canonical event name -> its :class:`EventSpec`, in documentation order.
    CATALOGUE: Mapping[str, EventSpec]
    #: The fields every payload carries: ``session_id`` and ``timestamp``.
    COMMON_FIELDS: tuple[FieldSpec, ...]
    #: Every emitter an event names, with what it is.
    EMITTERS: Mapping[str, str]
    #: Section titles of ``docs/events.md``, in order.
    CATEGORIES: tuple[str, ...]


class _Reader:
    """Reads one part of ``catalogue.json``; its errors name the file and the key path."""

    __slots__ = ("key", "parent", "value")

    def __init__(self, value: object, key: str | int = "", parent: _Reader | None = None) -> None:
        self.value = value
        self.key = key
        self.parent = parent

    @property
    def where(self) -> str:
        """The key path from the top of the file: ``['events'][3] (tool:pre)['fields'][0]``."""
        if self.parent is None:
            return str(self.key)
        step = f"[{self.key!r}]" if isinstance(self.key, str) else f"[{self.key}]"
        return self.parent.where + step

    def fail(self, problem: str) -> ValueError:
        return ValueError(f"amplifier_core/{_DATA_FILE}: {self.where}: {problem}")

    def at(self, key: str | int) -> _Reader:
        value = self.value
        if isinstance(key, int):
            return _Reader(cast(list[object], value)[key], key, self)
        if not isinstance(value, dict) or key not in value:
            raise self.fail(f"missing key {key!r}")
        return _Reader(value[key], key, self)

    def get(self, key: str) -> _Reader:
        """The value at ``key``, an empty list when the key is absent."""
        value = self.value.get(key, []) if isinstance(self.value, dict) else None
        return _Reader(value, key, self)

    def text(self) -> str:
        if not isinstance(self.value, str):
            raise self.fail(f"expected a string, found {type(self.value).__name__}")
        return self.value

    def items(self) -> list[_Reader]:
        if not isinstance(self.value, list):
            raise self.fail(f"expected a list, found {type(self.value).__name__}")
        return [self.at(i) for i in range(len(self.value))]

    def texts(self) -> tuple[str, ...]:
        return tuple(item.text() for item in self.items())

    def field(self) -> FieldSpec:
        required = self.at("required").value
        if not isinstance(required, bool):
            raise self.at("required").fail("expected true or false")
        return FieldSpec(
            self.at("name").text(), self.at("type").text(), required, self.at("description").text()
        )

    def fields(self, sets: Mapping[str, tuple[FieldSpec, ...]]) -> tuple[FieldSpec, ...]:
        """Fields, where a string ``"@name"`` stands for the fields of ``field_sets[name]``."""
        out: list[FieldSpec] = []
        for item in self.items():
            if not isinstance(item.value, str):
                out.append(item.field())
            elif item.value.startswith("@") and item.value[1:] in sets:
                out.extend(sets[item.value[1:]])
            else:
                raise item.fail(f"{item.value!r} names no field set (known: {sorted(sets)})")
        return tuple(out)


@functools.cache
def _document() -> _Reader:
    """``catalogue.json``, parsed once."""
    import json
    from pathlib import Path

    text = Path(__file__).with_name(_DATA_FILE).read_text(encoding="utf-8")
    return _Reader(json.loads(text))


@functools.cache
def _common_fields() -> tuple[FieldSpec, ...]:
    return tuple(item.field() for item in _document().at("common_fields").items())


@functools.cache
def _emitters() -> Mapping[str, str]:
    emitters = _document().at("emitters")
    if not isinstance(emitters.value, dict):
        raise emitters.fail("expected an object of emitter: description")
    return MappingProxyType({str(name): emitters.at(str(name)).text() for name in emitters.value})


@functools.cache
def _categories() -> tuple[str, ...]:
    return _document().at("categories").texts()


def _aliases_of(name: str) -> tuple[str, ...]:
    return tuple(
        alias
        for alias, target in _events._ALIASES.items()
        if target == name or (_events.is_pattern(target) and fnmatchcase(name, target))
    )


_ACTIONS: Final[tuple[str, ...]] = get_args(HookAction)


def _effect(item: _Reader) -> ActionEffect:
    action = item.at("action").text()
    if action not in _ACTIONS:
        raise item.at("action").fail(f"unknown action {action!r} (known: {list(_ACTIONS)})")
    return ActionEffect(cast(HookAction, action), item.at("effect").text())


def _spec(item: _Reader, sets: Mapping[str, tuple[FieldSpec, ...]]) -> EventSpec:
    name = item.at("name").text()
    item = _Reader(item.value, f"{item.where} ({name})")  # a root that names the event
    try:
        return EventSpec(
            name=name,
            category=item.at("category").text(),
            aliases=_aliases_of(name),
            summary=item.at("summary").text(),
            when=item.at("when").text(),
            emitter=item.at("emitter").text(),
            fields=item.at("fields").fields(sets),
            effects=tuple(_effect(effect) for effect in item.get("effects").items()),
            modifiable=item.get("modifiable").texts(),
        )
    except ValueError as error:
        if str(error).startswith(f"amplifier_core/{_DATA_FILE}"):
            raise
        raise item.fail(str(error)) from None


@functools.cache
def _catalogue() -> Mapping[str, EventSpec]:
    document = _document()
    sets_reader = document.at("field_sets")
    if not isinstance(sets_reader.value, dict):
        raise sets_reader.fail("expected an object of set name: fields")
    sets = {str(key): sets_reader.at(str(key)).fields({}) for key in sets_reader.value}
    specs: dict[str, EventSpec] = {}
    for item in document.at("events").items():
        spec = _spec(item, sets)
        if spec.name in specs:
            raise item.at("name").fail(f"{spec.name!r} is listed twice")
        specs[spec.name] = spec
    return MappingProxyType(specs)


_LAZY: Final[Mapping[str, Any]] = {
    "CATALOGUE": _catalogue,
    "COMMON_FIELDS": _common_fields,
    "EMITTERS": _emitters,
    "CATEGORIES": _categories,
}


def __getattr__(name: str) -> Any:
    load = _LAZY.get(name)
    if load is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load()


# ------------------------------------------------------------------------------- lookup


def spec_for(name: str) -> EventSpec:
    """The spec of ``name``: a canonical event name or a PascalCase alias (``PreToolUse``).

    Raises :class:`UnknownEventError` for a name the catalogue does not document, and for a
    pattern (``Error``, ``tool:*``): use :func:`specs_matching` for those.
    """
    resolved = _events.canonical(name)
    spec = _catalogue().get(resolved)
    if spec is not None:
        return spec
    if _events.is_pattern(resolved):
        covered = ", ".join(s.name for s in specs_matching(resolved)) or "no event"
        raise UnknownEventError(
            f"{name!r} is a subscription pattern ({resolved}) covering {covered}; "
            "use specs_matching() for patterns"
        )
    import difflib  # only for the message of an unknown name

    close = difflib.get_close_matches(name, [*_catalogue(), *_events._ALIASES], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownEventError(f"unknown event {name!r}: not in the event catalogue{hint}")


def specs_matching(pattern: str) -> tuple[EventSpec, ...]:
    """Specs of every event a subscription to ``pattern`` receives, in documentation order.

    ``pattern`` may be a name, an alias (``Error`` covers every ``*:error`` event) or an
    fnmatch pattern (``*``, ``tool:*``). Returns an empty tuple when nothing matches.
    """
    resolved = _events.canonical(pattern)
    if not _events.is_pattern(resolved):
        spec = _catalogue().get(resolved)
        return (spec,) if spec is not None else ()
    return tuple(s for s in _catalogue().values() if fnmatchcase(s.name, resolved))


def validate_event_data(
    name: str, data: Mapping[str, object], *, include_common: bool = True
) -> list[str]:
    """Problems with ``data`` as the payload of event ``name``; an empty list means valid.

    Reports each missing required key, naming the event, the key and its type. Unknown keys
    are allowed. ``include_common=False`` skips ``session_id`` and ``timestamp`` (for data
    checked before the registry adds them). Raises :class:`UnknownEventError` for an event the
    catalogue does not document.
    """
    spec = spec_for(name)
    fields = spec.all_fields if include_common else spec.fields
    return [
        f"{spec.name}: missing required key {f.name!r} ({f.type})"
        for f in fields
        if f.required and f.name not in data
    ]
