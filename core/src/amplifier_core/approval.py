"""Approval: the pluggable systems that ask the human, and the types they exchange.

Hooks *request* approval (``HookResult(action="ask_user", ...)``); the coordinator asks an
approval system and decides. Two interfaces are accepted, and the coordinator detects which one
an object implements:

* the kernel's :class:`ApprovalSystem`:
  ``async request_approval(prompt, options, timeout, default) -> str`` (the chosen option),
  called with keyword arguments as amplifier-core calls it;
* the ecosystem's :class:`ApprovalProvider`:
  ``async request_approval(ApprovalRequest) -> ApprovalResponse``.

:class:`ApprovalGate` is the kernel's side of ``ask_user``, used by the coordinator. Two ready
systems ship here: :class:`StaticApprovalSystem`, a non-interactive policy (deny by
default, optional prompt rules), and :class:`CallbackApprovalSystem`, which wraps a function.

How an answer is read (:func:`interpret_answer`): an :class:`ApprovalResponse` (or a mapping
with ``approved``) means what it says, and ``remember=True`` on an approval means "allow
always". A string approves when it names an allow-like option (its first word is not a refusal
such as ``deny``/``no``/``never`` and it contains ``allow``, ``yes``, ``approve``, ``always`` ...);
anything else, including an answer nobody understands, denies. A string containing ``always``
that approves means "allow always".
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import inspect
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Final, Literal, Protocol, TypeAlias, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import events as _events
from .audit import AuditTrail
from .errors import AmplifierError
from .hooks import HookRegistry
from .models import HookResult

__all__ = [
    "DEFAULT_APPROVAL_OPTIONS",
    "DEFAULT_APPROVAL_PROMPT",
    "ApprovalDecision",
    "ApprovalDefault",
    "ApprovalGate",
    "ApprovalProvider",
    "ApprovalRequest",
    "ApprovalResponse",
    "ApprovalSystem",
    "ApprovalTimeoutError",
    "AskedSubject",
    "CallbackApprovalSystem",
    "StaticApprovalSystem",
    "ask_approval",
    "asked_subject",
    "interpret_answer",
    "is_allow_option",
    "shown_prompt",
]

ApprovalDefault: TypeAlias = Literal["allow", "deny"]
DEFAULT_APPROVAL_PROMPT: Final = "Allow this operation?"
DEFAULT_APPROVAL_OPTIONS: Final = ("Allow", "Deny")
ApprovalCallback: TypeAlias = Callable[
    [str, list[str], float, ApprovalDefault], "str | Awaitable[str]"
]


class ApprovalTimeoutError(AmplifierError, TimeoutError):
    """The human did not answer within the approval timeout.

    A :class:`TimeoutError`, so ``except TimeoutError`` (and ``asyncio.TimeoutError``) catch it.
    """


class ApprovalRequest(BaseModel):
    """What an :class:`ApprovalProvider` is asked to approve."""

    model_config = ConfigDict(extra="forbid")

    tool_name: str = Field(..., description="Tool (or event) the approval is for")
    action: str = Field(..., description="Human-readable description of the action")
    details: dict[str, Any] = Field(default_factory=dict, description="Context and parameters")
    risk_level: str = Field(..., description="low, medium, high or critical")
    timeout: float | None = Field(default=None, description="Seconds to wait; None = forever")

    @field_validator("timeout")
    @classmethod
    def _timeout_positive(cls, value: float | None) -> float | None:
        if value is not None and value <= 0:
            raise ValueError(f"timeout must be > 0 seconds or None (wait forever), got {value}")
        return value


class ApprovalResponse(BaseModel):
    """An :class:`ApprovalProvider`'s answer; ``remember`` asks to keep an approval."""

    model_config = ConfigDict(extra="forbid")

    approved: bool = Field(..., description="Whether the action was approved")
    reason: str | None = Field(default=None, description="Why it was approved or denied")
    remember: bool = Field(default=False, description="Keep this approval for the session")


@runtime_checkable
class ApprovalSystem(Protocol):
    """The kernel's approval interface: show ``prompt``, return the chosen option.

    Raise :class:`ApprovalTimeoutError` (or :class:`TimeoutError`) when nobody answers within
    ``timeout`` seconds; the coordinator then applies ``default``.
    """

    async def request_approval(
        self,
        prompt: str,
        options: list[str],
        timeout: float,  # noqa: ASYNC109 - the ecosystem's approval interface
        default: ApprovalDefault,
    ) -> str: ...


