"""The ``hook-shell`` protocol: how Amplifier hook-shell reads what its hooks answer.

hook-shell's files are Claude-Code-shaped, and its hooks get Claude Code's stdin and variables
(the ``claude-code`` protocol's, reached through :func:`~...protocols.command_protocol`, as a
format never imports another), but hook-shell's bridge reads the answer its own way, and these
files were written for it, so its reading is the contract (the table: ``docs/hook-formats.md``,
section hook-shell):

* Exit code 2 denies the event, whatever the event, with stderr (stripped) as the reason, and
  ``Hook blocked operation`` when stderr is empty.
* Any other exit code, a timeout and a process that did not start are not failures the agent
  or the user hears of (:attr:`~...protocols.CommandProtocol.quiet_failures`): the stdout of a
  non-zero exit is still read.
* Stdout is read as one JSON object: ``decision: block`` denies with ``reason`` (default
  ``Hook blocked operation``) and shows ``systemMessage`` to the user; else
  ``contextInjection`` (a string) is context, with ``systemMessage`` shown beside it (an
  empty or blank one injects nothing, but still ends the event's later hook-shell hooks, as
  the bridge returns it, and its ``systemMessage`` is still shown); else
  nothing happens, and a ``systemMessage`` is not shown. Other keys (Claude Code's
  ``hookSpecificOutput``, ``continue``, ``additionalContext``) mean nothing to hook-shell and
  nothing here. Plain text, invalid JSON and JSON that is not an object are ignored.

What hook-shell loses is kept out of what the agent and the user see but not thrown away: a
deny's result names the hook in its ``source`` (the kernel's audit of the deny), and every
ignored answer, failure and dropped ``systemMessage`` is a log record naming the hook. One
case differs on purpose: an answer that repeats a key (``{"decision": "block", ...,
"decision": "approve"}``), which hook-shell reads as its last value, is a failure of the hook
shown to the user, as in every other protocol here (:func:`~...answers.loads_unique`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from ...answers import DuplicateKeyError, loads_unique
from ...protocols import CommandProtocol, command_protocol
from ...types import Decision, HookContext

__all__ = ["BLOCKED_REASON", "PROTOCOL", "hook_shell_blocked", "hook_shell_decision"]

logger = logging.getLogger(__name__)

BLOCKED_REASON: Final = "Hook blocked operation"
"""hook-shell's reason for a deny whose hook gave none."""


def hook_shell_blocked(ctx: HookContext, stderr: str, *, label: str) -> Decision:
    """Exit code 2: a deny of ``ctx``'s event with stderr as the reason."""
    reason = stderr.strip()
    if not reason:
        logger.info(
            "hook %s denied %s (exit code 2, stderr was empty): %r",
            label,
            ctx.event,
            BLOCKED_REASON,
        )
    return Decision(action="block", message=reason or BLOCKED_REASON, source=label)


def _text(answer: dict[str, Any], key: str) -> str | None:
    value = answer.get(key)
    return value if isinstance(value, str) else None


def hook_shell_decision(ctx: HookContext, stdout: str, *, label: str) -> Decision | str:
    """The decision in a hook-shell hook's stdout (whatever its exit code other than 2), or
    what is wrong with it: a string, which the runner logs and lets pass
    (:attr:`~...protocols.CommandProtocol.quiet_failures`)."""
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    try:
        answer = loads_unique(text)
    except DuplicateKeyError as err:  # never read one way when it says two: shown, as elsewhere
        problem = f"hook {label} failed: stdout JSON is ambiguous ({err}): {text[:200]!r}"
        logger.warning("%s; continuing", problem)
        return Decision(message=problem, level="warning", source=label)
    except ValueError as err:
        return f"stdout is not valid JSON ({err}): {text[:200]!r}"
    if not isinstance(answer, dict):
        return f"stdout is a JSON {type(answer).__name__}, not an object: {text[:200]!r}"
    system_message = _text(answer, "systemMessage")
    if answer.get("decision", "approve") == "block":
        reason = answer.get("reason", BLOCKED_REASON)
        if not isinstance(reason, str):
            return f"stdout JSON: reason is {type(reason).__name__} {reason!r}, not a string"
        return Decision(
            action="block", message=reason, notice=system_message, source=label, level="info"
        )
    if "contextInjection" in answer:
        injection = answer["contextInjection"]
        if not isinstance(injection, str):
            return (
                f"stdout JSON: contextInjection is {type(injection).__name__} {injection!r}, "
                "not a string"
            )
        if not injection.strip():  # ends the later hooks, as hook-shell's, and adds nothing
            logger.info(
                "hook %s: contextInjection %r is empty: nothing injected, later hooks of %s "
                "do not run (hook-shell returns it)",
                label,
                injection,
                ctx.event,
            )
            return Decision(context="", message=system_message, source=label)
        return Decision(context=injection, message=system_message, source=label)
    if system_message:
        logger.info(
            "hook %s: systemMessage not shown (hook-shell shows none for a hook that neither "
            "blocks nor injects context): %s",
            label,
            system_message,
        )
    return Decision(source=label)


def _claude_stdin(ctx: HookContext, project_dir: str) -> Mapping[str, Any]:
    return command_protocol("claude-code").stdin(ctx, project_dir)


def _claude_environment(ctx: HookContext, project_dir: str) -> Mapping[str, str]:
    return command_protocol("claude-code").environment(ctx, project_dir)


PROTOCOL: Final = CommandProtocol(
    name="hook-shell",
    stdin=_claude_stdin,
    blocked=lambda ctx, stderr, label: hook_shell_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: hook_shell_decision(
        ctx, stdout, label=label
    ),
    environment=_claude_environment,
    quiet_failures=True,
)
"""The ``hook-shell`` protocol of command hooks (the module docstring)."""
