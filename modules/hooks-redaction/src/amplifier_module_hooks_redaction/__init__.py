"""hooks-redaction: keep secrets and PII out of what leaves for the model.

Mounted on ``prompt:submit``, ``provider:request``, ``tool:post`` and ``tool:error`` by
default (``events`` in the config), the handler walks the event data (messages with content
blocks, tool results, any nested dicts, lists and tuples), replaces secrets such as
``ghp_...`` with ``[REDACTED:github_token]`` and returns ``modify`` with counts per rule, or
``continue`` with the data untouched when there is nothing to redact. Timestamps, UUIDs,
hashes, versions and ids are never changed.

Use it from a bundle (``module: hooks-redaction``) or directly::

    from amplifier_module_hooks_redaction import RedactionConfig, build_redactor

    redactor = build_redactor(RedactionConfig(rules=("secrets",)))
    clean, counts = redactor.redact({"output": "token=ghp_..."})
"""

from .config import (
    DEFAULT_ALLOWED_PATHS,
    DEFAULT_EVENTS,
    AllowlistConfig,
    RedactionConfig,
    parse_config,
)
from .hook import RedactionHook, build_redactor, summarize
from .mount import mount
from .rules import BUILTIN_RULES, RULE_SETS, Rule
from .scanner import TextRedactor
from .walker import Redactor

__all__ = [
    "BUILTIN_RULES",
    "DEFAULT_ALLOWED_PATHS",
    "DEFAULT_EVENTS",
    "RULE_SETS",
    "AllowlistConfig",
    "RedactionConfig",
    "RedactionHook",
    "Redactor",
    "Rule",
    "TextRedactor",
    "build_redactor",
    "config_schema",
    "mount",
    "parse_config",
    "summarize",
]

config_schema = RedactionConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