@runtime_checkable
class ApprovalProvider(Protocol):
    """The ecosystem's approval interface, used by approval modules and UIs."""

    async def request_approval(self, request: ApprovalRequest) -> ApprovalResponse: ...


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """How the coordinator read an answer: approved or not, and whether to remember it."""

    approved: bool
    always: bool
    answer: str


_REFUSALS: Final = frozenset(
    {"deny", "denied", "no", "n", "never", "reject", "block", "cancel", "abort", "skip", "don"}
)
_APPROVALS: Final = frozenset(
    {
        "allow",
        "allowed",
        "approve",
        "approved",
        "yes",
        "y",
        "ok",
        "okay",
        "accept",
        "confirm",
        "proceed",
        "continue",
        "grant",
        "always",
    }
)
_WORD = re.compile(r"[a-z]+")


def is_allow_option(option: str) -> bool:
    """True when ``option`` approves: no refusal first, an approving word somewhere."""
    words = _WORD.findall(option.lower())
    if not words or words[0] in _REFUSALS:
        return False
    return any(word in _APPROVALS for word in words)


def interpret_answer(answer: object) -> ApprovalDecision:
    """Read what an approval system returned; raise :class:`TypeError` when it is unreadable."""
    if isinstance(answer, ApprovalResponse):
        text = "approved" if answer.approved else "denied"
        if answer.reason:
            text = f"{text}: {answer.reason}"
        return ApprovalDecision(answer.approved, answer.approved and answer.remember, text)
    if isinstance(answer, str):
        approved = is_allow_option(answer)
        return ApprovalDecision(approved, approved and "always" in answer.lower(), answer)
    if isinstance(answer, bool):
        return ApprovalDecision(answer, False, "approved" if answer else "denied")
    if isinstance(answer, Mapping) and isinstance(answer.get("approved"), bool):
        approved = bool(answer["approved"])
        remember = bool(answer.get("remember", False))
        return ApprovalDecision(approved, approved and remember, str(dict(answer)))
    raise TypeError(
        f"approval system returned {type(answer).__name__} ({answer!r:.100}); expected the "
        "chosen option (str) or an ApprovalResponse"
    )


_CallStyle: TypeAlias = Literal["keywords", "positional", "request"]


def _call_style(method: Callable[..., Any]) -> _CallStyle:
    """How to call ``request_approval``: kernel style (by keyword or position) or provider style."""
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):  # no introspectable signature: call it like amplifier-core
        return "keywords"
    try:
        signature.bind(prompt="p", options=["Allow"], timeout=1.0, default="deny")
        return "keywords"
    except TypeError:
        pass
    try:
        signature.bind("p", ["Allow"], 1.0, "deny")
        return "positional"
    except TypeError:
        return "request"


async def ask_approval(
    system: object,
    *,
    prompt: str,
    options: list[str],
    timeout: float,  # noqa: ASYNC109 - handed to the system, and enforced by the caller
    default: ApprovalDefault,
    request: Callable[[], ApprovalRequest],
) -> object:
    """Ask ``system`` in whichever style it implements and return its raw answer.

    A kernel-style system is called with keyword arguments (as amplifier-core calls it), or by
    position when its parameters have other names. ``request`` builds the
    :class:`ApprovalRequest` for the ecosystem's provider style and is only called for one.
    """
    method = getattr(system, "request_approval", None)
    if method is None or not callable(method):
        raise TypeError(
            f"approval system {type(system).__name__} has no request_approval method; implement "
            "ApprovalSystem or ApprovalProvider (amplifier_core.approval)"
        )
    style = _call_style(method)
    if style == "keywords":
        answer = method(prompt=prompt, options=options, timeout=timeout, default=default)
    elif style == "positional":
        answer = method(prompt, options, timeout, default)
    else:
        answer = method(request())
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


def _pick(options: Sequence[str], *, allow: bool, always: bool) -> str:
    if not allow:
        return next((o for o in options if not is_allow_option(o)), "Deny")
    approving = [o for o in options if is_allow_option(o)]
    if always:
        remembered = [o for o in approving if "always" in o.lower()]
        if remembered:
            return remembered[0]
    once = [o for o in approving if "always" not in o.lower()]
    return (once or approving or ["Allow"])[0]


