"""Receipts of declarative hooks: each run, and each hook that was due and did not run.

On a kernel that keeps receipts (the coordinator capability ``audit.receipts``, see
``amplifier_core.receipts`` and ``docs/observability.md``), every declarative hook's run
leaves a ``hook_run`` record naming the hook (its label, its file and line, the SHA-256 of its
definition and, for a project's hook, the digests its trust record holds for its file and
the scripts its command names), the event and tool call, its decision, how it ended
(``outcome``, a command's ``exit_code``) and how long it took. A hook skipped because an
earlier hook blocked the event, one refused by the project's trust, a hook file found and not
loaded, and a required hook whose matcher missed the tool's name only by its spelling
(``BASH`` for ``bash``) leave one too, saying why.

How it is wired: :func:`receipted` wraps each planned hook's runner (and a matcher's
synchronous ``decide``); the command runner and the failure policy note what the process did
(:func:`note_process`, :func:`note_failure`) in a context variable the wrapper reads; the
dispatcher calls :func:`skipped_after` when a block ended an event and :func:`unmatched`
when a step's matcher passes a tool by; :func:`bind` (at mount) tells the session's receipts
what each hook is. A session that keeps no receipts (no audit log, ``session.receipts:
false``, or a kernel without them: :func:`kept`) gets no wrapper at all.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .config import HooksOrigin
from .document import HookGroup, HooksDocument
from .mapping import applies_to
from .receipt_notes import NOTE as _NOTE
from .receipt_notes import Note as _Note
from .receipt_notes import note_failure, note_process
from .specs import CommandHookSpec, HookSpec, MatcherHookSpec
from .types import Decision, HookContext

if TYPE_CHECKING:
    from .discovery import Loaded
    from .mapping import Outcome
    from .source import Source
    from .steps import PlannedHook as _Hook
    from .steps import PlannedStep

__all__ = [
    "RECEIPTS_CAPABILITY",
    "HookFacts",
    "bind",
    "kept",
    "near_miss",
    "note_failure",
    "note_process",
    "receipted",
    "skipped_after",
    "unmatched",
]

RECEIPTS_CAPABILITY: Final = "audit.receipts"
"""The kernel's capability (``amplifier_core.receipts.RECEIPTS_CAPABILITY``)."""

_clock = time.perf_counter


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class HookFacts:
    """What a receipt says about the hook itself."""

    event: str
    source: str | None
    definition_sha256: str
    code_sha256: Mapping[str, str] | None = None
    required: bool = False
    observed: bool = False
    tool_rules: tuple[str, ...] = ()
    """The tool names its matcher (group ``matcher`` or ``match.tool``) was written with."""

    def fields(self) -> dict[str, Any]:
        """The receipt's fields about the hook (those unknown left out)."""
        fields = {
            "source": self.source,
            "definition_sha256": self.definition_sha256,
            "code_sha256": dict(self.code_sha256) if self.code_sha256 else None,
            "required": True if self.required else None,
            "observed": True if self.observed else None,
        }
        return {key: value for key, value in fields.items() if value is not None}


@dataclass(slots=True)
class _Binding:
    receipts: Any
    facts: dict[str, HookFacts] = field(default_factory=dict)
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # label -> facts.fields()
    plain: dict[str, Callable[[str, Mapping[str, Any], str, float], None]] = field(
        default_factory=dict
    )
    """label -> what queues a plain run's receipt of a hook that is not required (the
    kernel's ``Receipts.teller``, its fixed fields rendered once)."""

    def record(
        self,
        label: str,
        context: HookContext,
        decision: Decision,
        note: _Note | None,
        duration: float,
    ) -> None:
        if note is None and not decision.stop:
            told = self.plain.get(label)
            if told is not None:  # the usual run: nothing more to say
                told(context.event, context.data, decision.action, duration)
                return
        extra = self.extra.get(label, _NO_FIELDS)
        outcome = "ok"
        why = None
        exit_code = None
        if note is not None:
            exit_code = note.exit_code
            if note.timed_out:
                outcome, why = "timeout", note.why
            elif note.failure is not None:
                outcome, why = note.failure, note.why
        if outcome == "ok" and self.facts.get(label, _NO_FACTS).required:
            missed = _missed_by_matcher(self.facts[label], context)
            if missed is not None:
                outcome, why = "unmatched", missed
        if outcome == "ok" and why is None and exit_code is None and not decision.stop:
            self.receipts.ran_ok(
                self.receipts.hook_of(label, extra),
                context.event,
                context.data,
                decision.action,
                duration,
            )
            return
        self.receipts.ran(
            hook=label,
            event=context.event,
            data=context.data,
            decision=decision.action,
            outcome=outcome,
            duration=duration,
            fixed=extra,
            why=why,
            exit_code=exit_code,
            stop=True if decision.stop else None,
        )


