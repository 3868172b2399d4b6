"""Code kept in two places because the layer rules forbid one to import the other, held equal.

Each copy below has one owner, named first; the other place may not import it (see
``[tool.importlinter]`` in pyproject.toml): the kernel imports nothing of this repository, the
shared packages import no kernel, and no module imports another. Each test fails when the two
drift apart, and says which copy follows which. A method that implements an interface repeats
the interface's signature (Python has no other way to write it); those copies are held to the
interface, their owner, here too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import math
import re
import textwrap
import time
from collections.abc import Callable
from typing import Any

from amplifier_hooks_util import clean_run, deep
from hypothesis import given
from hypothesis import strategies as st

from amplifier_core import approval, events
from amplifier_core import hooks as core_hooks
from amplifier_core.audit import AuditTrail
from amplifier_core.hooks import HookRegistry
from amplifier_core.observers import HandlerRun
from amplifier_core.receipts import Receipts
from amplifier_hooks_redact import memo, scanner
from amplifier_module_loop_session import names
from amplifier_module_provider_anthropic import provider as anthropic
from amplifier_module_provider_openai import provider as openai

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)
_TREES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text() | st.integers(), inner, max_size=4)
    ),
    max_leaves=30,
)


def _body(function: Any, name: str) -> str:
    """The source of ``function`` with its own name written as ``name``."""
    return re.sub(rf"\b{function.__name__}\b", name, inspect.getsource(function))


# ------------------------------------------------ util's tree_copy, copied into the kernel


def test_the_kernels_tree_copy_is_utils_to_the_letter() -> None:
    assert _body(approval._tree_copy, "tree_copy") == _body(deep.tree_copy, "tree_copy"), (
        "amplifier_core/approval.py's _tree_copy must stay a copy of "
        "amplifier_hooks_util/deep.py's tree_copy (the owner): change both"
    )


@given(_TREES)
def test_the_two_tree_copies_copy_alike(value: Any) -> None:
    ours, theirs = approval._tree_copy(value), deep.tree_copy(value)
    assert ours == theirs
    assert type(ours) is type(theirs)


# ------------------------------ util's copy for a list's leading items, and redact's snapshot
# redact may import util, but the two copies differ by one rule: clean_run keeps a class as
# itself directly inside the outer container (what ``attrgetter("__class__", ...)`` reads from
# a model), which a snapshot of event data refuses. On everything else they are the same code.


def test_the_two_plain_copies_have_the_same_limits() -> None:
    assert clean_run.MAX_DEPTH == memo.MAX_DEPTH
    assert clean_run._SHARED == memo._SHARED


@given(_TREES)
def test_utils_plain_copy_is_redacts_snapshot(value: Any) -> None:
    assert clean_run.plain_copy(value) == memo.snapshot(value)


def test_only_a_class_one_level_down_tells_them_apart() -> None:
    read = (dict, "role", "content")
    assert clean_run.plain_copy(read) == read
    assert memo.snapshot(read) is None
    for refused in ({1: "int key"}, [object()], [[dict]], dict, {"a": {"b": {2}}}):
        assert clean_run.plain_copy(refused) is None
        assert memo.snapshot(refused) is None


# ------------------------------------- the kernel's plain-data copy, and redact's snapshot


def test_the_memo_limits_are_the_same() -> None:
    assert core_hooks._MEMO_DEPTH == memo.MAX_DEPTH
    assert core_hooks._MEMO_ENTRIES == memo.MAX_ENTRIES
    assert memo._SHARED - {bytes} == core_hooks._MEMO_SHARED


@given(_JSON)
def test_on_json_data_the_kernels_memo_copy_is_redacts_snapshot(value: Any) -> None:
    # redact's snapshot also copies tuples and shares bytes, which JSON data never holds
    assert core_hooks._memo_copy(value, 0) == memo.snapshot(value)


def test_both_refuse_what_is_not_plain_and_what_nests_too_deep() -> None:
    deep_value: Any = "leaf"
    for _ in range(memo.MAX_DEPTH + 1):
        deep_value = [deep_value]
    for refused in ({1: "int key"}, [object()], {"a": {"b": {2}}}, deep_value):
        assert memo.snapshot(refused) is None
        try:
            core_hooks._memo_copy(refused, 0)
        except core_hooks._NotPlain:
            continue
        raise AssertionError(f"the kernel's memo copied {refused!r}")


# ------------------------- the kernel's event names, spelled in loop-session and hooks-declarative


def test_loop_sessions_event_names_are_the_kernels() -> None:
    spelled = {n: getattr(names, n) for n in names.__all__ if n != "ORCHESTRATOR_NAME"}
    kernel = {n: getattr(events, n, None) for n in spelled}
    assert spelled == kernel, (
        "amplifier_module_loop_session/names.py spells amplifier_core/events.py's names "
        "(the owner), for kernels that lack some of them: keep the strings equal"
    )
    assert set(spelled.values()) <= set(events.ALL_EVENTS)


def test_hooks_declaratives_pascal_names_are_the_kernels_aliases() -> None:
    from amplifier_module_hooks_declarative.mapping import PASCAL_EVENTS

    assert dict(PASCAL_EVENTS) == dict(events._ALIASES), (
        "amplifier_module_hooks_declarative/mapping.py's PASCAL_EVENTS spells "
        "amplifier_core/events.py's alias table (the owner), which amplifier-core 2.0.2 does "
        "not export: keep the two tables equal"
    )
    assert all(events.canonical(name) == event for name, event in PASCAL_EVENTS.items())


# ----------------------------------------- the kernel's types, handed to the provider base


def test_both_http_providers_hand_the_base_the_same_kernel() -> None:
    assert anthropic.KERNEL == openai.KERNEL
    block = re.compile(r"^KERNEL = HostKernel\(.*?^\)\n", re.MULTILINE | re.DOTALL)
    texts = [block.search(inspect.getsource(m)) for m in (anthropic, openai)]
    assert all(texts), "each provider module builds KERNEL = HostKernel(...) at the top level"
    assert texts[0].group() == texts[1].group()  # type: ignore[union-attr]


# ---------------------------- the lazy attributes of two modules, which may not import each other


def _code_of(function: Any) -> list[str]:
    """The lines of ``function`` below its docstring (what it does, not what it says)."""
    lines = inspect.getsource(function).splitlines()
    body = lines[1:]
    quotes = [i for i, line in enumerate(body) if '"""' in line]
    end = quotes[1] if len(quotes) > 1 and '"""' not in body[0].strip()[3:] else quotes[0]
    return body[end + 1 :]