PolicyDecision: TypeAlias = Literal["allow", "deny", "always"]


class StaticApprovalSystem:
    """A non-interactive approval policy: the same answer every time, or per prompt rule.

    ``decision`` is ``"deny"`` (default), ``"allow"`` (allow once) or ``"always"`` (choose the
    "allow always" option when the hook offers one). ``rules`` are ``(glob, decision)`` pairs
    matched in order against the prompt; the first match wins, else ``decision`` applies. The
    chosen option is one of the offered options (``"Deny"``/``"Allow"`` when none fits).
    ``requests`` keeps every prompt asked, in order.
    """

    def __init__(
        self,
        decision: PolicyDecision = "deny",
        *,
        rules: Sequence[tuple[str, PolicyDecision]] = (),
    ) -> None:
        for where, value in [("decision", decision), *((f"rules[{p!r}]", d) for p, d in rules)]:
            if value not in ("allow", "deny", "always"):
                raise ValueError(
                    f"StaticApprovalSystem {where}: expected 'allow', 'deny' or 'always', "
                    f"got {value!r}"
                )
        self.decision: PolicyDecision = decision
        self.rules: list[tuple[str, PolicyDecision]] = list(rules)
        self.requests: list[str] = []

    def decide(self, prompt: str) -> PolicyDecision:
        """The policy's decision for ``prompt``."""
        for pattern, decision in self.rules:
            if fnmatchcase(prompt, pattern):
                return decision
        return self.decision

    async def request_approval(
        self,
        prompt: str,
        options: list[str],
        timeout: float,  # noqa: ASYNC109 - the ecosystem's approval interface
        default: ApprovalDefault,
    ) -> str:
        """Answer at once, by policy."""
        self.requests.append(prompt)
        decision = self.decide(prompt)
        return _pick(options, allow=decision != "deny", always=decision == "always")


class CallbackApprovalSystem:
    """An approval system that calls ``callback(prompt, options, timeout, default)``.

    The callback may be sync or async and returns the chosen option; it may raise
    :class:`ApprovalTimeoutError`. ``calls`` counts how often it was asked.
    """

    def __init__(self, callback: ApprovalCallback) -> None:
        if not callable(callback):
            raise TypeError(
                f"CallbackApprovalSystem: callback must be callable, got {type(callback).__name__}"
            )
        self.callback = callback
        self.calls = 0

    async def request_approval(
        self,
        prompt: str,
        options: list[str],
        timeout: float,  # noqa: ASYNC109 - the ecosystem's approval interface
        default: ApprovalDefault,
    ) -> str:
        """Ask the callback and return its answer."""
        self.calls += 1
        answer = self.callback(prompt, options, timeout, default)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer


# ---------------------------------------------------------------------------- the kernel's gate

_RISK_LEVELS: Final = frozenset({"low", "medium", "high", "critical"})
_Why: TypeAlias = Literal["user", "cached", "hook", "timeout", "error", "no_approval_system"]


class _Ask:
    """One approval request being decided."""

    __slots__ = ("event", "options", "prompt", "result", "source")

    def __init__(
        self, result: HookResult, event: str, source: str, prompt: str, options: list[str]
    ) -> None:
        self.result = result
        self.event = event
        self.source = source
        self.prompt = prompt
        self.options = options


