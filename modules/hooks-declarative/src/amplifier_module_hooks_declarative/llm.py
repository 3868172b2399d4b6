"""LLM hooks: ask a fast model whether an operation is safe, and act on its JSON answer.

::

    - type: llm
      model: claude-3-haiku
      prompt: |
        Evaluate if this tool use is safe:
        Tool: {{tool}}
        Args: {{args}}
        Respond with JSON: {"safe": true/false, "reason": "..."}
      max_tokens: 100
      cache: true

The prompt is rendered by :mod:`.template` and sent as one user message through the kernel's
HTTP providers (``amplifier_core.providers.make_provider``): ``type`` comes from
``provider.type``, else from the model name (``claude*`` is Anthropic, anything else an
OpenAI-compatible API); the other ``provider`` keys (``base_url``, ``api_key_env``,
``headers``, ...) are passed on. ``timeout_ms`` bounds the whole call and is the provider's
timeout; ``provider.max_retries`` may be 0 (the default) or 1, so a hook stays fast.

The answer is JSON, bare, in a ```json fence or inside prose, in one of two shapes:

- ``{"safe": true | false, "reason": "..."}``: false blocks with the reason, true allows;
- ``{"decision": "allow" | "block" | "ask", "reason": "..."}``.

Anything else (no JSON, wrong types, an unknown decision), an HTTP error, a timeout, a missing
API key, or a kernel without ``amplifier_core.providers`` (amplifier-core 2.0.2) is a failure
of the hook and gets :func:`~.types.failure_decision` under the hook's ``on_failure``.

With ``cache: true`` answers are kept in an :class:`~.llm_cache.LlmCache` (bounded, timed,
single-flight); unusable answers and failures are never kept.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Literal

from .llm_cache import LlmCache, provider_identity, request_key
from .specs import LlmHookSpec
from .template import Template
from .types import Decision, HookContext, failure_decision

if TYPE_CHECKING:
    from amplifier_core.chat import ChatRequest, Provider

__all__ = ["AnswerError", "LlmRunner", "LlmUnavailableError", "Verdict", "parse_answer"]

_SNIPPET: Final = 200
_SCAN_LIMIT: Final = 65_536
_DECISIONS: Final = frozenset({"allow", "block", "ask"})
_PROVIDER_TYPES: Final = ("anthropic", "openai")
_DECODER: Final = json.JSONDecoder()


class AnswerError(ValueError):
    """The model answered, but not with a usable verdict."""


class LlmUnavailableError(RuntimeError):
    """The running kernel has no model providers (``amplifier_core.providers``)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the model decided, and why."""

    action: Literal["allow", "block", "ask"]
    reason: str


def parse_answer(text: str) -> Verdict:
    """The verdict in a model's answer.

    The first JSON object holding ``safe`` or ``decision`` is used (else the first JSON
    object at all), wherever it stands: bare, in a code fence, or inside prose.

    :raises AnswerError: no JSON object, neither key, a key of the wrong type, an unknown
        decision, or ``safe`` and ``decision`` contradicting each other; the message quotes
        the first 200 characters of the answer.
    """
    found = _find_object(text)
    if found is None:
        raise AnswerError(f"the answer holds no JSON object; answer: {_snippet(text)}")
    reason = found.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise AnswerError(
            f"`reason` must be a string, got {type(reason).__name__}; answer: {_snippet(text)}"
        )
    safe = found.get("safe")
    if "safe" in found and not isinstance(safe, bool):
        raise AnswerError(
            f"`safe` must be true or false, got {json.dumps(safe)}; answer: {_snippet(text)}"
        )
    action: Literal["allow", "block", "ask"]
    if "decision" in found:
        decision = found["decision"]
        word = decision.strip().lower() if isinstance(decision, str) else None
        if word == "allow":
            action = "allow"
        elif word == "block":
            action = "block"
        elif word == "ask":
            action = "ask"
        else:
            raise AnswerError(
                f"unknown decision {json.dumps(decision)} (expected allow, block or ask); "
                f"answer: {_snippet(text)}"
            )
        if isinstance(safe, bool) and safe != (action == "allow"):
            raise AnswerError(
                f'"safe": {json.dumps(safe)} contradicts "decision": "{action}"; '
                f"answer: {_snippet(text)}"
            )
    elif isinstance(safe, bool):
        action = "allow" if safe else "block"
    else:
        raise AnswerError(
            'the JSON answer has neither "safe" nor "decision" '
            f"(keys: {', '.join(sorted(found)) or 'none'}); answer: {_snippet(text)}"
        )
    return Verdict(action=action, reason=(reason or "").strip())


def _snippet(text: str) -> str:
    return repr(text[:_SNIPPET]) + ("..." if len(text) > _SNIPPET else "")


def _find_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` with a ``safe`` or ``decision`` key, else the first."""
    decoder = _DECODER
    first: dict[str, Any] | None = None
    index = text.find("{")
    while 0 <= index < _SCAN_LIMIT:
        try:
            value, _end = decoder.raw_decode(text, index)
        except ValueError:
            value = None
        if isinstance(value, dict):
            if "safe" in value or "decision" in value:
                return value
            if first is None:
                first = value
        index = text.find("{", index + 1)
    return first