def test_the_lazy_attribute_loaders_are_the_same_code() -> None:
    import amplifier_module_hooks_status_context as status_context
    import amplifier_module_loop_session as loop_session

    assert _code_of(status_context.__getattr__) == _code_of(loop_session.__getattr__), (
        "amplifier_module_loop_session/__init__.py's __getattr__ (the owner) and "
        "amplifier_module_hooks_status_context/__init__.py's (PEP 562 loaders of their own "
        "_LATER names; no module imports another): change both"
    )


def test_each_lazy_name_is_found_where_its_loader_looks() -> None:
    import amplifier_module_hooks_status_context as status_context
    import amplifier_module_loop_session as loop_session

    for module in (status_context, loop_session):
        for name, where in module._LATER.items():
            found = getattr(module, name)
            assert found is getattr(importlib.import_module(f"{module.__name__}.{where}"), name)


# ------------------------- the approval interface's signature, in each system that implements it


def _signature(function: Any) -> list[tuple[str, Any, Any, Any]]:
    """Each parameter of ``function`` (name, kind, default, annotation as written), then what
    it returns."""
    signature = inspect.signature(function)
    parameters = signature.parameters.values()
    shown = [(p.name, p.kind, p.default, p.annotation) for p in parameters]
    return [*shown, ("return", None, None, signature.return_annotation)]


