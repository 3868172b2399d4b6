"""hooks-redaction: keep secrets and PII out of what leaves for the model.

Mounted on ``prompt:submit``, ``provider:request``, ``tool:post`` and ``tool:error`` by
default (``events`` in the config), the handler walks the event data (messages with content
blocks, tool results, any nested dicts, lists and tuples), replaces secrets such as
``ghp_...`` with ``[REDACTED:github_token]`` and returns ``modify`` with counts per rule, or
``continue`` with the data untouched when there is nothing to redact. Timestamps, UUIDs,
hashes, versions and ids are never changed.

The rules, the scanner and the walker are the engine in ``amplifier_hooks_redact`` (a
kernel-free package that hooks-logging and hooks-otel use too); its public names are
re-exported here. Use it from a bundle (``module: hooks-redaction``) or directly::

    from amplifier_hooks_redact import RedactionConfig, build_redactor

    redactor = build_redactor(RedactionConfig(rules=("secrets",)))
    clean, counts = redactor.redact({"output": "token=ghp_..."})
"""

from amplifier_hooks_redact import (
    BUILTIN_RULES,
    DEFAULT_ALLOWED_PATHS,
    DEFAULT_EVENTS,
    RULE_SETS,
    AllowlistConfig,
    RedactionConfig,
    Redactor,
    Rule,
    TextRedactor,
    build_redactor,
    parse_config,
)

from .hook import RedactionHook, summarize
from .mount import mount

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