def _provider_config(spec: LlmHookSpec, label: str) -> dict[str, Any]:
    """The ``make_provider`` config of ``spec``; config mistakes raise ``ValueError``."""
    given = dict(spec.provider or {})
    where = f"llm hook {label}: provider"
    for key, instead in (("model", "the hook's `model`"), ("timeout", "the hook's `timeout_ms`")):
        if key in given:
            raise ValueError(f"{where}.{key}: not allowed here; set {instead} instead")
    kind = given.pop("type", None)
    if kind is None:
        kind = "anthropic" if spec.model.lower().startswith("claude") else "openai"
    if kind not in _PROVIDER_TYPES:
        raise ValueError(
            f"{where}.type: expected one of {', '.join(_PROVIDER_TYPES)}, got {kind!r}"
        )
    retries = given.pop("max_retries", 0)
    if isinstance(retries, bool) or retries not in (0, 1):
        raise ValueError(
            f"{where}.max_retries: expected 0 or 1 (a hook must stay fast), got {retries!r}"
        )
    return {
        "type": kind,
        "model": spec.model,
        **given,
        "timeout": spec.timeout_ms / 1000,
        "max_retries": retries,
    }


class _Kernel:
    """The kernel parts an LLM hook needs, imported on first use."""

    chat_request: type[ChatRequest] | None = None
    make_provider: Callable[..., Provider] | None = None

    @classmethod
    def load(cls) -> tuple[type[ChatRequest], Callable[..., Provider]]:
        if cls.chat_request is None or cls.make_provider is None:
            try:
                from amplifier_core.chat import ChatRequest
                from amplifier_core.providers import make_provider
            except ImportError as err:
                raise LlmUnavailableError(
                    "LLM hooks need model providers (amplifier_core.providers), which this "
                    f"kernel does not have ({_kernel_version()}): {err}; run on the "
                    "amplifier-hooks kernel, or use a command hook that calls the model"
                ) from err
            cls.chat_request, cls.make_provider = ChatRequest, make_provider
        return cls.chat_request, cls.make_provider


def _kernel_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - always present on Python >= 3.8
        return "version unknown"
    for name in ("amplifier-hooks", "amplifier-core"):
        try:
            return f"{name} {version(name)}"
        except PackageNotFoundError:
            continue
    return "version unknown"


