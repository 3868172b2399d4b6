"""What ``amplifier_core._engine`` answers a caller, as JSON on stdout.

    python engine_probe.py

Run by ``test_engine_module.py`` on this kernel and on amplifier-core 2.0.2 (the interpreter in
``AMPLIFIER_CORE_202_PYTHON``), which compares the two answers. Only what 2.0.2 fixes is
recorded: values, exception types, warning categories and texts, the ``repr`` of
``ProviderError``, and whether jittered delays stay inside their bounds. Error messages are
this kernel's own and are not compared.
"""

from __future__ import annotations

import asyncio
import json
import math
import warnings
from typing import Any

import amplifier_core._engine as engine
from amplifier_core.llm_errors import LLMError, ProviderUnavailableError, RateLimitError
from amplifier_core.utils.retry import retry_with_backoff

NUMBERS_SEEN_AS_JSON = {math.inf: "inf", -math.inf: "-inf"}


def _number(value: float) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return NUMBERS_SEEN_AS_JSON.get(value, value)


def _call(function: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """``function``'s result (through ``_number`` when a float) or exception type, and the
    warnings it gave (category and text)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = function(*args, **kwargs)
            outcome: dict[str, Any] = {
                "value": _number(result) if isinstance(result, float) else result
            }
        except Exception as error:
            outcome = {"raises": type(error).__name__}
    outcome["warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
    return outcome


def _config(config: Any) -> list[Any]:
    return [
        config.max_retries,
        config.initial_delay,
        config.max_delay,
        config.backoff_factor,
        config.jitter,
        config.honor_retry_after,
    ]


CONFIGS: list[dict[str, Any]] = [
    {},
    {"max_retries": 5, "initial_delay": 0.5, "max_delay": 30.0, "backoff_factor": 3.0},
    {"jitter": False, "honor_retry_after": False},
    {"min_delay": 2.0},
    {"min_delay": 2.0, "initial_delay": 3.0},
    {"min_delay": 2.0, "initial_delay": 1.0},
    {"backoff_multiplier": 4.0},
    {"backoff_multiplier": 4.0, "backoff_factor": 3.0},
    {"jitter": 0.5},
    {"jitter": 0},
    {"jitter": 1},
    {"jitter": "yes"},
    {"jitter": None},
    {"initial_delay": 2},
    {"max_retries": 0},
    {"max_retries": -1},
    {"max_retries": 2**32},
    {"max_retries": 2.5},
    {"max_retries": True},
    {"honor_retry_after": 1},
    {"initial_delay": "1"},
]

DELAYS: list[list[Any]] = [
    [0],
    [1],
    [2],
    [10],
    [100],
    [2000],
    [0, 5.0],
    [3, 0.5],
    [0, None, 10.0],
    [0, 5.0, 2.0],
    [2, 5.0, 10.0],
    [1, None, 3.0],
    [1, None, math.nan],
    [1, None, 0.0],
    [1, None, -2.0],
    [1, None, math.inf],
    [0, -3.0],
    [0, math.nan],
    [0, math.inf],
    [-1],
    [2**32],
    [1.5],
    [0, "5"],
]

MESSAGES = [
    "rate limit exceeded",
    "Too Many Requests (429)",
    "rate_limit_exceeded",
    "request timed out",
    "Connection timeout",
    "invalid api key",
    "Authentication failed",
    "Unauthorized (401)",
    "context length exceeded",
    "too many tokens",
    "maximum context reached",
    "token limit",
    "Message too long",
    "content filter triggered",
    "blocked by safety system",
    "model not found",
    "error 404",
    "server overloaded",
    "503 service unavailable",
    "502 bad gateway",
    "something weird",
    "",
    "RATE LIMIT and a timeout",
    "timeout: 401 unauthorized",
    "not found: service unavailable",
]

PROVIDER_ERRORS: list[dict[str, Any]] = [
    {"message": "error"},
    {
        "message": "m",
        "provider": "anthropic",
        "model": "claude",
        "retry_after": 1.5,
        "delay_multiplier": 2.0,
        "retryable": True,
        "error_type": "RateLimit",
    },
    {"message": "error", "delay_multiplier": 5.0},
    {"message": 'quote " back \\ tab \t newline \n', "retry_after": 2},
    {"message": "big", "retry_after": 1e20, "delay_multiplier": 1e-5},
    {"message": "odd", "retry_after": -0.0, "delay_multiplier": 0.1},
    {"message": "x", "retryable": False, "error_type": "Whatever"},
    {"message": 7},
    {"message": "x", "provider": 7},
    {"message": "x", "retry_after": "soon"},
    {"message": "x", "retryable": 1},
]


def _provider_error(arguments: dict[str, Any]) -> dict[str, Any]:
    made = _call(lambda: engine.ProviderError(**arguments))
    error = made.pop("value", None)
    if error is None:
        return made
    return {
        "repr": repr(error),
        "str": str(error),
        "fields": [
            error.message,
            error.provider,
            error.model,
            error.retry_after,
            error.delay_multiplier,
            error.retryable,
            error.error_type,
        ],
        "is_exception": isinstance(error, BaseException),
        "read_only": _call(setattr, error, "message", "changed"),
    }


def _jitter_in_bounds() -> list[bool]:
    """Whether 2,000 jittered delays each stay in [0.5, 1.5) times the unjittered one."""
    answers = []
    for args, base in (((0,), 1.0), ((0, 5.0), 5.0), ((3, None, 2.0), 16.0)):
        config = engine.RetryConfig()
        delays = [engine.compute_delay(config, *args) for _ in range(2000)]
        answers.append(all(0.5 * base <= d < 1.5 * base for d in delays) and len(set(delays)) > 1)
    return answers


def _retry_delays() -> list[Any]:
    """The delays ``retry_with_backoff`` reports for errors with retry_after and multiplier."""
    errors: list[LLMError] = [
        RateLimitError("slow down", retry_after=0.004),
        ProviderUnavailableError("overloaded", delay_multiplier=3.0),
        RateLimitError("slow down", retry_after=0.004, delay_multiplier=2.0),
    ]
    seen: list[Any] = []

    async def operation() -> str:
        if errors:
            raise errors.pop(0)
        return "done"

    async def on_retry(attempt: int, delay: float, error: LLMError) -> None:
        seen.append([attempt, round(delay, 12), type(error).__name__])

    config = engine.RetryConfig(initial_delay=0.001, max_delay=0.002, jitter=False)
    result = asyncio.run(retry_with_backoff(operation, config, on_retry=on_retry))
    return [result, seen]


def probe() -> dict[str, Any]:
    config = engine.RetryConfig(jitter=False)
    capped = engine.RetryConfig(jitter=False, max_delay=10.0)
    ignoring = engine.RetryConfig(jitter=False, honor_retry_after=False)
    constants = {
        name: getattr(engine, name)
        for name in dir(engine)
        if name.isupper() and isinstance(getattr(engine, name), str)
    }
    return {
        "constants": constants,
        "all_events_list": type(engine.ALL_EVENTS).__name__,
        "all_events": list(engine.ALL_EVENTS),
        "capabilities": engine.ALL_WELL_KNOWN_CAPABILITIES,
        "configs": [
            {**_call(lambda kw=kw: _config(engine.RetryConfig(**kw))), "given": repr(kw)}
            for kw in CONFIGS
        ],
        "old_names_read": [
            _call(lambda: engine.RetryConfig(initial_delay=3.0).min_delay),
            _call(lambda: engine.RetryConfig(backoff_factor=5.0).backoff_multiplier),
        ],
        "delays": [_call(engine.compute_delay, config, *args) for args in DELAYS],
        "capped": [
            _call(engine.compute_delay, capped, 5),
            _call(engine.compute_delay, capped, 5, None, 10.0),
            _call(engine.compute_delay, capped, 5, 50.0),
        ],
        "ignoring_retry_after": _call(engine.compute_delay, ignoring, 0, 5.0),
        "keywords": _call(lambda: engine.compute_delay(config=config, attempt=1, retry_after=3.0)),
        "not_a_config": _call(engine.compute_delay, object(), 0),
        "jitter_in_bounds": _jitter_in_bounds(),
        "categories": {m: engine.classify_error_message(m) for m in MESSAGES},
        "category_of_none": _call(engine.classify_error_message, None),
        "provider_errors": [_provider_error(arguments) for arguments in PROVIDER_ERRORS],
        "retry_delays": _retry_delays(),
    }


if __name__ == "__main__":
    print(json.dumps(probe(), sort_keys=True))
