"""Each leak written as it happened: the exact text in, the secret absent from what comes out."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from amplifier_module_hooks_redaction import RedactionConfig, build_redactor

GH = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"
TOKENS = {
    "github": GH,
    "github_pat": "github_pat_11ABCDEFG0" + "aB3dE5fG7hJ9kL1mN3pQ5r" * 3,
    "aws": "AKIA" + "Z7XQ4M2P9R5T8V3W",
    "aws_session": "ASIA" + "Q2W3E4R5T6Y7U8I9",
    "anthropic": "sk-ant-api03-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z" * 2,
    "openai": "sk-proj-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z",
    "google": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "slack": "xoxb-" + "1234567890123-1234567890123-aB3dE5fG7hJ9kL1mN3pQ5rS7",
    "stripe": "sk_live_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7",
    "gitlab": "glpat-" + "aB3dE5fG7hJ9kL1mN3pQ",
    "huggingface": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH",
}
BEFORE = {
    "letters": "tok",
    "digit": "id7",
    "escaped newline": "line\\n",
    "escaped tab": "col\\t",
    "percent =": "key%3D",
    "percent space": "Bearer%20",
    "ansi colour": "\x1b[01;31m\x1b[K",
}


def redact(data: Any) -> Any:
    return build_redactor(RedactionConfig(rules=("all",))).redact(data)[0]


@pytest.mark.parametrize("vendor", list(TOKENS))
@pytest.mark.parametrize("before", list(BEFORE))
def test_a_token_is_found_whatever_precedes_it(vendor: str, before: str) -> None:
    token = TOKENS[vendor]
    text = f"grep output: {BEFORE[before]}{token}\x1b[m\x1b[K rest"
    assert token not in redact({"output": text})["output"]


@pytest.mark.parametrize(
    "text",
    [
        '{\\"config\\": \\"a=1\\\\npassword=Hunter2Secret\\"}',
        "PASSWORD%3DHunter2Secret%26user%3Dbob",
        "export\\tpwd=Hunter2Secret",
    ],
)
def test_an_assignment_is_found_after_escaped_separators(text: str) -> None:
    assert "Hunter2Secret" not in redact(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('db_password = "Hunter2Secret', "Hunter2Secret"),
        (
            "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLE",
            "wJalrXUtnFEMI",
        ),
        ("mysql -u root -p Hunter2Secret shop", "Hunter2Secret"),
        ("mysql -u root -pHunter2Secret shop", "Hunter2Secret"),
        ("deploy --password Hunter2Secret", "Hunter2Secret"),
        ("deploy --password=Hunter2Secret", "Hunter2Secret"),
        ("cli --token aB3dE5fG7hJ9kL1m", "aB3dE5fG7hJ9kL1m"),
        ("cli --api-key aB3dE5fG7hJ9kL1m", "aB3dE5fG7hJ9kL1m"),
        ("curl -u admin:Hunter2Secret https://x.example", "Hunter2Secret"),
        ('{"pass": "Hunter2Secret"}', "Hunter2Secret"),
        ("pwd: Hunter2Secret", "Hunter2Secret"),
        ("PW=Hunter2Secret", "Hunter2Secret"),
        ('[db]\npass = "Hunter2Secret"', "Hunter2Secret"),
        ('<login user="bob" pass="Hunter2Secret"/>', "Hunter2Secret"),
        ("creds: bob:Hunter2Secret", "Hunter2Secret"),
        ("cfg " + base64.b64encode(b"password=Hunter2Secret").decode(), "Hunter2Secret"),
        ("b64url " + base64.urlsafe_b64encode(GH.encode()).decode(), GH),
        ("hex " + f"token={GH}".encode().hex(), GH),
        ("pct " + "".join(f"%{b:02X}" for b in GH.encode()), GH),
        (f'key = "{GH[:14]}" + "{GH[14:]}"', GH[14:]),
        (f"key = '{GH[:20]}' '{GH[20:]}'", GH[20:]),
        (f"token: {GH[:25]}\n{GH[25:]}", GH[25:]),
        ("hf = 'hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH'", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"),
        ("PPLX=pplx-" + "aB3dE5fG7hJ9kL1m" * 3, "aB3dE5fG7hJ9kL1m"),
    ],
)
def test_the_missing_families(text: str, secret: str) -> None:
    out = redact({"text": text})["text"]
    assert secret not in out, out


def test_a_token_as_a_dict_key_is_redacted() -> None:
    data = {"owners": {GH: {"role": "admin"}}}
    assert GH not in repr(redact(data))


def test_a_token_inside_bytes_is_redacted_and_stays_bytes() -> None:
    data = {"stdout": b"\xff\xfe header " + GH.encode() + b" \x80 tail"}
    out = redact(data)["stdout"]
    assert isinstance(out, bytes)
    assert GH.encode() not in out
    assert out.startswith(b"\xff\xfe header ")
    assert out.endswith(b" \x80 tail")


def test_a_lone_surrogate_neither_raises_nor_lets_a_token_through() -> None:
    data = {"result": '{"emoji": "\ud83d", "token": "' + GH + '"}'}
    out = redact(data)["result"]
    assert GH not in out
    assert "\ud83d" in out  # the rest of the text is kept as it was


def test_what_cannot_be_scanned_is_replaced_by_a_marker() -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))

    class Broken(str):
        def isascii(self) -> bool:
            raise RuntimeError("cannot read")

    out, counts = redactor.redact({"text": Broken("password=" + GH)})
    assert out["text"] == "[REDACTED:unscannable:RuntimeError]"
    assert counts == {"unscannable": 1}


@pytest.mark.parametrize(
    "text",
    [
        "risk-assessment-2024-q3-report-v2",
        "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "id 123e4567-e89b-12d3-a456-426614174000 at 2026-11-27T12:00:00Z",
        "if ok: pass",
        "auth: required",
        "kubectl get secret --secret my-secret-name",
        "mysql -u root -p mydb",
        "fields = ('username', 'password', 'email')",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == text


def test_two_token_keys_keep_both_values() -> None:
    other = "ghp_" + "Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8oPq"
    out = redact({"owners": {GH: 1, other: 2}})["owners"]
    assert GH not in repr(out)
    assert other not in repr(out)
    assert sorted(out.values()) == [1, 2]


def test_a_bytearray_stays_a_bytearray() -> None:
    out = redact({"raw": bytearray(b"token " + GH.encode())})["raw"]
    assert isinstance(out, bytearray)
    assert GH.encode() not in out