class ApprovalGate:
    """Decides ``ask_user`` results for one session: hooks request, the kernel decides.

    The request goes to the approval system with the hook's prompt (default
    ``"Allow this operation?"``), options (default ``["Allow", "Deny"]``), timeout and default.
    When the result's data names a tool call (``tool_input``), the prompt always shows the
    tool and its whole input (:func:`shown_prompt`), whatever message the hook gave: a prompt
    that does not already hold the tool name and every text of the input verbatim gets them
    appended, as escaped JSON. An "allow always" answer (or an approved
    :class:`ApprovalResponse` with ``remember``) is remembered per (requesting hook, prompt
    shown, digest of the exact input asked about: tool name and ``tool_input``, else the event
    data but its timestamp and ids), so a later request is granted without asking only for the
    very same input; a fixed message several commands share never approves another one. A
    timeout (the kernel enforces ``approval_timeout`` too) or a failing system applies
    ``approval_default``; without a system the request is denied. Each step is audited, and
    ``approval:required`` / ``approval:granted`` / ``approval:denied`` are emitted for observers.

    A handler of ``approval:required`` may decide instead of the human (Claude Code's
    ``PermissionRequest`` hooks): a ``deny`` result denies, a result whose data holds
    ``decision: "allow"`` grants (with its ``tool_input`` when changed); ``why`` is then
    ``"hook"``. When no handler decides, the human is asked as above.
    """

    def __init__(self, audit: AuditTrail, hooks: HookRegistry) -> None:
        self._audit = audit
        self._hooks = hooks
        self._always: set[tuple[str, str, str]] = set()

    @property
    def remembered(self) -> int:
        """How many (hook, prompt, input) triples are allowed for the rest of the session."""
        return len(self._always)

    def forget(self) -> None:
        """Forget every "allow always" answer."""
        self._always.clear()

    async def decide(
        self, result: HookResult, event: str, hook_name: str, system: object
    ) -> HookResult:
        """``continue`` (with the event data) or ``deny`` naming who denied and why."""
        source = result.source or hook_name
        asked = asked_subject(result.data)
        prompt = shown_prompt(result.approval_prompt or DEFAULT_APPROVAL_PROMPT, asked)
        remembered_as = (source, prompt, asked.digest)
        options = list(result.approval_options or DEFAULT_APPROVAL_OPTIONS)
        timeout = result.approval_timeout
        default = result.approval_default
        cached = remembered_as in self._always
        request = {
            "prompt": prompt,
            "options": options,
            "timeout": timeout,
            "default": default,
            "cache_hit": cached,
        }
        self._audit.record("approval_requested", hook=source, event=event, **request)
        required = await self._hooks.emit(
            _events.APPROVAL_REQUIRED, {**_approval_subject(result, event, source), **request}
        )
        ask = _Ask(result, event, source, prompt, options)
        if cached:
            return await self._close(ask, system, True, "allow always (remembered)", "cached")
        verdict = _hook_verdict(required, ask.result)
        if verdict is not None:  # a handler of approval:required decided: nobody is asked
            approved, said, ask.result = verdict
            return await self._close(ask, system, approved, said, "hook")
        if system is None:
            return await self._close(ask, system, False, "", "no_approval_system")
        try:
            async with asyncio.timeout(timeout):
                answer = await ask_approval(
                    system,
                    prompt=prompt,
                    options=options,
                    timeout=timeout,
                    default=default,
                    request=lambda: _provider_request(ask),
                )
            decision = interpret_answer(answer)
        except TimeoutError:
            return await self._close(ask, system, default == "allow", "", "timeout")
        except Exception as err:
            error = f"{type(err).__name__}: {err}"
            return await self._close(ask, system, default == "allow", "", "error", error=error)
        if decision.approved and decision.always:
            self._always.add(remembered_as)
        return await self._close(
            ask, system, decision.approved, decision.answer, "user", decision.always
        )

    async def _close(
        self,
        ask: _Ask,
        system: object,
        approved: bool,
        answer: str,
        why: _Why,
        remembered: bool = False,
        *,
        error: str | None = None,
    ) -> HookResult:
        system_name = None if system is None else type(system).__name__
        self._audit.record(
            "approval_decision",
            hook=ask.source,
            event=ask.event,
            prompt=ask.prompt,
            approved=approved,
            answer=answer,
            why=why,
            cache_hit=why == "cached",
            remembered=remembered,
            system=system_name,
            **({"error": error} if error else {}),
        )
        by_policy = getattr(system, "answered_by_policy", None) if why == "user" else None
        where = getattr(system, "asked_where", None) if why == "user" else None
        reason = (
            None
            if approved
            else _denial_reason(
                ask,
                answer,
                why,
                system_name,
                error,
                by_policy if isinstance(by_policy, str) else None,
                where if isinstance(where, str) else None,
            )
        )
        await self._hooks.emit(
            _events.APPROVAL_GRANTED if approved else _events.APPROVAL_DENIED,
            {
                **_approval_subject(ask.result, ask.event, ask.source),
                "prompt": ask.prompt,
                "options": ask.options,
                "decision": _decision_field(answer, approved, why),
                "cached": why == "cached",
                "answer": answer,
                "why": why,
                "remembered": remembered,
                **({"reason": reason} if reason else {}),
            },
        )
        result = ask.result
        if approved:
            return HookResult(
                action="continue", data=result.data, suppress_output=result.suppress_output
            )
        return HookResult(
            action="deny",
            reason=reason,
            data=result.data,
            source=ask.source,
            suppress_output=result.suppress_output,
        )