def test_every_approval_system_takes_the_kernel_interfaces_parameters() -> None:
    from amplifier_hooks_cli.terminal_approval import TerminalApprovalSystem

    owner = approval.ApprovalSystem.request_approval
    for system in (
        approval.StaticApprovalSystem,
        approval.CallbackApprovalSystem,
        TerminalApprovalSystem,
    ):
        assert _signature(system.request_approval) == _signature(owner), (
            f"{system.__module__}.{system.__name__}.request_approval must take the parameters "
            "of amplifier_core/approval.py's ApprovalSystem.request_approval (the owner)"
        )
        assert inspect.iscoroutinefunction(system.request_approval), system.__name__


# ------------------------------ the CLI's session and the kernel's, both async context managers


def test_the_cli_session_closes_on_exit_as_the_kernel_session_does() -> None:
    from amplifier_hooks_cli.session import AgentSession

    from amplifier_core.session import AmplifierSession

    for method in ("__aenter__", "__aexit__"):
        assert _signature(getattr(AgentSession, method)) == _signature(
            getattr(AmplifierSession, method)
        ), (
            f"amplifier_hooks_cli/session.py's AgentSession.{method} must take the parameters "
            f"of amplifier_core/session.py's AmplifierSession.{method} (the owner)"
        )


# ---------------------------------- the HTTP providers' methods, each the provider base's signature


def test_each_http_provider_overrides_the_base_with_the_bases_signature() -> None:
    from amplifier_hooks_provider_base.provider import HttpProvider

    for provider in (anthropic.AnthropicProvider, openai.OpenAIProvider):
        overridden = [
            name
            for name, value in vars(provider).items()
            if inspect.isfunction(value) and name != "__init__" and hasattr(HttpProvider, name)
        ]
        assert {"auth_headers", "request_body", "read_answer"} <= set(overridden)
        for name in overridden:
            assert _signature(getattr(provider, name)) == _signature(getattr(HttpProvider, name)), (
                f"{provider.__module__}.{provider.__name__}.{name} must take the parameters of "
                f"amplifier_hooks_provider_base/provider.py's HttpProvider.{name} (the owner)"
            )


# ------------------------------- redact's scanner: what _claim does, written out again in _try
# _try is the loop the engine runs at each candidate start of a pattern; it spells _claim out
# (a call per candidate saved). Tried at every position of the text, it must find what _scan,
# which calls _claim, finds: the same spans for the same rules, the same rejected matches.

_PATTERNS = st.sampled_from(
    ["a+", "ab|b", "ba*", "(?<=b)a+", "b(?=a)", "[ab]{2}", r"\bab", "(?:ab)+c?", "c|ab", "x"]
)  # none matches the empty string: _scan would find one at the end of a text over and over


def _selectors(cut: int) -> tuple[Any, ...]:
    """Rules of a pass: one takes a match whole, one only a match of even length (an empty
    span where it refuses), one the match's first ``cut`` characters or none."""

    def whole(_: str, match: re.Match[str]) -> tuple[int, int] | None:
        return match.span()

    def even(_: str, match: re.Match[str]) -> tuple[int, int] | None:
        start, end = match.span()
        return (start, end) if (end - start) % 2 == 0 else (start, start)

    def head(_: str, match: re.Match[str]) -> tuple[int, int] | None:
        start, end = match.span()
        return (start, min(end, start + cut)) if "a" in match.group() else None

    return (whole, even, head)


