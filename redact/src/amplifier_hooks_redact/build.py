"""A :class:`Redactor` from a validated :class:`RedactionConfig`."""

from __future__ import annotations

import re

from .config import DEFAULT_ALLOWED_PATHS, RedactionConfig
from .rules import BUILTIN_RULES, Rule, custom_rule
from .scanner import TextRedactor
from .walker import Redactor

__all__ = ["build_redactor"]

_BY_NAME = {rule.name: rule for rule in BUILTIN_RULES}


def build_redactor(config: RedactionConfig) -> Redactor:
    """The :class:`Redactor` that ``config`` describes (rules, allowlist, replacement)."""
    rules: list[Rule] = []
    for name in config.enabled_rules():
        if name in config.custom_rules:
            rules.append(custom_rule(name, re.compile(config.custom_rules[name])))
        else:
            rules.append(_BY_NAME[name])
    text = TextRedactor(
        rules,
        replacement=config.replacement,
        allow_values=config.allowlist.values,
        allow_patterns=[re.compile(p) for p in config.allowlist.patterns],
    )
    return Redactor(text, (*DEFAULT_ALLOWED_PATHS, *config.allowlist.paths))