# ------------------------------------------------------------- what is asked about, and shown

_VOLATILE: Final = frozenset(
    {"timestamp", "tool_call_id", "request_id", "id", "turn", "iteration", "session_id"}
)
_SHOWN_DEPTH: Final = 64
# Characters that continue a word, an option or a path: text next to one is part of more.
_WORD_GOES_ON: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/.~=:@%+,"
)
_DIGEST_NODES: Final = 5_000_000
# Characters a terminal would act on or that reorder text: shown escaped, never raw.
_UNSAFE_TEXT: Final = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
)


@dataclass(frozen=True, slots=True)
class AskedSubject:
    """What an ``ask_user`` result asks about: the tool and its input (``tool`` ``None`` and
    ``tool_input`` ``None`` for a request about no tool call) and the digest "allow always"
    is remembered under."""

    tool: str | None
    tool_input: dict[str, Any] | None
    digest: str


def asked_subject(data: Mapping[str, Any] | None) -> AskedSubject:
    """The subject of a request whose event data is ``data``: the tool name and input of a
    tool call, else the event data without its timestamp and ids; its digest is a SHA-256 of
    that, computed without recursion (any depth of nesting)."""
    data = data or {}
    tool = data.get("tool_name") or data.get("tool")
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = data.get("input") if isinstance(data.get("input"), dict) else None
    tool_name = tool if isinstance(tool, str) else None
    if tool_input is not None:
        subject: object = {"tool": tool_name, "tool_input": tool_input}
    else:
        subject = {k: v for k, v in data.items() if k not in _VOLATILE}
    return AskedSubject(tool_name, tool_input, _digest(subject))


def _digest(value: object) -> str:
    """A SHA-256 of ``value``'s canonical form (sorted keys), walking it with a stack."""
    digest = hashlib.sha256()
    stack: list[object] = [value]
    budget = _DIGEST_NODES
    while stack:
        budget -= 1
        if budget < 0:  # a cycle, or more than can be compared: never remembered
            return "unique:" + os.urandom(16).hex()
        item = stack.pop()
        if isinstance(item, _Token):
            digest.update(item.text)
        elif isinstance(item, Mapping):
            digest.update(b"{")
            stack.append(_Token(b"}"))
            for key in sorted(item, key=str, reverse=True):
                stack.append(item[key])
                stack.append(_Token(json.dumps(str(key)).encode() + b":"))
        elif isinstance(item, list | tuple):
            digest.update(b"[")
            stack.append(_Token(b"]"))
            for element in reversed(item):
                stack.append(element)
                stack.append(_Token(b","))
        elif item is None or isinstance(item, bool | int | float | str):
            digest.update(json.dumps(item).encode("utf-8", "surrogatepass"))
        else:
            digest.update(f"<{type(item).__name__}>{item!r:.10000}".encode("utf-8", "replace"))
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class _Token:
    text: bytes


def _leaves(value: object) -> tuple[list[str], bool]:
    """The values (strings and other scalars; not the keys) in ``value`` and whether any is
    unsafe to show raw or nesting goes past what a prompt shows; walked with a stack."""
    texts: list[str] = []
    unsafe = False
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > _SHOWN_DEPTH:
            return texts, True
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str):
            texts.append(item)
            unsafe = unsafe or _UNSAFE_TEXT.search(item) is not None
        elif item is not None and not isinstance(item, bool):
            texts.append(str(item))
    return texts, unsafe


def _shows(prompt: str, subject: AskedSubject) -> bool:
    """True when ``prompt`` already holds the tool name and every text of the input verbatim
    (and none of them needs escaping)."""
    if subject.tool and subject.tool not in prompt:
        return False
    texts, unsafe = _leaves(subject.tool_input)
    if unsafe:
        return False
    return all(_appears(text, prompt) for text in texts if text)


