"""Config mistakes as located, readable lines: ``file:line: key.path: what was expected``.

:func:`validation_problems` turns a pydantic ``ValidationError`` into :class:`ConfigProblem`
items: the key path in the notation a YAML author reads (``hooks[1].config``), without
pydantic's union-branch labels; the line when the source document is known
(:class:`~amplifier_hooks_util.yaml_locations.YamlDocument`); and a message that says what was
expected and what was found::

    hooks[0].confg: unknown key 'confg' (did you mean 'config'?); expected one of: module, ...
    timeout: expected a number greater than 0, got int 0
    files: expected a list, got str 'a.yaml'
    bundle.name: missing required key 'name'

:func:`validate_config` is the whole job for a module's config: ``None`` means every default,
anything but a mapping is refused, and every problem lands in one :class:`ConfigError`
(a ``ValueError``) whose message starts with ``<module id>: config:``.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final, TypeVar, Union

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

if TYPE_CHECKING:  # PyYAML is imported by whoever reads a document, not by a config check
    from .yaml_locations import YamlDocument

__all__ = [
    "ConfigError",
    "ConfigProblem",
    "Loc",
    "allowed_keys",
    "describe_value",
    "key_path",
    "unknown_key_message",
    "validate_config",
    "validation_problems",
]

Loc = tuple[str | int, ...]
ModelT = TypeVar("ModelT", bound=BaseModel)

_KEY_MARK: Final = "[key]"
_HIDDEN: Final = object()
_NOUNS: Final = {
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "dataclass_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
    "frozen_set_type": "a list",
    "iterable_type": "a list",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "none_required": "null",
}
_BOUNDS: Final = {
    "greater_than": ("gt", "a number greater than"),
    "greater_than_equal": ("ge", "a number at least"),
    "less_than": ("lt", "a number less than"),
    "less_than_equal": ("le", "a number at most"),
}
_OWN_MESSAGES: Final = {"value_error": "Value error, ", "assertion_error": "Assertion failed, "}


# ----------------------------------------------------------------------------- words


def key_path(loc: Iterable[str | int]) -> str:
    """``("hooks", 1, "config")`` -> ``hooks[1].config``; ``""`` for the root."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part == _KEY_MARK:
            text += " (the key)"
        else:
            text += f".{part}" if text else part
    return text


def describe_value(value: object) -> str:
    """A short, readable account of a value: ``null``, ``bool true``, ``a mapping``,
    ``a list``, ``str 'x'``, ``int 3`` (long values are cut)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"bool {str(value).lower()}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple | set | frozenset):
        return "a list"
    if isinstance(value, str | int | float | bytes):
        text = repr(value)
    else:
        text = f"<{type(value).__name__} object>"
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def unknown_key_message(key: str, allowed: Sequence[str] | None) -> str:
    """``unknown key 'confg' (did you mean 'config'?); expected one of: module, config``."""
    message = f"unknown key {key!r}"
    if not allowed:
        return message
    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    return f"{message}; expected one of: {', '.join(allowed)}"


# ----------------------------------------------------------------------------- the schema


def _strip(annotation: Any) -> tuple[Any, str | None]:
    """``annotation`` without ``Annotated`` and ``None`` members, and its discriminator."""
    discriminator: str | None = None
    while True:
        if typing.get_origin(annotation) is Annotated:
            for meta in annotation.__metadata__:
                if isinstance(meta, FieldInfo) and isinstance(meta.discriminator, str):
                    discriminator = meta.discriminator
            annotation = annotation.__origin__
            continue
        members = _union_members(annotation)
        if members is not None and len(members) == 1:
            annotation = members[0]
            continue
        return annotation, discriminator


def _union_members(annotation: Any) -> list[Any] | None:
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return [m for m in typing.get_args(annotation) if m is not type(None)]
    return None


def _model(annotation: Any) -> type[BaseModel] | None:
    return (
        annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    )


def _field(model: type[BaseModel], name: str) -> FieldInfo | None:
    for field_name, field in model.model_fields.items():
        if name in (field_name, field.alias):
            return field
    return None


def _branch(members: list[Any], tag: str, discriminator: str | None) -> Any:
    """The union member that pydantic labels ``tag`` in an error location, if it is known."""
    for member in members:
        inner, _ = _strip(member)
        model = _model(inner)
        if discriminator is not None and model is not None:
            field = _field(model, discriminator)
            if field is not None and tag in typing.get_args(field.annotation):
                return member
        name = getattr(inner, "__name__", None) or getattr(typing.get_origin(inner), "__name__", "")
        if name and (tag == name or tag.startswith(f"{name}[")):
            return member
    return None


def _child(annotation: Any, part: str | int) -> tuple[Any, str | None]:
    """The annotation of ``part`` inside a value of type ``annotation`` (``None``: unknown)."""
    model = _model(annotation)
    if model is not None:
        field = _field(model, str(part)) if isinstance(part, str) else None
        if field is None:
            return None, None
        disc = field.discriminator if isinstance(field.discriminator, str) else None
        return field.annotation, disc
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (list, set, frozenset, Sequence) and args and isinstance(part, int):
        return args[0], None
    if origin is tuple and args and isinstance(part, int):
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0], None
        return (args[part], None) if part < len(args) else (None, None)
    if origin in (dict, Mapping) and len(args) == 2:
        return (args[0] if part == _KEY_MARK else args[1]), None
    return None, None


@dataclass(frozen=True, slots=True)
class _Located:
    loc: Loc  # without union labels
    annotation: Any  # of the value at ``loc`` (``None``: unknown)
    container: Any  # of the value that holds the last step of ``loc``
    union_at: Loc | None  # the first union on the way, and whether the error lies beyond it
    beyond_union: bool


def _locate(schema: Any, loc: Sequence[str | int]) -> _Located:
    annotation, discriminator = _strip(schema) if schema is not None else (None, None)
    clean: list[str | int] = []
    container: Any = None
    union_at: Loc | None = None
    beyond = False
    index = 0
    while index < len(loc):
        part = loc[index]
        members = _union_members(annotation) if annotation is not None else None
        if members is not None and isinstance(part, str):  # pydantic's label of a branch
            if union_at is None:
                union_at, beyond = tuple(clean), index + 1 < len(loc)
            annotation, discriminator = _strip(_branch(members, part, discriminator))
            index += 1
            continue
        clean.append(part)
        container = annotation
        if annotation is not None:
            child, field_discriminator = _child(annotation, part)
            annotation, discriminator = _strip(child)
            discriminator = field_discriminator or discriminator
        index += 1
    return _Located(tuple(clean), annotation, container, union_at, beyond)


def allowed_keys(schema: Any, loc: Sequence[str | int]) -> list[str] | None:
    """The keys a mapping at ``loc`` of a value of type ``schema`` accepts (field aliases
    where they are set), or ``None`` when that is not a model's mapping."""
    return _keys(_locate(schema, loc).annotation) if schema is not None else None


