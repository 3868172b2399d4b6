"""hooks-logging: every event of an agent session, one JSON line each, in a per-session file.

Mount it from a bundle::

    hooks:
      - module: hooks-logging
        config:
          level: info
          exclude: ["content_block:delta", "thinking:delta"]

or in code::

    from amplifier_module_hooks_logging import mount

    cleanup = await mount(coordinator, {"path": "/var/log/agent/{session_id}.jsonl"})
    ...
    await cleanup()  # everything emitted before this is on disk afterwards

The record schema, the config keys and the guarantees (no blocking, no lost or torn lines,
rotation) are in the README. :func:`find_log`, :class:`LogReader` and :class:`RecordFilter`
read the logs back (the ``amplifier-hooks logs`` commands use them).
"""

from .config import DEFAULT_PATH, LEVELS, LoggingConfig, parse_config
from .encode import DataEncoder
from .filters import EventFilter, event_level
from .hook import HANDLER_NAME, LoggingHook
from .mount import mount, on_session_ready
from .paths import PathTemplate, project_slug, safe_session_id
from .reader import LogReader, LogReadError, RecordFilter, find_log
from .record import RECORD_SCHEMA, SCHEMA_NAME, SCHEMA_VERSION
from .redact import BUILTIN_SECRET_WORDS, MASK, SecretKeys
from .visible import visible
from .writer import DROPPED_EVENT, WriterStats

__all__ = [
    "BUILTIN_SECRET_WORDS",
    "DEFAULT_PATH",
    "DROPPED_EVENT",
    "HANDLER_NAME",
    "LEVELS",
    "MASK",
    "RECORD_SCHEMA",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "DataEncoder",
    "EventFilter",
    "LogReadError",
    "LogReader",
    "LoggingConfig",
    "LoggingHook",
    "PathTemplate",
    "RecordFilter",
    "SecretKeys",
    "WriterStats",
    "config_schema",
    "event_level",
    "find_log",
    "mount",
    "on_session_ready",
    "parse_config",
    "project_slug",
    "safe_session_id",
    "visible",
]

config_schema = LoggingConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
