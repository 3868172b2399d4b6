"""``amplifier_core._engine``: amplifier-core 2.0.2's engine names, each working as 2.0.2's.

The expected values below were measured on amplifier-core 2.0.2. With
``AMPLIFIER_CORE_202_PYTHON`` set to a 2.0.2 interpreter, ``engine_probe.py`` also runs on both
kernels and their answers are compared whole.
"""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import amplifier_core
from amplifier_core import _engine, capabilities, events
from amplifier_core.llm_errors import LLMError, RateLimitError
from amplifier_core.utils import retry

PROBE = Path(__file__).with_name("engine_probe.py")
UPSTREAM_PYTHON = os.environ.get("AMPLIFIER_CORE_202_PYTHON", "")


def _upper_names(module: Any) -> list[str]:
    return [name for name in module.__all__ if name.isupper()]


def test_every_event_and_capability_name_is_the_kernels_own_object() -> None:
    for module in (events, capabilities):
        for name in _upper_names(module):
            assert getattr(_engine, name) is getattr(module, name), name
            assert name in _engine.__all__, name
    assert _engine.ALL_EVENTS is events.ALL_EVENTS
    assert _engine.ALL_WELL_KNOWN_CAPABILITIES is capabilities.ALL_WELL_KNOWN_CAPABILITIES


def test_no_rust_engine_is_claimed() -> None:
    assert _engine.RUST_AVAILABLE is False
    assert amplifier_core.RUST_AVAILABLE is False
    assert _engine.__version__ == amplifier_core.__version__


def test_the_engine_classes_are_the_public_classes() -> None:
    assert _engine.RustSession is amplifier_core.AmplifierSession
    assert _engine.RustCoordinator is amplifier_core.ModuleCoordinator
    assert _engine.RustHookRegistry is amplifier_core.HookRegistry
    assert _engine.RustCancellationToken is amplifier_core.CancellationToken
    assert _engine.RetryConfig is retry.RetryConfig
    assert _engine.compute_delay is retry.compute_delay


@pytest.mark.parametrize("name", ["WasmTool", "load_wasm_from_path", "resolve_module"])
def test_an_engine_transport_is_absent_and_says_why(name: str) -> None:
    assert not hasattr(_engine, name)
    with pytest.raises(AttributeError, match=rf"no '{name}': .*RUST_AVAILABLE is False"):
        getattr(_engine, name)


def test_a_guarded_import_of_an_absent_name_takes_its_fallback() -> None:
    # amplifier-foundation's gRPC adapter imports the protobuf bridge this way.
    with pytest.raises(ImportError, match="proto_chat_request_to_json"):
        from amplifier_core._engine import proto_chat_request_to_json  # noqa: F401


def test_the_engine_module_loads_lazily_and_loads_no_session() -> None:
    probe = (
        "import sys, amplifier_core\n"
        "before = 'amplifier_core._engine' in sys.modules\n"
        "from amplifier_core._engine import ProviderError, RetryConfig, SESSION_START\n"
        "print([before, sorted(m for m in sys.modules if m.startswith('amplifier_core'))])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    before, loaded = ast.literal_eval(out.stdout.strip())
    assert before is False
    assert "amplifier_core._engine" in loaded
    for heavy in ("session", "coordinator", "loader", "audit"):
        assert f"amplifier_core.{heavy}" not in loaded


def test_attribute_access_imports_the_engine_module() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import amplifier_core; print(amplifier_core._engine.TOOL_PRE)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "tool:pre"


# --- ProviderError ----------------------------------------------------------------------------


def test_provider_error_fields_and_defaults() -> None:
    error = _engine.ProviderError("boom")
    assert (error.message, error.provider, error.model) == ("boom", None, None)
    assert (error.retry_after, error.delay_multiplier) == (None, None)
    assert (error.retryable, error.error_type) == (False, "Other")
    full = _engine.ProviderError(
        "slow down",
        provider="anthropic",
        model="claude",
        retry_after=2,
        delay_multiplier=10.0,
        retryable=True,
        error_type="RateLimit",
    )
    assert full.retry_after == 2.0
    assert isinstance(full.retry_after, float)
    assert (full.provider, full.model, full.error_type) == ("anthropic", "claude", "RateLimit")
    assert str(full) == "slow down"
    with pytest.raises(AttributeError):
        full.message = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ({"message": "error"}, 'ProviderError("error")'),
        (
            {
                "message": "m",
                "provider": "a",
                "model": "b",
                "retry_after": 1.5,
                "delay_multiplier": 2.0,
                "retryable": True,
            },
            'ProviderError("m", provider="a", model="b", retry_after=1.5, delay_multiplier=2, '
            "retryable=True)",
        ),
        (
            {"message": 'say "hi"\n', "retry_after": 1e20, "delay_multiplier": 1e-5},
            'ProviderError("say \\"hi\\"\\n", retry_after=100000000000000000000, '
            "delay_multiplier=0.00001)",
        ),
    ],
)
def test_provider_error_repr_is_the_engines(arguments: dict[str, Any], shown: str) -> None:
    assert repr(_engine.ProviderError(**arguments)) == shown


@pytest.mark.parametrize(
    "arguments",
    [{"message": 7}, {"message": "x", "model": 7}, {"message": "x", "retry_after": "soon"}],
)
def test_provider_error_checks_types(arguments: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="ProviderError: "):
        _engine.ProviderError(**arguments)
    with pytest.raises(TypeError, match="retryable must be a bool"):
        _engine.ProviderError("x", retryable=1)  # type: ignore[arg-type]


