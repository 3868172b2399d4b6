"""The redaction engine: which text is a secret or PII, and how nested data is redacted.

Rules (vendor token formats, credential assignments, encoded and split credentials, private
keys, e-mail addresses, phone and card numbers), the scanner that runs them in one pass over
a text, the walker that redacts every string, key and ``bytes`` value inside nested data, and
the config model that selects rules and allowlists. It imports no kernel: hooks-redaction
mounts it as a hook, hooks-logging runs it over what it writes, hooks-otel over what it
exports.

    from amplifier_hooks_redact import RedactionConfig, build_redactor

    redactor = build_redactor(RedactionConfig(rules=("secrets",)))
    clean, counts = redactor.redact({"output": "token=ghp_..."})

An engine is compiled once per process per effective config and shared (:mod:`.build`):
``shared_redactor(config)`` is the process's one redactor for that config (what mounted
modules use), ``build_redactor(config)`` the same compiled engine with a memo of its own.
"""

from .build import build_redactor, engine_key, shared_redactor
from .clock import TIMEOUT_MARK, RedactionTimeout, scan_deadline
from .config import (
    DEFAULT_ALLOWED_PATHS,
    DEFAULT_EVENTS,
    MODULE_ID,
    AllowlistConfig,
    RedactionConfig,
    parse_config,
)
from .deadline import DEFAULT_DEADLINE, redact_within
from .rules import BUILTIN_RULES, RULE_SETS, Rule
from .scanner import TextRedactor
from .walker import TIMED_OUT, UNSCANNABLE, Redactor

__all__ = [
    "BUILTIN_RULES",
    "DEFAULT_ALLOWED_PATHS",
    "DEFAULT_DEADLINE",
    "DEFAULT_EVENTS",
    "MODULE_ID",
    "RULE_SETS",
    "TIMED_OUT",
    "TIMEOUT_MARK",
    "UNSCANNABLE",
    "AllowlistConfig",
    "RedactionConfig",
    "RedactionTimeout",
    "Redactor",
    "Rule",
    "TextRedactor",
    "build_redactor",
    "engine_key",
    "parse_config",
    "redact_within",
    "scan_deadline",
    "shared_redactor",
]