def _appears(text: str, prompt: str) -> bool:
    """True when ``text`` stands in ``prompt`` as a whole: not as the start or the end of a
    longer word or path (``rm -rf /`` does not appear in ``Run rm -rf /tmp/x?``)."""
    start = prompt.find(text)
    while start >= 0:
        end = start + len(text)
        before = (
            start == 0 or prompt[start - 1] not in _WORD_GOES_ON or text[0] not in _WORD_GOES_ON
        )
        after = (
            end == len(prompt) or prompt[end] not in _WORD_GOES_ON or text[-1] not in _WORD_GOES_ON
        )
        if before and after:
            return True
        start = prompt.find(text, start + 1)
    return False


def _render_input(tool_input: Mapping[str, Any]) -> tuple[str, bool]:
    """``tool_input`` as indented JSON, every non-ASCII and control character escaped, and
    whether it was cut: nesting deeper than a prompt can show is cut there, with a marker."""
    if _depth_over(tool_input):
        return json.dumps(_cut(tool_input), ensure_ascii=True, indent=2, default=repr), True
    try:
        return json.dumps(tool_input, ensure_ascii=True, indent=2, default=repr), False
    except (RecursionError, ValueError):  # a cycle
        return json.dumps(_cut(tool_input), ensure_ascii=True, indent=2, default=repr), True


def _depth_over(value: object) -> bool:
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > _SHOWN_DEPTH:
            return True
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
    return False