def _keys(annotation: Any) -> list[str] | None:
    model = _model(annotation)
    if model is None:
        return None
    return [field.alias or name for name, field in model.model_fields.items()]


# ----------------------------------------------------------------------------- problems


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One mistake: what is wrong, at which key path (``loc`` and its text), on which line."""

    message: str
    key_path: str = ""
    line: int | None = None
    column: int | None = None
    loc: Loc = ()
    key: bool = False
    """The problem is the key at ``loc`` itself (an unknown name), not its value."""

    def render(self, source: str | None = None) -> str:
        """``source:line:column: key.path: message``, with the parts that are known."""
        where = source or ""
        if where and self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [p for p in (where, self.key_path) if p]
        return ": ".join([*parts, self.message])


def _expectation(error: ErrorDetails) -> str | None:
    """``"a list"``, ``"a number at least 0"``, ``"one of 'a' or 'b'"`` ...: what was wanted."""
    kind = error["type"]
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    if kind in _NOUNS:
        return _NOUNS[kind]
    if kind in ("literal_error", "enum"):
        return f"one of {ctx.get('expected', '')}"
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return f"{words} {bound}"
    if kind == "string_too_short":
        size = ctx.get("min_length", 1)
        return "a non-empty string" if size == 1 else f"a string of at least {size} characters"
    if kind == "string_too_long":
        return f"a string of at most {ctx.get('max_length')} characters"
    if kind == "too_short":
        size = ctx.get("min_length", 1)
        return f"at least {size} item{'s' if size != 1 else ''}"
    if kind == "too_long":
        size = ctx.get("max_length")
        return f"at most {size} item{'s' if size != 1 else ''}"
    return None


def _found(error: ErrorDetails) -> str:
    """``got str 'x'`` (``got 0 items`` for a size), or ``""`` when the input is hidden."""
    value = error.get("input", _HIDDEN)
    if value is _HIDDEN:
        return ""
    if error["type"] in ("too_short", "too_long") and isinstance(value, Sized):
        count = len(value)
        return f"got {count} item{'s' if count != 1 else ''}"
    return f"got {describe_value(value)}"


def _message(error: ErrorDetails) -> str:
    kind = error["type"]
    message = str(error["msg"])
    if kind in _OWN_MESSAGES:
        return message.removeprefix(_OWN_MESSAGES[kind])
    expected = _expectation(error)
    found = _found(error)
    if expected is None:
        return f"{message} ({found})" if found else message
    return f"expected {expected}, {found}" if found else f"expected {expected}"


def validation_problems(
    errors: ValidationError | Iterable[ErrorDetails],
    *,
    schema: Any = None,
    base: Sequence[str | int] = (),
    document: YamlDocument | None = None,
) -> list[ConfigProblem]:
    """The problems of a failed validation, in pydantic's order, each once.

    :param errors: the ``ValidationError`` (or its ``errors()``).
    :param schema: the model (or type) that was validated: it names the keys an unknown key
        could have been, and tells pydantic's union-branch labels from keys.
    :param base: where the validated value sits in ``document`` (``("hooks", 0)``).
    :param document: the parsed source, for line numbers.
    """
    if isinstance(errors, ValidationError):
        errors = errors.errors(include_url=False)
    located = [(error, _locate(schema, tuple(error["loc"]))) for error in errors]
    # Where every branch of a union failed, the branches that got past the union's own check
    # (the value had their shape) say what is wrong; the others only that it is not them.
    deeper = {where.union_at for _, where in located if where.beyond_union}
    problems: list[ConfigProblem] = []
    branches: dict[Loc, list[ErrorDetails]] = {}
    for error, where in located:
        if where.union_at is not None and not where.beyond_union:
            if where.union_at not in deeper:
                branches.setdefault(where.loc, []).append(error)
            continue
        problems.append(_problem(error, where, tuple(base), document))
    for loc, alternatives in branches.items():
        problems.append(_alternatives(alternatives, loc, tuple(base), document))
    unique: dict[tuple[str, str], ConfigProblem] = {}
    for problem in problems:
        unique.setdefault((problem.key_path, problem.message), problem)
    return list(unique.values())


def _problem(
    error: ErrorDetails, where: _Located, base: Loc, document: YamlDocument | None
) -> ConfigProblem:
    loc = (*base, *where.loc)
    kind = error["type"]
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    if kind == "extra_forbidden" and where.loc:
        message = unknown_key_message(str(where.loc[-1]), _keys(where.container))
        line = document.line_of(loc, key=True) if document else None
    elif kind == "missing" and where.loc:
        message = f"missing required key {where.loc[-1]!r}"
        line = document.line_of(loc[:-1]) if document else None
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        name = str(ctx.get("discriminator", "")).strip("'")
        if kind == "union_tag_invalid":
            expected = ctx.get("expected_tags")
            message = f"unknown {name} {ctx.get('tag')!r}; expected one of: {expected}"
        else:
            message = f"missing required key {name!r}"
        line = document.line_of(loc) if document else None
    else:
        message = _message(error)
        line = document.line_of(loc) if document else None
    return ConfigProblem(message, key_path(loc), line, loc=loc)


def _alternatives(
    errors: list[ErrorDetails], where: Loc, base: Loc, document: YamlDocument | None
) -> ConfigProblem:
    """One problem for a value that matched no branch of a union: ``expected X or Y, got Z``."""
    loc = (*base, *where)
    wanted = [_expectation(error) for error in errors]
    if all(wanted):
        expected = " or ".join(dict.fromkeys(w for w in wanted if w))
        found = _found(errors[0])
        message = f"expected {expected}, {found}" if found else f"expected {expected}"
    else:
        message = " or ".join(dict.fromkeys(_message(error) for error in errors))
    return ConfigProblem(
        message, key_path(loc), document.line_of(loc) if document else None, loc=loc
    )


# ----------------------------------------------------------------------------- the error


class ConfigError(ValueError):
    """A module's config is invalid: ``<owner>: config: <problem>; <problem>``.

    ``owner`` is the module id (or another name for whoever reads the config);
    ``problems`` lists every mistake.
    """

    def __init__(self, owner: str, problems: Sequence[ConfigProblem]) -> None:
        self.owner = owner
        self.problems: tuple[ConfigProblem, ...] = tuple(problems)
        text = "; ".join(problem.render() for problem in self.problems) or "invalid"
        super().__init__(f"{owner}: config: {text}")


def validate_config(model: type[ModelT], raw: object, *, owner: str) -> ModelT:
    """``raw`` validated as ``model``: ``None`` means every default, and a mistake raises one
    :class:`ConfigError` naming each key path with what was expected.

    :param owner: the module id that starts the message (``hooks-python-check``).
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        problem = ConfigProblem(f"expected a mapping of keys, got {describe_value(raw)}")
        raise ConfigError(owner, [problem])
    try:
        return model.model_validate(dict(raw))
    except ValidationError as err:
        raise ConfigError(owner, validation_problems(err, schema=model)) from err
