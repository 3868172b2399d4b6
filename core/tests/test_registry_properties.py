"""Property test: any mix of handlers never breaks emit and matches a small reference model.

Hypothesis draws lists of handlers with random priorities, call styles (async, sync, sync
returning an awaitable) and behaviours (raise, hang past a short timeout, return garbage,
return None, or return each of the five actions with random payloads). The reference model
below is written from the contract alone, independently of ``hooks.py``: it walks the
handlers in (priority, registration) order and predicts the final action and data, the
ordered injections with their handler names, the ask_user winner, the user messages, which
handlers ran with which data, and every failure the listener hears about.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.hooks import FailureKind, HookRegistry
from amplifier_core.models import ContextInjection, HookResult, UserMessage

Data = dict[str, Any]
Style = Literal["async", "sync", "sync_awaitable"]
Behaviour = Literal[
    "raise", "hang", "garbage", "none", "continue", "deny", "modify", "inject", "ask"
]

EVENT = "tool:pre"
HANG_TIMEOUT = 0.005  # seconds; a hanging handler is cut off after this
ROOMY_TIMEOUT = 5.0  # seconds; bounds a handler without ever firing
LEVEL_RANK = {"info": 0, "warning": 1, "error": 2}


# ---------------------------------------------------------------------------- handler specs


@dataclass(frozen=True)
class Injection:
    content: str
    role: Literal["system", "user", "assistant"]
    ephemeral: bool
    hook_name: str | None  # None: the registry fills in the handler's name
    event: str | None  # None: the registry fills in the event


@dataclass(frozen=True)
class Message:
    text: str
    level: Literal["info", "warning", "error"]
    source: str | None  # None: the registry fills in the handler's name


@dataclass(frozen=True)
class Spec:
    """One handler: how it is called, what it does, and how it is registered."""

    name: str
    priority: int
    style: Style
    behaviour: Behaviour
    fail_closed: bool
    timeout: float | None
    garbage: Any = None
    reason: str = ""
    data: Data | None = None
    merge: bool = False  # modify: merge ``data`` into what it saw instead of replacing
    source: str | None = None  # deny / ask_user: a source the handler sets itself
    injections: tuple[Injection, ...] = ()
    scalar_injection: bool = False  # one injection given through ``context_injection``
    prompt: str = ""
    message: Message | None = None


def build_result(spec: Spec, seen: Data) -> HookResult | None:
    """The HookResult a result-returning handler hands back."""
    message_fields: dict[str, Any] = {}
    if spec.message is not None:
        message_fields = {
            "user_message": spec.message.text,
            "user_message_level": spec.message.level,
            "user_message_source": spec.message.source,
        }
    if spec.behaviour == "none":
        return None
    if spec.behaviour == "continue":
        return HookResult(**message_fields)
    if spec.behaviour == "deny":
        return HookResult(
            action="deny", reason=spec.reason, data=spec.data, source=spec.source, **message_fields
        )
    if spec.behaviour == "modify":
        data = None if spec.data is None else ({**seen, **spec.data} if spec.merge else spec.data)
        return HookResult(action="modify", data=data, **message_fields)
    injection_fields: dict[str, Any] = {}
    if spec.scalar_injection:
        only = spec.injections[0]
        injection_fields = {
            "context_injection": only.content,
            "context_injection_role": only.role,
            "ephemeral": only.ephemeral,
        }
    elif spec.injections:
        injection_fields = {
            "context_injections": [
                ContextInjection.model_validate(
                    {
                        "content": item.content,
                        "role": item.role,
                        "ephemeral": item.ephemeral,
                        **({"hook_name": item.hook_name} if item.hook_name is not None else {}),
                        **({"event": item.event} if item.event is not None else {}),
                    }
                )
                for item in spec.injections
            ]
        }
    if spec.behaviour == "inject":
        return HookResult(action="inject_context", **injection_fields, **message_fields)
    assert spec.behaviour == "ask"
    return HookResult(
        action="ask_user",
        approval_prompt=spec.prompt,
        source=spec.source,
        **injection_fields,
        **message_fields,
    )


class Recorder:
    """Handlers built from specs; records who ran with which data, and every failure."""

    def __init__(self) -> None:
        self.called: list[tuple[str, Data]] = []
        self.failures: list[tuple[str, str, FailureKind, bool, str]] = []

    def listener(
        self, *, event: str, handler: str, kind: FailureKind, error: str, fail_closed: bool
    ) -> None:
        self.failures.append((event, handler, kind, fail_closed, error))

    def handler(self, spec: Spec) -> Any:
        async def act(data: Data) -> Any:
            if spec.behaviour == "hang":
                await asyncio.Event().wait()
            return act_now(data)

        def act_now(data: Data) -> Any:
            if spec.behaviour == "raise":
                raise RuntimeError(f"{spec.name} broke")
            if spec.behaviour == "garbage":
                return spec.garbage
            return build_result(spec, data)

        def record(data: Data) -> None:
            self.called.append((spec.name, dict(data)))

        if spec.style == "async":

            async def async_handler(event: str, data: Data) -> Any:
                record(data)
                return await act(data)

            return async_handler
        if spec.style == "sync_awaitable":

            def awaitable_handler(event: str, data: Data) -> Any:
                record(data)
                return act(data)

            return awaitable_handler

        def sync_handler(event: str, data: Data) -> Any:
            record(data)
            return act_now(data)

        return sync_handler


# ---------------------------------------------------------------------------- reference model


@dataclass
class Prediction:
    action: str
    data: Data | None
    called: list[tuple[str, Data]] = field(default_factory=list)
    failures: list[tuple[str, FailureKind, bool]] = field(default_factory=list)
    injections: list[tuple[str, str, bool, str, str]] = field(default_factory=list)
    messages: list[tuple[str, str, str]] = field(default_factory=list)
    source: str | None = None
    prompt: str | None = None
    reason: str | None = None
    deny_spec: Spec | None = None


def predict(specs: list[Spec], data_in: Data) -> Prediction:
    """What emit must return, worked out from the contract alone."""
    ordered = [spec for _, spec in sorted(enumerate(specs), key=lambda p: (p[1].priority, p[0]))]
    prediction = Prediction(action="continue", data=dict(data_in))
    data = dict(data_in)
    injected = False
    asker: Spec | None = None
    failure_kinds: dict[str, FailureKind] = {
        "raise": "error",
        "hang": "timeout",
        "garbage": "invalid_result",
    }
    for spec in ordered:
        prediction.called.append((spec.name, dict(data)))
        if spec.behaviour in failure_kinds:
            # a result emit cannot read denies whatever the handler was registered with
            closes = spec.fail_closed or spec.behaviour == "garbage"
            prediction.failures.append((spec.name, failure_kinds[spec.behaviour], closes))
            if closes:
                prediction.action = "deny"
                prediction.data = None
                prediction.source = spec.name
                return prediction
            continue
        if spec.behaviour == "none":
            continue
        if spec.behaviour == "deny":
            prediction.action = "deny"
            prediction.data = spec.data
            prediction.source = spec.source or spec.name
            prediction.reason = spec.reason
            prediction.deny_spec = spec
            return prediction
        if spec.message is not None:
            prediction.messages.append(
                (spec.message.text, spec.message.level, spec.message.source or spec.name)
            )
        if spec.behaviour == "modify" and spec.data is not None and asker is None:
            data = {**data, **spec.data} if spec.merge else dict(spec.data)
        if spec.behaviour == "inject":
            injected = True
        if spec.behaviour in ("inject", "ask"):
            for item in spec.injections:
                prediction.injections.append(
                    (
                        item.content,
                        item.role,
                        item.ephemeral,
                        item.hook_name or spec.name,
                        item.event or EVENT,
                    )
                )
        if spec.behaviour == "ask" and asker is None:
            asker = spec
    prediction.data = data
    if asker is not None:
        prediction.action = "ask_user"
        prediction.source = asker.source or asker.name
        prediction.prompt = asker.prompt
    elif injected:
        prediction.action = "inject_context"
    # Modified data comes back as continue carrying it (amplifier-core 2.0.2).
    return prediction


# ---------------------------------------------------------------------------- strategies

texts = st.text(alphabet="abcxyz -:", min_size=1, max_size=8).filter(lambda s: s.strip() != "")
small_values = st.one_of(st.integers(-3, 3), st.text(max_size=3), st.booleans(), st.none())
small_dicts = st.dictionaries(
    st.sampled_from(["a", "b", "c", "timestamp"]), small_values, max_size=3
)
roles = st.sampled_from(["system", "user", "assistant"])
levels = st.sampled_from(["info", "warning", "error"])
garbage = st.one_of(
    st.integers(),
    st.text(max_size=5),
    # a dict of HookResult fields is read as that result ({} is continue): these are not
    st.dictionaries(
        st.text(max_size=3).map(lambda k: f"x-{k}"), st.integers(), min_size=1, max_size=2
    ),
)
injection_items = st.builds(
    Injection,
    content=texts,
    role=roles,
    ephemeral=st.booleans(),
    hook_name=st.one_of(st.none(), st.just("own-name")),
    event=st.one_of(st.none(), st.just("own:event")),
)
messages = st.one_of(
    st.none(), st.builds(Message, text=texts, level=levels, source=st.one_of(st.none(), texts))
)
BEHAVIOURS: list[Behaviour] = [
    "raise", "hang", "garbage", "none", "continue", "deny", "modify", "inject", "ask"
]  # fmt: skip


@st.composite
def spec_lists(draw: st.DrawFn) -> tuple[list[Spec], float | None]:
    default_timeout = draw(st.sampled_from([None, None, HANG_TIMEOUT]))
    count = draw(st.integers(0, 7))
    specs: list[Spec] = []
    for index in range(count):
        behaviour = draw(st.sampled_from(BEHAVIOURS))
        style: Style = draw(st.sampled_from(["async", "sync", "sync_awaitable"]))
        if behaviour == "hang" and style == "sync":
            style = "sync_awaitable"  # only an awaitable can hang without blocking the loop
        timeout: float | None = draw(st.sampled_from([None, ROOMY_TIMEOUT]))
        if behaviour == "hang":
            timeout = HANG_TIMEOUT if default_timeout is None else None
        fields: dict[str, Any] = {}
        if behaviour == "garbage":
            fields["garbage"] = draw(garbage)
        elif behaviour == "deny":
            fields["reason"] = draw(texts)
            fields["data"] = draw(st.one_of(st.none(), small_dicts))
            fields["source"] = draw(st.one_of(st.none(), st.just("own-source")))
        elif behaviour == "modify":
            fields["data"] = draw(st.one_of(st.none(), small_dicts))
            fields["merge"] = draw(st.booleans())
        elif behaviour in ("inject", "ask"):
            minimum = 1 if behaviour == "inject" else 0
            items = tuple(draw(st.lists(injection_items, min_size=minimum, max_size=3)))
            scalar = len(items) == 1 and draw(st.booleans())
            if scalar:
                only = items[0]
                items = (Injection(only.content, only.role, only.ephemeral, None, None),)
            fields["injections"] = items
            fields["scalar_injection"] = scalar
            if behaviour == "ask":
                fields["prompt"] = draw(texts)
                fields["source"] = draw(st.one_of(st.none(), st.just("own-source")))
        if behaviour in ("continue", "deny", "modify", "inject", "ask"):
            fields["message"] = draw(messages)
        specs.append(
            Spec(
                name=f"h{index}",
                priority=draw(st.integers(-2, 2)),
                style=style,
                behaviour=behaviour,
                fail_closed=draw(st.booleans()),
                timeout=timeout,
                **fields,
            )
        )
    return specs, default_timeout


# ---------------------------------------------------------------------------- the property


async def run_emit(
    specs: list[Spec], default_timeout: float | None, defaults: Data, data_in: Data
) -> tuple[HookResult, Recorder, list[str]]:
    registry = HookRegistry(default_timeout=default_timeout)
    registry.set_default_fields(**defaults)
    recorder = Recorder()
    registry.add_failure_listener(recorder.listener)
    for spec in specs:
        registry.register(
            EVENT,
            recorder.handler(spec),
            priority=spec.priority,
            name=spec.name,
            timeout=spec.timeout,
            fail_closed=spec.fail_closed,
        )
    listed = registry.list_handlers(EVENT)[EVENT]
    result = await registry.emit(EVENT, data_in)
    return result, recorder, listed


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    drawn=spec_lists(),
    defaults=st.dictionaries(st.sampled_from(["session_id", "a"]), small_values, max_size=2),
    payload=small_dicts,
)
def test_emit_matches_the_reference_model(
    drawn: tuple[list[Spec], float | None], defaults: Data, payload: Data
) -> None:
    specs, default_timeout = drawn
    data_in = {**payload, "timestamp": "2024-05-06T07:08:09+00:00"}
    snapshot = dict(data_in)

    result, recorder, listed = asyncio.run(run_emit(specs, default_timeout, defaults, data_in))
    if specs:  # the registry stamps its own time over the caller's
        stamp = recorder.called[0][1]["timestamp"]
        assert stamp != data_in["timestamp"]
        expected = predict(specs, {**defaults, **data_in, "timestamp": stamp})
    else:  # no handler: the data as given, without defaults
        expected = Prediction(action="continue", data=dict(data_in))

    assert data_in == snapshot, "emit must not change the caller's dict"
    assert listed == [
        spec.name for _, spec in sorted(enumerate(specs), key=lambda p: (p[1].priority, p[0]))
    ]
    assert recorder.called == expected.called
    assert [(h, k, fc) for _, h, k, fc, _ in recorder.failures] == expected.failures
    for event, handler, kind, _, error in recorder.failures:
        assert event == EVENT
        if kind == "error":
            assert error == f"RuntimeError: {handler} broke"
        elif kind == "timeout":
            assert "timed out" in error

    assert isinstance(result, HookResult)
    assert result.action == expected.action
    assert result.data == expected.data
    assert result.source == expected.source

    if expected.action == "deny":
        if expected.deny_spec is not None:  # returned as it is, plus source
            returned = build_result(expected.deny_spec, {})
            assert returned is not None
            assert result.model_dump(exclude={"source"}) == returned.model_dump(exclude={"source"})
            assert result.reason == expected.reason
        else:  # a fail-closed failure
            assert result.reason is not None
            assert expected.source is not None
            assert expected.source in result.reason
            assert EVENT in result.reason
        return

    got_injections = [
        (i.content, i.role, i.ephemeral, i.hook_name, i.event) for i in result.context_injections
    ]
    got_messages = [(m.message, m.level, m.source) for m in result.user_messages]
    assert got_injections == expected.injections
    assert got_messages == expected.messages
    if expected.action == "ask_user":
        assert result.approval_prompt == expected.prompt

    # The scalar fields older callers read are projected from the ordered lists.
    if got_injections:
        assert result.context_injection == "\n\n".join(i[0] for i in got_injections)
        assert result.context_injection_role == got_injections[0][1]
        assert result.ephemeral is all(i[2] for i in got_injections)
    else:
        assert result.context_injection is None
    if got_messages:
        assert result.user_message == "\n".join(m[0] for m in got_messages)
        assert result.user_message_level == max(
            (m[1] for m in got_messages), key=LEVEL_RANK.__getitem__
        )
    else:
        assert result.user_message is None


def test_the_reference_model_on_a_known_case() -> None:
    """Pin the reference model itself to one hand-checked answer."""
    specs = [
        Spec("h0", 1, "async", "ask", False, None, prompt="second ask?"),
        Spec("h1", 0, "sync", "modify", False, None, data={"x": 1}, merge=True),
        Spec("h2", 0, "async", "raise", False, None),
        Spec(
            "h3",
            -1,
            "sync",
            "inject",
            False,
            None,
            injections=(Injection("ctx", "user", False, None, None),),
            message=Message("hello", "warning", None),
        ),
        Spec("h4", 2, "async", "ask", False, None, prompt="third ask?"),
    ]
    expected = predict(specs, {"timestamp": "t"})
    assert [name for name, _ in expected.called] == ["h3", "h1", "h2", "h0", "h4"]
    assert expected.action == "ask_user"
    assert expected.source == "h0"
    assert expected.prompt == "second ask?"
    assert expected.data == {"timestamp": "t", "x": 1}
    assert expected.injections == [("ctx", "user", False, "h3", EVENT)]
    assert expected.messages == [("hello", "warning", "h3")]
    assert expected.failures == [("h2", "error", False)]

    result, recorder, _ = asyncio.run(run_emit(specs, None, {}, {"timestamp": "t"}))
    assert result.action == "ask_user"
    assert result.approval_prompt == "second ask?"
    assert [name for name, _ in recorder.called] == ["h3", "h1", "h2", "h0", "h4"]


def test_user_messages_built_by_the_handler_are_the_ones_checked() -> None:
    """The spec helpers build what they claim (guards against a vacuous property)."""
    spec = Spec(
        "h9",
        0,
        "async",
        "inject",
        False,
        None,
        injections=(Injection("a", "system", True, "own-name", None),),
        message=Message("m", "error", "src"),
    )
    result = build_result(spec, {})
    assert result is not None
    assert result.context_injections == [
        ContextInjection(content="a", ephemeral=True, hook_name="own-name")
    ]
    assert result.user_messages == [UserMessage(message="m", level="error", source="src")]