class LlmRunner:
    """An LLM hook: ``await runner.run(context)`` asks the model and returns its decision.

    :param spec: the validated hook entry.
    :param label: names the hook in messages and decisions (file and index).
    :param cache: a cache to share with other runners; used only when ``spec.cache`` is true
        (without it such a runner makes its own of ``cache_size`` and ``cache_ttl_s``).
    :param provider: a ready provider (anything with ``async complete(ChatRequest)``) instead
        of building one from ``spec.provider``; the request still names ``spec.model``.
    :raises TemplateError: the prompt uses an unknown placeholder.
    :raises ValueError: a ``provider`` key that is not allowed (``type`` other than anthropic
        or openai, ``max_retries`` above 1, ``model`` or ``timeout``).
    """

    def __init__(
        self,
        spec: LlmHookSpec,
        *,
        label: str,
        cache: LlmCache | None = None,
        provider: Provider | None = None,
    ) -> None:
        self.spec = spec
        self.label = label
        self.template = Template(spec.prompt, where=f"llm hook {label}: prompt")
        self.provider_config = _provider_config(spec, label)
        self.cache: LlmCache | None = None
        if spec.cache:
            self.cache = cache if cache is not None else LlmCache(spec.cache_size, spec.cache_ttl_s)
        self._timeout_s = spec.timeout_ms / 1000
        self._provider = provider
        self._owns_provider = provider is None
        self._provider_id = provider_identity(
            self.provider_config
            if provider is None
            else {
                "instance": f"{type(provider).__module__}.{type(provider).__qualname__}",
                "id": id(provider),
            }
        )

    def __repr__(self) -> str:
        return (
            f"LlmRunner({self.label!r}, model={self.spec.model!r}, "
            f"type={self.provider_config['type']!r}, cache={self.cache is not None})"
        )

    async def run(self, context: HookContext) -> Decision:
        """The model's decision for ``context``; a failure is ``failure_decision(on_failure)``."""
        spec = self.spec
        cache = self.cache
        try:
            prompt = self.template.render(context)
            key = None if cache is None else self._key(prompt)
            answer = None if cache is None else cache.get(key)
            if answer is None:
                async with asyncio.timeout(self._timeout_s):
                    if cache is None:
                        answer = await self._ask(prompt)
                    else:
                        answer, _cached = await cache.get_or_call(
                            key, partial(self._ask, prompt), ttl_s=spec.cache_ttl_s
                        )
            verdict = parse_answer(answer)
        except TimeoutError:
            return self._failed(f"no answer from {spec.model} within {spec.timeout_ms} ms")
        except AnswerError as err:
            return self._failed(f"unusable answer from {spec.model}: {err}")
        except LlmUnavailableError as err:
            return self._failed(str(err))
        except Exception as err:
            return self._failed(f"calling {spec.model} failed: {_describe(err)}")
        return self._decide(verdict)

    async def aclose(self) -> None:
        """Close the HTTP connections of the provider this runner built (not a given one)."""
        if not self._owns_provider:
            return
        provider, self._provider = self._provider, None
        close = getattr(provider, "aclose", None)
        if close is not None:
            await close()

    def _key(self, prompt: str) -> Hashable:
        return request_key(
            model=self.spec.model,
            provider_id=self._provider_id,
            prompt=prompt,
            max_tokens=self.spec.max_tokens,
        )

    async def _ask(self, prompt: str) -> str:
        """The model's answer text; raises when the call fails or the answer is unusable."""
        chat_request, make_provider = _Kernel.load()
        provider = self._provider
        if provider is None:
            provider = make_provider(self.provider_config, where=f"llm hook {self.label}: provider")
            self._provider = provider
        request = chat_request(
            messages=[{"role": "user", "content": prompt}],
            model=self.spec.model,
            max_tokens=self.spec.max_tokens,
        )
        async with asyncio.timeout(self._timeout_s):
            response = await provider.complete(request)
        parse_answer(response.text)  # an unusable answer raises here, so it is never cached
        return response.text

    def _decide(self, verdict: Verdict) -> Decision:
        if verdict.action == "allow":
            return Decision(action="allow", source=self.label)
        reason = verdict.reason or f"{self.spec.model} gave no reason"
        return Decision(action=verdict.action, message=reason, level="warning", source=self.label)

    def _failed(self, problem: str) -> Decision:
        return failure_decision(self.spec.on_failure, self.label, problem)


def _describe(err: Exception) -> str:
    """A provider error's own message (it names provider, model, status); else type: text."""
    if type(err).__name__ == "ProviderError":
        return str(err)
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
