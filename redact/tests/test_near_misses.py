"""Near misses by family: typed-out keys, masks, cut values, slots, wrong lengths, bad JWTs.

Each family is written with spellings of its own (not the public corpora's), and beside each
near miss stands the real thing it must not be confused with.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.checks import FILLED_MIN, is_patterned

REDACTOR = build_redactor(RedactionConfig())
RNG = random.Random("near-misses")
ALNUM = string.ascii_letters + string.digits


def _random(count: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(count))


def _redacted(text: str) -> bool:
    return bool(REDACTOR.redact_text(text)[1])


@pytest.mark.parametrize(
    "value",
    [
        "sk-ant-api03-" + "qrstuvwxyz0-" + _random(80),  # an alphabet walk inside
        "AIzaSy" + "DEFGHIJKLM" + _random(23),
        "ghp_" + "x" * 36,
        "glc_" + "X" * 20 + "-" + "X" * 20,
        "pplx-" + "x" * 48,
        "sha256~" + "XXXX_FILL_IN_XXXXXXXXXXXXXXXX_TOKENXXXXXXXX",
        "ops_eyJ" + "x" * 300,
    ],
)
def test_keys_typed_out_are_not_redacted(value: str) -> None:
    assert is_patterned(value)
    assert not _redacted(f"key: {value}"), value
    assert not _redacted(value), value


@pytest.mark.parametrize(
    "value",
    [
        "ghp_" + _random(36),
        "AIzaSy" + _random(33),
        "sk-ant-api03-" + _random(93) + "AA",
        "pplx-" + _random(48),
        "glc_" + _random(40),
        "12345678-ABCD-ABCD-ABCD-1234567890AB",  # a sample id in a token's place
        "AGE-SECRET-KEY-1" + "Q" * 58,  # filled, but not with the placeholder letter
    ],
)
def test_generated_keys_and_sample_ids_stay_redacted(value: str) -> None:
    assert not is_patterned(value)
    assert _redacted(f"token: {value}"), value


@pytest.mark.parametrize(
    "value",
    [
        "AKIA" + "Q" * 16,  # 20 characters: short fills stay secrets
        "SK" + "x" * 32,
        "AP6" + "x" * 10,
        "npm_" + "x" * 11,
    ],
)
def test_short_filled_values_stay_secrets(value: str) -> None:
    assert len(value) < FILLED_MIN
    assert _redacted(f"secret={value}" if value.startswith("npm_") else value), value


def test_an_alphabet_walk_needs_eight_letters_of_one_case() -> None:
    key = _random(30)
    assert is_patterned(key[:15] + "mnopqrst" + key[15:])
    assert not is_patterned(key[:15] + "mnopqrSt" + key[15:])
    assert not is_patterned("0123456789" * 4)  # digits: sample ids, not a walk
    assert not is_patterned("AKIA" + "ABCDEFGHIJKLMNOP")  # short: an AWS key id stays one


@pytest.mark.parametrize(
    ("prefix", "length"),
    [("glimt-", 25), ("glptt-", 40), ("gloas-", 64), ("gldt-", 20), ("glsoat-", 50)],
)
def test_gitlab_tokens_have_their_documented_length(prefix: str, length: int) -> None:
    body = _random(length, ALNUM + "_-")
    assert _redacted(f"x {prefix}{body} y")
    shortest = 20 if prefix in ("gldt-", "glsoat-") else length
    assert not _redacted(f"x {prefix}{body[: shortest - 3]} y")  # too short
    assert not _redacted(f"x {prefix}{body}{_random(60)}_ y")  # a longer word


def test_a_routable_gitlab_token_keeps_its_length_and_suffix() -> None:
    token = "glrt-t1_" + _random(27, ALNUM + "_-") + ".01" + _random(7, "abc0123456789")
    assert _redacted(f"runner: {token}")


def _segment(payload: dict[str, object]) -> str:
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_a_jwt_header_must_be_a_json_object() -> None:
    header = _segment({"typ": "JWT", "alg": "RS256"})
    payload = _segment({"sub": "u-8812", "scope": "repo"})
    signature = _random(43, ALNUM + "_-")
    assert _redacted(f"jwt {header}.{payload}.{signature}")
    broken = header[:-4]  # cut: no longer a whole JSON object
    assert not _redacted(f"jwt {broken}.{payload}.{signature}")


def test_a_private_key_block_needs_key_material() -> None:
    label = "EC PRIVATE KEY-----"
    assert not _redacted(f"-----BEGIN {label}\nplaceholder\n-----END {label}")
    assert not _redacted("-----BEGIN RSA PRIVATE KEY----------END RSA PRIVATE KEY-----")
    body = base64.b64encode(RNG.randbytes(96)).decode()
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    assert _redacted(key)
    assert _redacted(key[:60])  # truncated, with some of its material


@pytest.mark.parametrize(
    "text",
    [
        "mysql --user root:[DB_PASSWORD] --host db",
        "export API_SECRET=Qm9vbGVhbkFsZ2VicmFPZlRo..",
        "api_token: tk_9fQ2mX7pLa..[Redacted]",
        "SECRET_KEY=ab8Fq2Lm9XwP...",
        '"auth": "xoxb-88231094-77123109-####################"',
        "tool --token=sha256~_xxxxxxxxxxxxxxxxxxxx_xxxxxxxxxxxxxxxxx-X",
    ],
)
def test_slots_cut_values_and_masks_are_not_redacted(text: str) -> None:
    assert not _redacted(text), text


@pytest.mark.parametrize(
    "text",
    [
        "mysql --user root:Wq9-7fLp2xZ --host db",
        "export API_SECRET=Qm9vbGVhbkFsZ2VicmFPZlRo",
        '"auth": "xoxb-88231094-77123109-' + _random(24) + '"',
    ],
)
def test_the_real_values_beside_them_are_redacted(text: str) -> None:
    assert _redacted(text), text
