"""The directory variables of plugin and hook-shell hooks: set in each command's environment and
written into its command text.

A Claude Code plugin's commands name their files as ``${CLAUDE_PLUGIN_ROOT}/scripts/x.py``;
Claude Code replaces ``${CLAUDE_PLUGIN_ROOT}`` in the command text with the plugin's directory
and also exports the variable to the process. hook-shell's commands use
``${AMPLIFIER_HOOKS_DIR}``, which it exports and the shell expands. :func:`with_variables` does
both for every command hook of a document: the values go into the hook's ``env``, and each
reference is replaced by the value written so that the shell reads it as the same one word,
whatever it holds (a path with spaces or quotes included):

* outside quotes, the value is shell-quoted when it needs to be (a plain path is written as is,
  the very text Claude Code produces);
* inside double quotes (``"${CLAUDE_PLUGIN_ROOT}"/x.sh``), ``\\``, ``"``, ``$`` and backticks
  are escaped;
* inside single quotes a reference the shell would leave alone stays as written, except the
  ``${NAME}`` form of a ``textual`` variable, which Claude Code substitutes anywhere.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Callable, Mapping
from typing import Final

from .document import HookEntry, HooksDocument
from .specs import CommandHookSpec

__all__ = ["map_commands", "substitute", "with_variables"]

_REFERENCE: Final = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _in_double_quotes(value: str) -> str:
    return re.sub(r'([\\"$`])', r"\\\1", value)


def _in_single_quotes(value: str) -> str:
    return value.replace("'", "'\\''")


def substitute(command: str, values: Mapping[str, str], *, textual: bool = False) -> str:
    """``command`` with each ``${NAME}`` / ``$NAME`` of ``values`` replaced (rules above).

    ``textual``: the ``${NAME}`` form is replaced inside single quotes too, as Claude Code
    replaces ``${CLAUDE_PLUGIN_ROOT}`` in the text before any shell reads it.
    """
    out: list[str] = []
    quote = ""  # "", "'" or '"'
    index = 0
    while index < len(command):
        char = command[index]
        if char == "\\" and quote != "'":
            out.append(command[index : index + 2])
            index += 2
            continue
        if char in "'\"" and quote in ("", char):
            quote = "" if quote == char else char
            out.append(char)
            index += 1
            continue
        match = _REFERENCE.match(command, index) if char == "$" else None
        name: str = (match.group(1) or match.group(2)) if match else ""
        if match is None or name not in values:
            out.append(char)
            index += 1
            continue
        braced = match.group(1) is not None
        value = values[name]
        if quote == "'":
            out.append(_in_single_quotes(value) if textual and braced else match.group(0))
        elif quote == '"':
            out.append(_in_double_quotes(value))
        else:
            out.append(shlex.quote(value))
        index = match.end()
    return "".join(out)


def map_commands(
    document: HooksDocument, change: Callable[[HookEntry, CommandHookSpec], CommandHookSpec]
) -> HooksDocument:
    """``document`` with every command hook's spec replaced by ``change(entry, spec)``."""

    def entry(item: HookEntry) -> HookEntry:
        if not isinstance(item.spec, CommandHookSpec):
            return item
        return dataclasses.replace(item, spec=change(item, item.spec))

    return document.with_entries(entry)


def with_variables(
    document: HooksDocument, values: Mapping[str, str], *, textual: bool = False
) -> HooksDocument:
    """Every command hook of ``document`` with ``values`` in its ``env`` and substituted in
    its command (see :func:`substitute`). The source's values win over a hook's own ``env``
    entries of the same names: where a plugin lies is the session's to say, not the hook's."""

    def change(_: HookEntry, spec: CommandHookSpec) -> CommandHookSpec:
        env = {**spec.env, **values}
        if spec.args is not None:  # exec form: replaced from env when it runs, never quoted
            return spec.model_copy(update={"env": env})
        return spec.model_copy(
            update={"command": substitute(spec.command, values, textual=textual), "env": env}
        )

    return map_commands(document, change)