def test_provider_error_is_a_record_not_an_exception() -> None:
    assert not issubclass(_engine.ProviderError, BaseException)


# --- classify_error_message -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("Too Many Requests (429)", "rate_limit"),
        ("rate_limit_exceeded", "rate_limit"),
        ("Connection timeout", "timeout"),
        ("Unauthorized (401)", "authentication"),
        ("Message too long", "context_length"),
        ("token limit", "context_length"),
        ("blocked by safety system", "content_filter"),
        ("error 404", "not_found"),
        ("502 bad gateway", "provider_unavailable"),
        ("something weird", "unknown"),
        ("", "unknown"),
        # first rule wins: context length, rate limit, timeout, authentication, content
        # filter, not found, unavailable
        ("RATE LIMIT and a timeout", "rate_limit"),
        ("timeout: 401 unauthorized", "timeout"),
        ("not found: service unavailable", "not_found"),
    ],
)
def test_classify_error_message_names_the_engines_category(message: str, category: str) -> None:
    assert _engine.classify_error_message(message) == category


# --- RetryConfig and compute_delay: 2.0.2's rules ---------------------------------------------


def test_an_old_name_applies_only_while_the_new_one_is_at_its_default() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explicit = retry.RetryConfig(min_delay=2.0, initial_delay=3.0, backoff_multiplier=4.0)
    assert (explicit.initial_delay, explicit.backoff_factor) == (3.0, 4.0)
    assert [str(w.message) for w in caught] == [
        "backoff_multiplier is deprecated, use backoff_factor"
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert retry.RetryConfig(initial_delay=3.0).min_delay == 3.0
    assert [w.category for w in caught] == [DeprecationWarning]


def test_config_types_are_checked_as_2_0_2_checks_them() -> None:
    with pytest.raises(TypeError, match="max_retries must be an integer"):
        retry.RetryConfig(max_retries=2.5)  # type: ignore[arg-type]
    with pytest.raises(OverflowError, match="max_retries"):
        retry.RetryConfig(max_retries=2**32)
    with pytest.raises(TypeError, match="honor_retry_after must be a bool"):
        retry.RetryConfig(honor_retry_after=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="initial_delay must be a real number"):
        retry.RetryConfig(initial_delay="1")  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match="unexpected type"):
        assert retry.RetryConfig(jitter="yes").jitter == 0.2  # type: ignore[arg-type]


def test_the_multiplier_comes_before_retry_afters_floor() -> None:
    config = retry.RetryConfig(jitter=False)
    assert retry.compute_delay(config, 0, retry_after=5.0, delay_multiplier=2.0) == 5.0
    assert retry.compute_delay(config, 2, retry_after=5.0, delay_multiplier=10.0) == 40.0
    capped = retry.RetryConfig(jitter=False, max_delay=10.0)
    assert retry.compute_delay(capped, 5, delay_multiplier=10.0) == 100.0
    assert retry.compute_delay(config, 0, retry_after=math.nan) == 1.0
    assert retry.compute_delay(config, 0, retry_after=-3.0) == 1.0


def test_attempt_is_an_unsigned_count() -> None:
    config = retry.RetryConfig(jitter=False)
    with pytest.raises(OverflowError, match="attempt"):
        retry.compute_delay(config, -1)
    with pytest.raises(TypeError, match="attempt must be an integer"):
        retry.compute_delay(config, 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="config must be a RetryConfig"):
        retry.compute_delay(object(), 0)  # type: ignore[arg-type]
    assert retry.compute_delay(config, 2**32 - 1) == 60.0


def test_jitter_stays_in_half_to_one_and_a_half_of_the_floored_delay() -> None:
    config = retry.RetryConfig()
    delays = [retry.compute_delay(config, 0, retry_after=5.0) for _ in range(2000)]
    assert all(2.5 <= d < 7.5 for d in delays)
    assert len(set(delays)) > 1


async def test_retry_with_backoff_waits_what_2_0_2_waits() -> None:
    errors: list[LLMError] = [RateLimitError("slow", retry_after=0.004, delay_multiplier=2.0)]
    seen: list[float] = []

    async def operation() -> str:
        if errors:
            raise errors.pop(0)
        return "done"

    async def on_retry(attempt: int, delay: float, error: LLMError) -> None:
        seen.append(delay)

    config = retry.RetryConfig(initial_delay=0.001, max_delay=0.002, jitter=False)
    assert await retry.retry_with_backoff(operation, config, on_retry=on_retry) == "done"
    assert seen == [0.004]  # max(0.001 * 2.0, 0.004); 2.0.2 never waits 0.008 here


# --- the whole surface, side by side with 2.0.2 -----------------------------------------------


def _probe(python: str) -> dict[str, Any]:
    out = subprocess.run(
        [python, str(PROBE)], capture_output=True, text=True, check=True, timeout=120
    )
    answer: dict[str, Any] = json.loads(out.stdout)
    return answer


@pytest.mark.skipif(
    not UPSTREAM_PYTHON, reason="set AMPLIFIER_CORE_202_PYTHON to compare with 2.0.2"
)
def test_every_answer_is_2_0_2s() -> None:
    theirs, ours = _probe(UPSTREAM_PYTHON), _probe(sys.executable)
    # Our events are 2.0.2's 43, in its order, and five more of this kernel's.
    assert ours.pop("all_events")[: len(theirs["all_events"])] == theirs.pop("all_events")
    our_constants, their_constants = ours.pop("constants"), theirs.pop("constants")
    assert {n: our_constants.get(n) for n in their_constants} == their_constants
    assert set(our_constants) - set(their_constants) <= set(_upper_names(events))
    assert ours == theirs