@given(
    _PATTERNS,
    st.text(alphabet="abc ", max_size=40),
    st.lists(st.integers(0, 2), min_size=1, max_size=3),
    st.integers(0, 3),
)
def test_redacts_try_finds_what_scan_finds_at_every_start(
    source: str, text: str, chosen: list[int], cut: int
) -> None:
    selectors = _selectors(cut)
    members = tuple((number, selectors[which]) for number, which in enumerate(chosen))
    pattern = re.compile(source)
    scanned: tuple[list[tuple[int, int, int]], list[tuple[int, int]]] = ([], [])
    tried: tuple[list[tuple[int, int, int]], list[tuple[int, int]]] = ([], [])
    scanner._scan(pattern, text, text, members, *scanned)
    scanner._try(pattern, list(range(len(text) + 1)), text, text, members, *tried)
    assert tried == scanned, (
        "amplifier_hooks_redact/scanner.py's _try writes out _claim (the owner): change both"
    )


# ----------------------------- the kernel's Orchestrator interface, in loop-session's SessionLoop


def test_the_session_loop_takes_the_orchestrator_interfaces_parameters() -> None:
    from amplifier_core.interfaces import Orchestrator
    from amplifier_module_loop_session.orchestrator import SessionLoop

    def named(function: Any) -> list[tuple[str, Any]]:
        parameters = inspect.signature(function).parameters.values()
        return [(p.name, p.kind) for p in parameters]

    owner, loop = named(Orchestrator.execute), named(SessionLoop.execute)
    assert [*loop[: len(owner) - 1], loop[-1]] == owner, (
        "amplifier_module_loop_session/orchestrator.py's SessionLoop.execute must take the "
        "parameters of amplifier_core/interfaces.py's Orchestrator.execute (the owner), in "
        "their order, and **kwargs"
    )
    extra = list(inspect.signature(SessionLoop.execute).parameters.values())[len(owner) - 1 : -1]
    assert all(p.default is not inspect.Parameter.empty for p in extra)
    assert inspect.iscoroutinefunction(SessionLoop.execute)


# ---------------------------- the kernel's receipts: a run's tuple, built inline by each teller
# A teller (Receipts.teller for a declarative hook, Receipts.plain_for for a handler) builds the
# tuple it queues inline, the trail's defer spelled out (a call per hook run saved). For the
# same run it must queue what ran / ran_ok and _plain / _observed queue (the owners), and
# remember the same run for the required-guard check.

_RUN_DATA = st.fixed_dictionaries(
    {},
    optional={
        "tool_name": st.sampled_from(["bash", "write_file"]) | st.none(),
        "tool_call_id": st.sampled_from(["call_1", "call_2"]) | st.none() | st.integers(0, 3),
        "tool_input": st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
    },
)
_RUN_EVENTS = st.sampled_from(["tool:pre", "tool:post", "prompt:submit"])
_DECISIONS = st.sampled_from(["continue", "deny", "ask_user", "modify", "inject_context"])
_SECONDS = st.floats(min_value=0, max_value=100, allow_nan=False)


def _receipts(required: str) -> tuple[Receipts, list[tuple[Any, ...]]]:
    """Receipts on a trail that only queues (every run's time inside its open window), and
    that queue."""
    trail = AuditTrail(io.StringIO(), session_id="sess-held")
    trail.open_from, trail.open_until = -math.inf, math.inf
    return Receipts(trail, HookRegistry(), required=[required]), trail.queue


def _remembered(receipts: Receipts, data: dict[str, Any]) -> tuple[Any, ...]:
    """The runs ``receipts`` remembers for the required-guard check, and that check's answer
    on ``data`` (which forgets them)."""
    runs = {call: list(found) for call, found in receipts._calls.items()}
    return runs, receipts.check_required("tool:pre", dict(data))