_NO_FACTS: Final = HookFacts("", None, "")
_NO_FIELDS: Final[Mapping[str, Any]] = {}
_BOUND: weakref.WeakKeyDictionary[Any, dict[str, _Binding]] = weakref.WeakKeyDictionary()
"""The declarative hooks bound to each session's receipts, by scope (the module's mount, the
managed policy): the last read of their files."""


def _definition(event: str, matcher: str | None, spec: HookSpec, condition: str | None) -> str:
    text = json.dumps(
        {
            "event": event,
            "matcher": matcher,
            "if": condition,
            "hook": spec.model_dump(mode="json", by_alias=True),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _code_digests(
    source: Source, spec: HookSpec, loaded: Loaded, project_dir: Path
) -> dict[str, str] | None:
    """The digests the project's trust record holds for the hook's file and for the files its
    command names (when the project is trusted by its record)."""
    status = loaded.status
    surface = status.surface if status is not None else None
    if surface is None or source.path is None:
        return None
    found: dict[str, str] = {}
    try:
        own = source.path.resolve().relative_to(project_dir).as_posix()
    except ValueError:
        own = None
    if own is not None and own in surface.states:
        found[own] = surface.states[own].digest
    if isinstance(spec, CommandHookSpec):
        try:
            words = shlex.split(spec.command)
        except ValueError:
            words = spec.command.split()
        for word in (*words, *(spec.args or ())):
            text = re.sub(r"^\$\{?\w*PROJECT_DIR\}?/?", "", word).strip("\"'")
            name = text.removeprefix("./")
            if name in surface.states:
                found[name] = surface.states[name].digest
    return found or None


def _alternatives(matcher: str | None) -> tuple[str, ...]:
    if matcher is None:
        return ()
    return tuple(part.strip() for part in matcher.split("|") if part.strip() not in ("", "*"))


def facts_of(
    documents: Iterable[tuple[HooksDocument, Source]],
    *,
    loaded: Loaded | None = None,
    project_dir: Path | None = None,
    observed: Callable[[str], bool] = lambda label: False,
    inline: HooksOrigin | None = None,
) -> dict[str, HookFacts]:
    """Every hook of ``documents`` by label, with what its receipts say about it;
    ``inline``: where the inline hooks (the ``config`` source) were written, by key path."""
    facts: dict[str, HookFacts] = {}
    for document, source in documents:
        where = str(source.path) if source.path is not None else source.label
        if source.kind == "config" and inline is not None:
            where = inline.file
        for block in document.events:
            for step in block.steps:
                group = step if isinstance(step, HookGroup) else None
                entries = step.hooks if isinstance(step, HookGroup) else (step,)
                matcher = group.matcher if group is not None else None
                written = group.written if group is not None and group.written else matcher
                for entry in entries:
                    rules = _alternatives(written)
                    if isinstance(entry.spec, MatcherHookSpec) and entry.spec.match.tool:
                        rules += _alternatives(entry.spec.match.tool)
                    code = (
                        _code_digests(source, entry.spec, loaded, project_dir)
                        if loaded is not None and project_dir is not None
                        else None
                    )
                    if source.kind == "config" and inline is not None and inline.files:
                        where = inline.file_of(entry.label.removeprefix(f"{source.label}:"))
                    facts[entry.label] = HookFacts(
                        event=block.event,
                        source=f"{where}:{entry.line}" if entry.line else where,
                        definition_sha256=_definition(
                            block.name, written, entry.spec, entry.condition
                        ),
                        code_sha256=code,
                        required=bool(getattr(entry.spec, "required", False)),
                        observed=observed(entry.label),
                        tool_rules=rules,
                    )
    return facts


# --------------------------------------------------------------------------- binding


def kept(coordinator: Any) -> bool:
    """Whether ``coordinator``'s session keeps receipts (its kernel offers them)."""
    get = getattr(coordinator, "get_capability", None)
    return callable(get) and get(RECEIPTS_CAPABILITY) is not None


def bind(
    coordinator: Any,
    loaded: Loaded,
    steps: Sequence[PlannedStep],
    *,
    project_dir: Path,
    found: Sequence[Source] = (),
    observe_sources: Sequence[str] = (),
    inline: HooksOrigin | None = None,
    scope: str = "module",
    dispatcher: str = "hooks-declarative:",
) -> None:
    """Tell the session's receipts (when its kernel keeps them) which declarative hooks are
    loaded and what they are; the sources in ``found`` that exist and were not loaded leave a
    ``not_loaded`` receipt; every hook of ``steps`` (the dispatcher's) reports to them. Called
    at mount and each time the hook files are read again. ``scope``: whose hooks they are (a
    new binding of a scope replaces only that scope's hooks: the managed policy's and the
    module's are bound apart); ``dispatcher``: the prefix of the names of the handlers that
    run them (``<prefix><event>``), whose own receipts say ``kind: dispatcher``."""
    get = getattr(coordinator, "get_capability", None)
    receipts = get(RECEIPTS_CAPABILITY) if callable(get) else None
    if receipts is None:
        return
    patterns = tuple(f"{pattern}:*" for pattern in observe_sources)
    facts = facts_of(
        loaded.documents,
        loaded=loaded,
        project_dir=project_dir,
        observed=lambda label: any(fnmatchcase(label, p) for p in patterns),
        inline=inline,
    )
    scopes = _BOUND.setdefault(receipts, {})
    previous = scopes.get(scope)
    if previous is not None:  # the files were read again: the hooks gone are forgotten
        receipts.forget(label for label in previous.facts if label not in facts)
    extra = {label: f.fields() for label, f in facts.items()}
    plain = {
        label: receipts.teller(receipts.hook_of(label, extra[label]))
        for label, fact in facts.items()
        if not fact.required
    }
    binding = _Binding(receipts, facts, extra, plain)
    scopes[scope] = binding
    for step in steps:
        for hook in step.hooks:
            for part in (hook.runner, getattr(hook.runner, "inner", None), hook.decide):
                if isinstance(part, _ReceiptedRunner | _Timed):
                    part.binding = binding
                if isinstance(part, _Timed):
                    part.told = binding.plain.get(hook.label)
    for label, fact in facts.items():
        receipts.declare(label, fact.event, required=fact.required)
    for key in {fact.event for fact in facts.values()}:
        receipts.runs_hooks(dispatcher + key)
    loaded_paths = {s.path for _d, s in loaded.documents if s.path is not None}
    for source in found:
        if source.path is None or source.path in loaded_paths or not source.path.exists():
            continue
        receipts.not_run(
            hook=source.label,
            event="session:mount",
            data={},
            outcome="not_loaded",
            why=f"the hooks of {source.label} were not loaded (the project is not trusted, "
            "or the file was skipped: the session's warnings say why)",
            source=str(source.path),
        )


def _binding_of(hook: _Hook) -> _Binding | None:
    """The receipts a planned hook reports to (its runner's, or its observed runner's)."""
    for part in (hook.runner, getattr(hook.runner, "inner", None)):
        if isinstance(part, _ReceiptedRunner):
            return part.binding
    return None


# --------------------------------------------------------------------------- runs


class _ReceiptedRunner:
    """A hook's runner that leaves a receipt of each run (once :func:`bind` gave it the
    session's receipts)."""

    __slots__ = ("binding", "label", "runner", "spec")

    def __init__(self, runner: Any, label: str) -> None:
        self.runner = runner
        self.label = label
        self.spec: Any = getattr(runner, "spec", None)
        self.binding: _Binding | None = None

    async def run(self, context: HookContext) -> Decision:
        binding = self.binding
        if binding is None:
            return await self.runner.run(context)  # type: ignore[no-any-return]
        note = _Note()
        token = _NOTE.set(note)
        started = _clock()
        try:
            decision = await self.runner.run(context)
        except Exception as err:
            note.failure = note.failure or "error"
            note.why = note.why or f"the runner raised {type(err).__name__}: {err}"
            binding.record(self.label, context, Decision(), note, _clock() - started)
            raise
        finally:
            _NOTE.reset(token)
        if isinstance(decision, Decision):
            binding.record(self.label, context, decision, note, _clock() - started)
        return decision  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        close = getattr(self.runner, "aclose", None)
        if callable(close):
            await close()


class _Timed:
    """A matcher's synchronous ``decide`` that leaves a receipt of each decision."""

    __slots__ = ("binding", "decide", "label", "told")

    def __init__(self, decide: Callable[[HookContext], Decision], label: str) -> None:
        self.decide = decide
        self.label = label
        self.binding: _Binding | None = None
        self.told: Callable[[str, Mapping[str, Any], str, float], None] | None = None
        """What queues a plain decision's receipt (set at bind; ``None``: a required hook)."""

    def __call__(self, context: HookContext) -> Decision:
        binding = self.binding
        if binding is None:
            return self.decide(context)
        started = _clock()
        decision = self.decide(context)
        took = _clock() - started
        told = self.told
        if told is not None and not decision.stop:  # the usual decision: only queued
            told(context.event, context.data, decision.action, took)
        else:
            binding.record(self.label, context, decision, None, took)
        return decision


def receipted(hook: _Hook) -> _Hook:
    """``hook`` with its runner (and its synchronous ``decide``) leaving receipts."""
    import dataclasses

    decide = _Timed(hook.decide, hook.label) if hook.decide is not None else None
    return dataclasses.replace(
        hook, runner=_ReceiptedRunner(hook.runner, hook.label), decide=decide
    )


# --------------------------------------------------------------------------- not run


def near_miss(rules: Iterable[str], tool: str) -> str | None:
    """The rule among ``rules`` that names ``tool`` but for its spelling (``BASH`` for
    ``bash``): the kernel's ``amplifier_core.receipts.near_miss`` (receipts are bound only on
    a kernel that has it)."""
    from amplifier_core.receipts import near_miss as kernel_near_miss

    return kernel_near_miss(rules, tool)


def _missed_by_matcher(facts: HookFacts, context: HookContext) -> str | None:
    """Why a required matcher hook that ran did not judge this call: its ``match.tool``
    missed the tool's name only by its spelling."""
    tool = context.tool
    if tool is None or not facts.tool_rules:
        return None
    rule = near_miss(facts.tool_rules, tool)
    if rule is None:
        return None
    from .patterns import compile_tool_pattern

    if compile_tool_pattern("|".join(facts.tool_rules))(tool):
        return None
    return (
        f"its matcher {rule!r} does not match the tool's name {tool!r} "
        "(it differs only in spelling)"
    )


def unmatched(step: PlannedStep, context: HookContext, target: str) -> None:
    """A step's matcher passed ``target`` by: a required hook of it whose matcher names the
    tool but for its spelling was due and did not run."""
    for hook in step.hooks:
        binding = _binding_of(hook)
        facts = binding.facts.get(hook.label) if binding is not None else None
        if binding is None or facts is None or not facts.required:
            continue
        rule = near_miss(facts.tool_rules, target)
        if rule is None:
            continue
        binding.receipts.not_run(
            hook=hook.label,
            event=context.event,
            data=context.data,
            outcome="unmatched",
            why=f"its matcher {rule!r} does not match the tool's name {target!r} "
            "(it differs only in spelling)",
            fixed=binding.extra.get(hook.label),
        )


def skipped_after(steps: Sequence[PlannedStep], context: HookContext, outcome: Outcome) -> None:
    """A block ended the event: the hooks after the blocking one that would have run are
    skipped, and say so (a parallel or joint group's hooks all ran)."""
    binding = next((b for step in steps for h in step.hooks if (b := _binding_of(h))), None)
    if binding is None or not outcome.blocks:
        return
    blocker = outcome.blocks[0].source
    found = False
    together = False  # still in the joint steps that ran with the blocker
    tool = context.tool
    for step in steps:
        if step.tool_filter is not None and tool is not None and not step.tool_filter(tool):
            continue
        if not applies_to(step.alias, context.data):
            continue
        labels = [hook.label for hook in step.hooks]
        if not found:
            if blocker in labels:
                found, together = True, step.joint
                if not (step.parallel or step.joint):
                    _skip(binding, step.hooks[labels.index(blocker) + 1 :], context, blocker)
            continue
        if together and step.joint:
            continue
        together = False
        _skip(binding, step.hooks, context, blocker)


def _skip(binding: _Binding, hooks: Iterable[_Hook], context: HookContext, blocker: str) -> None:
    for hook in hooks:
        if hook.background:
            continue
        binding.receipts.not_run(
            hook=hook.label,
            event=context.event,
            data=context.data,
            outcome="skipped",
            why=f"{blocker} blocked the event before it",
            fixed=binding.extra.get(hook.label),
        )
