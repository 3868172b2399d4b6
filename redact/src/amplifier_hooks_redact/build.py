"""A :class:`Redactor` from a validated :class:`RedactionConfig`, compiled once per process.

Compiling an engine (the rules' regular expressions, the trigger indexes, several Hyperscan
databases) takes a good part of a second; what it answers depends only on the part of the
config that :func:`engine_key` reads (the enabled rules with the custom rules' patterns, the
replacement template and the allowlist), not on the rest (events, priority, notify, ...).
So an engine is compiled once per process for each such key and kept in a small
least-recently-used table (:data:`ENGINES_KEPT` keys): every session, sub-session and module
(hooks-redaction, hooks-logging, hooks-otel) with the same effective config uses it.

A compiled engine never changes after it is built, and its Hyperscan scratch spaces are per
thread, so one engine serves every thread. Two forms are handed out:

* :func:`shared_redactor`: the one :class:`Redactor` of the key, with the memo of decided
  strings shared too (it is bounded, and what it remembers for a string is that string's
  own answer, so sharing it lets no text cross from one session to another): what mounted
  modules use.
* :func:`build_redactor`: a :class:`Redactor` of its own over the same compiled engine, with
  an empty memo (:meth:`TextRedactor.copy`): for callers that want to see what a fresh
  engine decides.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Final

from .config import DEFAULT_ALLOWED_PATHS, RedactionConfig
from .rules import BUILTIN_RULES, Rule, custom_rule
from .scanner import TextRedactor
from .walker import Redactor

__all__ = [
    "ENGINES_KEPT",
    "EngineKey",
    "build_redactor",
    "clear_engines",
    "engine_key",
    "shared_redactor",
]

ENGINES_KEPT: Final = 16
"""How many compiled engines (distinct :func:`engine_key` values) a process keeps; the least
recently used one is dropped beyond that (it is compiled again if asked for again)."""

_BY_NAME = {rule.name: rule for rule in BUILTIN_RULES}

EngineKey = tuple[
    tuple[tuple[str, str | None], ...],  # enabled rules in order; a custom rule's pattern
    str,  # replacement template
    tuple[str, ...],  # allowlist values
    tuple[str, ...],  # allowlist patterns
    tuple[str, ...],  # allowlist key paths (the envelope's own are added by the build)
]

_ENGINES: OrderedDict[EngineKey, Redactor] = OrderedDict()
_LOCK = threading.Lock()


def engine_key(config: RedactionConfig) -> EngineKey:
    """Everything of ``config`` that changes what its engine answers, as a hashable value:
    two configs with the same key are redacted alike, two with different keys never share
    an engine. A custom rule is keyed by its name and pattern, so a rule whose pattern
    changed is a new engine."""
    rules = tuple((name, config.custom_rules.get(name)) for name in config.enabled_rules())
    allow = config.allowlist
    return (
        rules,
        config.replacement,
        tuple(allow.values),
        tuple(allow.patterns),
        tuple(allow.paths),
    )


def _compile(key: EngineKey) -> Redactor:
    rules_key, replacement, values, patterns, paths = key
    rules: list[Rule] = []
    for name, pattern in rules_key:
        if pattern is None:
            rules.append(_BY_NAME[name])
        else:
            rules.append(custom_rule(name, re.compile(pattern)))
    text = TextRedactor(
        rules,
        replacement=replacement,
        allow_values=values,
        allow_patterns=[re.compile(p) for p in patterns],
    )
    return Redactor(text, (*DEFAULT_ALLOWED_PATHS, *paths))


def shared_redactor(config: RedactionConfig) -> Redactor:
    """The process's one :class:`Redactor` for ``config``'s :func:`engine_key`, compiled on
    first use; safe to use from any thread and any session."""
    key = engine_key(config)
    with _LOCK:  # one compile per key, even when threads ask at once
        redactor = _ENGINES.get(key)
        if redactor is not None:
            _ENGINES.move_to_end(key)
            return redactor
        redactor = _compile(key)
        _ENGINES[key] = redactor
        while len(_ENGINES) > ENGINES_KEPT:
            _ENGINES.popitem(last=False)
        return redactor


def build_redactor(config: RedactionConfig) -> Redactor:
    """The :class:`Redactor` that ``config`` describes (rules, allowlist, replacement): the
    shared compiled engine (:func:`shared_redactor`) with a memo of its own, empty."""
    return shared_redactor(config).copy()


def clear_engines() -> None:
    """Forget every compiled engine (the next request compiles again)."""
    with _LOCK:
        _ENGINES.clear()