def _taken(queue: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    assert len(queue) == 1, "each run queues one tuple"
    return queue.pop()


@given(
    _RUN_EVENTS,
    _RUN_DATA,
    _DECISIONS,
    _SECONDS,
    st.dictionaries(st.sampled_from(["source", "matcher"]), st.text(max_size=6), max_size=2),
)
def test_a_declarative_hooks_teller_queues_what_ran_queues(
    event: str, data: dict[str, Any], decision: str, duration: float, facts: dict[str, Any]
) -> None:
    receipts, queue = _receipts("guard")
    hook = receipts.hook_of("guard", facts)
    told = receipts.teller(hook)

    def owner() -> None:
        receipts.ran(
            hook="guard",
            event=event,
            data=data,
            decision=decision,
            outcome="ok",
            duration=duration,
            fixed=facts,
        )

    ways: list[Callable[[], None]] = [
        lambda: told(event, data, decision, duration),
        lambda: receipts.ran_ok(hook, event, data, decision, duration),
        owner,
    ]
    items, checks = [], []
    for run in ways:
        before = time.time()
        run()
        item = _taken(queue)
        assert before <= item[2] <= time.time(), "item[2] is the run's clock reading"
        items.append((*item[:2], *item[3:]))
        checks.append(_remembered(receipts, data))
    assert len(items[0]) == 9
    assert items[0] == items[1] == items[2], (
        "amplifier_core/receipts.py's teller writes out ran / ran_ok (the owners): change both"
    )
    assert checks[0] == checks[1] == checks[2]


@given(_RUN_EVENTS, _RUN_DATA, _DECISIONS, _SECONDS, _SECONDS)
def test_a_handlers_teller_queues_what_an_observed_run_queues(
    event: str, data: dict[str, Any], action: str, duration: float, ended: float
) -> None:
    receipts, queue = _receipts("guard")
    told = receipts.plain_for("guard", event)
    ways: list[Callable[[], None]] = [
        lambda: told(action, duration, ended, data),
        lambda: receipts._plain("guard", event, action, duration, ended, data),
        lambda: receipts._observed(HandlerRun("guard", event, action, duration, ended, data)),
    ]
    items, checks = [], []
    for run in ways:
        run()
        items.append(_taken(queue))
        checks.append(_remembered(receipts, data))
    assert len(items[0]) == 10
    assert items[0] == items[1] == items[2], (
        "amplifier_core/receipts.py's plain_for writes out _plain / _observed (the owners): "
        "change both"
    )
    assert checks[0] == checks[1] == checks[2]
    assert receipts.entry(items[0]) == receipts.entry(items[2])


# ------------------------------------ the kernel's emit loop and its observed twin, one file
# ``HookRegistry._emit_observed`` repeats ``emit``'s handler loop so that an observed handler
# is timed in place: a shared function would add a call per handler to every emit. Both
# loops must read a result, fail, deny and fold alike; only how a handler is run differs.


def _handler_loop(function: Any) -> ast.For:
    """The ``for info in chain`` loop of ``function``'s body."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    (loop,) = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.For) and ast.unparse(node.target) == "info"
    ]
    return loop


def _after_the_run(loop: ast.For) -> list[str]:
    """What the loop does with a handler's result: the ``try``'s statements from reading the
    result on, its handlers, and every statement after the ``try``."""
    attempt = loop.body[0]
    assert isinstance(attempt, ast.Try)
    (start,) = [i for i, s in enumerate(attempt.body) if "read_result" in ast.unparse(s)]
    kept = [*attempt.body[start:], *attempt.handlers, *loop.body[1:]]
    return [ast.dump(statement) for statement in kept]


def test_the_observed_emit_loop_reads_results_as_emit_does() -> None:
    plain = _handler_loop(HookRegistry.emit)
    observed = _handler_loop(HookRegistry._emit_observed)
    assert _after_the_run(observed) == _after_the_run(plain)
    tails = [_after_the_loop(f) for f in (HookRegistry.emit, HookRegistry._emit_observed)]
    assert tails[0] == tails[1]  # the fold after the loop
    assert tails[0]


def _after_the_loop(function: Any) -> list[str]:
    body = _function_body(function)
    (at,) = [i for i, s in enumerate(body) if isinstance(s, ast.For)]
    return [ast.dump(s) for s in body[at + 1 :]]


def _function_body(function: Any) -> list[ast.stmt]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    definition = tree.body[0]
    assert isinstance(definition, ast.AsyncFunctionDef)
    return definition.body
