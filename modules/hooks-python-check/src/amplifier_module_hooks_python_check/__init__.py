"""hooks-python-check: feedback on the Python file a tool just wrote, in the same turn.

After ``write_file`` or ``edit_file`` writes a ``.py`` or ``.pyi`` file, the module runs
``ruff check``, ``ruff format --check`` and ``mypy`` on it concurrently (each with a deadline)
and scans it for stubs (``TODO``/``FIXME``/``XXX`` comments, ``raise NotImplementedError``,
functions whose body is only ``pass`` or ``...``). Issues are appended to the tool result the
model reads next, as ``path:line:col: [checker CODE] message`` lines; a clean file stays silent.
"""

from .checkers import run_format, run_mypy, run_ruff
from .commands import Resolution, resolve_command
from .config import CHECKS, MODULE_ID, SOURCE, CheckArgs, Commands, PythonCheckConfig, parse_config
from .hook import PythonCheckHook
from .issues import CheckRun, Issue
from .mount import mount
from .parsers import parse_mypy, parse_ruff_json
from .report import Feedback, build_feedback
from .stubs import scan_stubs

__all__ = [
    "CHECKS",
    "MODULE_ID",
    "SOURCE",
    "CheckArgs",
    "CheckRun",
    "Commands",
    "Feedback",
    "Issue",
    "PythonCheckConfig",
    "PythonCheckHook",
    "Resolution",
    "build_feedback",
    "config_schema",
    "mount",
    "parse_config",
    "parse_mypy",
    "parse_ruff_json",
    "resolve_command",
    "run_format",
    "run_mypy",
    "run_ruff",
    "scan_stubs",
]

config_schema = PythonCheckConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
