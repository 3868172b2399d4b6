"""The ``tool:pre`` handler: decide by rule, deny, or ask the human through the kernel.

* ``allow`` -> ``continue``; but a shell command that would run with session variables that
  can change what it runs (:mod:`.environment`), or a git command in a repository whose own
  configuration or hooks would make git run a program of the project's (:mod:`.repository`),
  is asked instead;
* ``deny`` -> ``HookResult(action="deny", reason=...)`` naming the rule (or the default that
  denied), which the model sees as the tool call's error;
* ``ask`` -> ``HookResult(action="ask_user", approval_prompt=..., approval_options=...,
  approval_timeout=..., approval_default=...)``. The kernel asks its approval system, keeps
  "Allow always" for the session and applies ``approval_default`` on a timeout; a hook only
  ever requests approval, never grants it.

Every decision taken by a rule or a default is written to the audit log, except a tool that
needs no approval running because no rule is about it. If deciding fails unexpectedly the
call is denied (``fail_closed``, the default) or let through, and the failure is logged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from amplifier_core.models import HookResult

from .audit import AuditLog
from .config import MODULE_ID, Action, ApprovalConfig
from .deadline import Budget, DecisionTimeout, within
from .environment import environment_risks
from .prompt import PromptStyle, build_prompt, summary_of
from .repository import git_risks, runs_git
from .rules import Decision, RuleSet
from .subject import Subject, command_of, input_of, subject_of, tool_of
from .tracker import Pending, Tracker, call_key

__all__ = ["ApprovalHook"]

logger = logging.getLogger(__name__)


class ApprovalHook:
    """The handler of one mounted instance, bound to its config, rules and audit log."""

    def __init__(
        self,
        config: ApprovalConfig,
        *,
        workspace: str,
        session_id: str,
        tracker: Tracker,
        audit: AuditLog | None,
        name: str = MODULE_ID,
        environment: Callable[[], object] | None = None,
    ) -> None:
        self.config = config
        self.environment = environment
        self.rules = RuleSet(config)
        self.workspace = workspace
        self.session_id = session_id
        self.tracker = tracker
        self.audit = audit
        self.name = name
        self.style = PromptStyle(
            max_chars=config.max_command_chars,
            preview_lines=config.preview_lines,
            preview_line_chars=config.preview_line_chars,
        )

    async def on_tool_pre(self, event: str, data: dict[str, Any]) -> HookResult:
        """Decide one tool call (see the module docstring)."""
        if self.rules.trivially_allowed(tool_of(data)):
            return HookResult()
        try:
            return await self._decide(data)
        except Exception as err:
            logger.exception("%s: deciding %s failed", self.name, tool_of(data) or "a tool call")
            if not self.config.fail_closed:
                return HookResult()
            return HookResult(
                action="deny",
                reason=(
                    f"{self.name}: could not decide whether this call needs approval "
                    f"({type(err).__name__}: {err}); denied because fail_closed is true"
                ),
            )

    def _read(self, data: dict[str, Any], budget: Budget) -> tuple[Subject, Decision]:
        """The call's subject and the rules' decision, read under ``budget``."""
        with within(budget):
            subject = subject_of(data, self.workspace)
            return subject, self.rules.decide(subject)

    async def _read_in_time(self, data: dict[str, Any]) -> tuple[Subject, Decision]:
        """:meth:`_read` in a worker thread, never past ``decision_timeout``: the event loop
        goes on while a long command is read, and a reading past its deadline (or past
        ``decision_steps``) fails closed (asked; denied where ``default_action`` is
        ``deny``). The thread stops at its next step once the deadline has passed
        (:mod:`.deadline`)."""
        seconds = self.config.decision_timeout
        budget = Budget(seconds, self.config.decision_steps)
        try:
            return await asyncio.wait_for(asyncio.to_thread(self._read, data, budget), seconds)
        except (DecisionTimeout, TimeoutError):
            pass
        tool_input = input_of(data)
        subject = Subject(
            tool=tool_of(data),
            tool_input=tool_input,
            command=command_of(tool_input),
            scan=None,
            target=None,
            workspace=self.workspace,
        )
        action: Action = "deny" if self.config.default_action == "deny" else "ask"
        gated = self.rules.is_gated(subject.tool)
        return subject, Decision(action, "decision_timeout", gated=gated)

    async def _decide(self, data: dict[str, Any]) -> HookResult:
        subject, decision = await self._read_in_time(data)
        risks: list[str] = []
        repository: list[str] = []
        if decision.action == "allow" and subject.command is not None:
            risks = environment_risks(self.environment, self.workspace)
            if risks:  # the command would run in an environment no rule judged
                decision = dataclasses.replace(decision, action="ask")
            elif runs_git(subject.runs):
                repository = await git_risks(self.workspace)
                if repository:  # git would run a program the repository names
                    decision = dataclasses.replace(decision, action="ask")
        session_id = str(data.get("session_id") or self.session_id)
        call_id = data.get("tool_call_id")
        tool_call_id = call_id if isinstance(call_id, str) else None
        if decision.action == "allow":
            if decision.rule is not None or decision.gated:
                self._audit(session_id, subject, decision, tool_call_id)
            return HookResult()
        if decision.action == "deny":
            self._audit(session_id, subject, decision, tool_call_id)
            return HookResult(action="deny", reason=self._deny_reason(subject, decision))
        prompt = build_prompt(subject, decision, self.style)
        reason = self._ask_reason(decision)
        if risks:
            note = (
                "The session runs its commands with variables that can change what this "
                "command runs: " + "; ".join(risks)
            )
            prompt += "\n" + note
            reason = f"{self.name}: {note}"
        if repository:
            note = "git would run programs this repository's own configuration names: " + "; ".join(
                repository
            )
            prompt += "\n" + note
            reason = f"{self.name}: {note}"
        self._audit(session_id, subject, decision, tool_call_id, prompt)
        await self.tracker.asked(
            Pending(
                prompt=prompt,
                session_id=session_id,
                tool_name=subject.tool,
                tool_call_id=tool_call_id,
                key=call_key(data),
                asked_by=decision.rule_name,
                options=list(self.config.approval_options),
                timeout=self.config.approval_timeout,
                default=self.config.approval_default,
                summary=summary_of(subject) if self.tracker.needed else {},
            )
        )
        return HookResult(
            action="ask_user",
            approval_prompt=prompt,
            approval_options=list(self.config.approval_options),
            approval_timeout=self.config.approval_timeout,
            approval_default=self.config.approval_default,
            reason=reason,
        )

    def _deny_reason(self, subject: Subject, decision: Decision) -> str:
        what = f"this {subject.tool} call" if subject.tool else "this tool call"
        if decision.rule is not None:
            reason = f": {decision.rule.reason}" if decision.rule.reason else ""
            return f"{self.name}: rule {decision.rule.name!r} denies {what}{reason}"
        if decision.source == "decision_timeout":
            return (
                f"{self.name}: {what} is denied: the command could not be read within "
                f"{self._budget_text()} and default_action is 'deny'"
            )
        text = f"{self.name}: {what} is denied by {decision.source} 'deny' (no rule allows it)"
        miss = decision.near_miss
        if miss is not None:
            text += (
                f"; rule {miss.rule.name!r} would allow it without "
                f"{', '.join(miss.operators)} in the command"
            )
        return text

    def _budget_text(self) -> str:
        text = f"decision_timeout ({self.config.decision_timeout:g} s)"
        if self.config.decision_steps is not None:
            text += f" or decision_steps ({self.config.decision_steps})"
        return text

    def _ask_reason(self, decision: Decision) -> str:
        if decision.source == "decision_timeout":
            return f"{self.name}: the command could not be read within {self._budget_text()}; asked"
        if decision.rule is not None:
            return f"{self.name}: rule {decision.rule.name!r} asks for approval"
        return f"{self.name}: {decision.source} is 'ask'"

    def _audit(
        self,
        session_id: str,
        subject: Subject,
        decision: Decision,
        tool_call_id: str | None,
        prompt: str | None = None,
    ) -> None:
        if self.audit is None:
            return
        if prompt is None:
            prompt = build_prompt(subject, decision, self.style)
        self.audit.write(
            session_id,
            {
                "kind": "request" if decision.action == "ask" else "rule",
                "tool_name": subject.tool,
                "tool_call_id": tool_call_id,
                **summary_of(subject),
                "rule": decision.rule_name,
                "decision": decision.action,
                "prompt": prompt,
            },
        )
