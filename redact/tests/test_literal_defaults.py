"""A credential written as a literal default after its name (``||``, ``??``), drawn at random.

Found: a random generated value after ``process.env.<NAME> ||`` or ``<name> ??`` under a
credential name, on the same line or the next. Left alone: a default that is a setting or
code (``credentials ?? 'same-origin'``, ``token || defaultToken``, ``password || ''``).
"""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor

REDACTOR = build_redactor(RedactionConfig())
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)
BASE62 = string.ascii_letters + string.digits

_names = st.sampled_from(
    ["process.env.API_KEY", "env.STRIPE_TOKEN", "config.dbPassword", "SECRET_KEY", "authToken"]
)
_operators = st.sampled_from(["||", "??"])
_quotes = st.sampled_from(['"', "'", "`"])
_breaks = st.sampled_from([" ", "\n  ", "\n\t\t"])


@st.composite
def _values(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    body = "".join(rng.choice(BASE62) for _ in range(rng.randint(12, 48)))
    return body + rng.choice(string.digits)


@SETTINGS
@given(_names, _operators, _quotes, _breaks, _values())
def test_a_generated_default_is_found(
    name: str, operator: str, quote: str, gap: str, value: str
) -> None:
    text = f"const key = {name} {operator}{gap}{quote}{value}{quote};"
    redacted, _ = REDACTOR.redact_text(text)
    assert value not in redacted, (text, redacted)


_settings_values = st.sampled_from(
    ["same-origin", "include", "omit", "", "default", "none", "bearer", "changeme", "localhost"]
)


@SETTINGS
@given(_names, _operators, _quotes, _breaks, _settings_values)
def test_a_setting_as_a_default_stays(
    name: str, operator: str, quote: str, gap: str, value: str
) -> None:
    text = f"const mode = {name} {operator}{gap}{quote}{value}{quote};"
    assert REDACTOR.redact_text(text)[0] == text


@SETTINGS
@given(_names, _operators, st.sampled_from(["defaultToken", "fallback.key", "getSecret()"]))
def test_code_as_a_default_stays(name: str, operator: str, code: str) -> None:
    text = f"const token = {name} {operator} {code};"
    assert REDACTOR.redact_text(text)[0] == text
