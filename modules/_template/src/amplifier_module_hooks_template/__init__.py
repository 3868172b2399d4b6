"""hooks-template: a working hook module to copy.

It denies calls to the tools listed in ``deny_tools`` and, when ``note_results`` is on, shows the
human a one-line note after every tool call. Everything a module needs is here: a validated
config, handlers that return ``HookResult``, a ``mount`` that registers them and a cleanup that
unregisters them.
"""

from .config import TemplateConfig
from .hooks import TemplateHooks
from .mount import mount

__all__ = ["TemplateConfig", "TemplateHooks", "config_schema", "mount"]

config_schema = TemplateConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