def _cut(value: object, depth: int = 0) -> object:
    if depth >= _SHOWN_DEPTH:
        return f"... (nested deeper than {_SHOWN_DEPTH} levels; not shown)"
    if isinstance(value, Mapping):
        return {str(k): _cut(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cut(v, depth + 1) for v in value]
    return value


def shown_prompt(prompt: str, subject: AskedSubject) -> str:
    """The prompt the human sees: the hook's ``prompt``, followed by the tool and its whole
    input when the request is about a tool call and the prompt does not already show them
    (see :class:`ApprovalGate`)."""
    if subject.tool_input is None or _shows(prompt, subject):
        return prompt
    rendered, cut = _render_input(subject.tool_input)
    lines = [prompt.rstrip(), "", f"Tool: {subject.tool or '(unnamed)'}", f"Input: {rendered}"]
    if cut:
        lines.append(f"Input sha256: {subject.digest[:16]} (not shown whole)")
    return "\n".join(lines)


def _hook_verdict(required: object, asked: HookResult) -> tuple[bool, str, HookResult] | None:
    """What the handlers of ``approval:required`` decided about ``asked``, if anything:
    ``(approved, answer, the result to close with)``. A decision is explicit: a ``deny`` result
    whose data holds ``decision: "deny"`` denies (its ``reason`` joins the asking hook's); a
    result whose data holds ``decision: "allow"`` grants, with the data's ``tool_input`` (when
    a handler changed it) replacing the input asked about. Anything else leaves the decision to
    the human, a plain ``deny`` included (a fail-closed handler that failed, a policy on every
    event)."""
    if not isinstance(required, HookResult):
        return None
    data = required.data or {}
    if required.action == "deny" and data.get("decision") == "deny":
        why = required.reason or "denied"
        who = required.source or "an approval:required handler"
        reason = f"{why} (decided by {who})"
        if asked.reason:
            reason = f"{reason}; {asked.reason}"
        return False, why, asked.model_copy(update={"reason": reason})
    if required.action == "deny" or data.get("decision") != "allow":
        return None
    updated = data.get("tool_input")
    original = (asked.data or {}).get("tool_input")
    if isinstance(updated, dict) and original is not None and updated != original:
        changed = {**(asked.data or {}), "tool_input": updated}
        if "input" in changed:
            changed["input"] = updated
        asked = asked.model_copy(update={"data": changed})
    return True, "allow (decided by an approval:required handler)", asked


def _detached(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of a tool input for observers: what they change is not what runs."""
    try:
        return copy.deepcopy(value)
    except RecursionError:  # nested too deep for deepcopy: copied with a stack
        copied: dict[str, Any] = _tree_copy(value)
        return copied
    except Exception:  # an object that cannot be copied: its container at least is new
        return dict(value)


# A copy of amplifier_hooks_util.deep.tree_copy (the kernel imports nothing of this
# repository); tests/copies/test_held_copies.py holds the two equal.
def _tree_copy(value: Any) -> Any:
    """A deep copy of dicts, lists and tuples (tuples come back as lists, as JSON carries
    them), made with a stack instead of recursion, so any depth is copied; a container that
    contains itself is copied once. Other values are shared (strings, numbers and the like
    are immutable)."""
    holder: list[Any] = [None]
    memo: dict[int, Any] = {}
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        item, parent, key = stack.pop()
        made = memo.get(id(item))
        if made is not None:
            parent[key] = made
        elif isinstance(item, dict):
            new: Any = dict.fromkeys(item)
            memo[id(item)] = parent[key] = new
            stack.extend((v, new, k) for k, v in item.items())
        elif isinstance(item, list | tuple):
            new = [None] * len(item)
            memo[id(item)] = parent[key] = new
            stack.extend((v, new, i) for i, v in enumerate(item))
        else:
            parent[key] = item
    return holder[0]


def _decision_field(answer: str, approved: bool, why: _Why) -> str:
    """The ``decision`` of the approval events: the option chosen, else ``allow`` / ``deny``
    (always those two when a handler decided: its words are in ``reason``)."""
    plain = "allow" if approved else "deny"
    return plain if why == "hook" else answer or plain


def _provider_request(ask: _Ask) -> ApprovalRequest:
    """The :class:`ApprovalRequest` an ecosystem-style provider receives for ``ask``."""
    data = ask.result.data or {}
    tool = data.get("tool_name") or data.get("tool")
    risk = data.get("risk_level")
    details: dict[str, Any] = {
        "hook": ask.source,
        "event": ask.event,
        "options": ask.options,
        "default": ask.result.approval_default,
    }
    if ask.result.reason:
        details["reason"] = ask.result.reason
    if "tool_input" in data:
        details["tool_input"] = data["tool_input"]
    return ApprovalRequest(
        tool_name=tool if isinstance(tool, str) and tool else ask.event,
        action=ask.prompt,
        details=details,
        risk_level=risk if risk in _RISK_LEVELS else "high",
        timeout=ask.result.approval_timeout,
    )


def _approval_subject(result: HookResult, event: str, source: str) -> dict[str, Any]:
    """Who asked, for which event and which tool: the common keys of the approval events."""
    data = result.data or {}
    tool_name = data.get("tool_name") or data.get("tool")
    subject: dict[str, Any] = {
        "hook": source,
        "event": event,
        "trigger_event": event,
        "tool_name": tool_name if isinstance(tool_name, str) else None,
    }
    tool_input = data.get("tool_input")
    if isinstance(tool_input, dict):  # what is asked about, for handlers that decide it
        subject["tool_input"] = _detached(tool_input)
    return subject


def _denial_reason(
    ask: _Ask,
    answer: str,
    why: _Why,
    system: str | None,
    error: str | None,
    by_policy: str | None = None,
    asked_where: str | None = None,
) -> str:
    """Who denied and why, in words for a person. An approval system that answered without
    asking anyone says so with an ``answered_by_policy`` attribute (a description such as "the
    command line's --deny policy"), read right after its answer; then the reason names that
    policy, not a user. One that asked a person may say where with an ``asked_where``
    attribute ("at the terminal"); the reason never names the system's class (the audit
    record does)."""
    request = f"{ask.prompt!r} (approval requested by hook {ask.source!r} on {ask.event!r})"
    if why == "user" and by_policy:
        text = f"Denied by {by_policy}, without asking anyone: {request}"
    elif why == "user":
        where = f" {asked_where}" if asked_where else ""
        text = f"User denied: answered {answer!r}{where} to {request}"
    elif why == "timeout":
        text = (
            f"Denied by default: no answer from {system} within "
            f"{ask.result.approval_timeout:g}s to {request}; approval_default is 'deny'"
        )
    elif why == "error":
        text = (
            f"Denied by default: approval system {system} failed ({error}) on {request}; "
            "approval_default is 'deny'"
        )
    elif why == "hook":
        text = f"Denied by a hook on approval:required without asking: {request}"
    else:
        text = f"No approval system available to ask {request}; denied by the kernel"
    if ask.result.reason:
        text = f"{text}. The hook's reason: {ask.result.reason}"
    return text
