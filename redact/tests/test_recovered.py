"""Encoded blobs and split tokens: what is decoded or joined, and what is not."""

from __future__ import annotations

import base64
import hashlib
import random
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.encoded import MAX_RUN, MIN_RUN

GH = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"


REDACTOR = build_redactor(RedactionConfig())


def redact(text: str) -> str:
    return REDACTOR.redact_text(text)[0]


@pytest.mark.parametrize(
    "encode",
    [
        lambda raw: base64.b64encode(raw).decode(),
        lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("="),
        lambda raw: raw.hex(),
        lambda raw: raw.hex().upper(),
        lambda raw: "".join(f"%{b:02x}" for b in raw),
    ],
    ids=["base64", "base64url", "hex", "HEX", "percent"],
)
@pytest.mark.parametrize(
    "inner",
    [f"token={GH}", "password=Hunter2Secret9 user=bob", f"export AWS=AKIA{'Z7XQ4M2P9R5T8V3W'}"],
)
def test_a_blob_whose_decoded_text_holds_a_secret_is_replaced_whole(encode, inner: str) -> None:
    blob = encode(inner.encode())
    out = redact(f"config: {blob} end")
    assert blob not in out
    assert out == "config: [REDACTED:encoded_secret] end"


def test_a_blob_inside_a_blob_is_decoded_once() -> None:
    inner = base64.b64encode(f"password=Hunter2Secret9 {GH}".encode())
    twice = base64.b64encode(inner).decode()
    assert redact(twice) == twice  # the outer decoding is base64 text, not a secret


def test_runs_outside_the_bounds_are_not_decoded() -> None:
    short = base64.b64encode(b"pw=a1").decode()
    assert len(short) < MIN_RUN
    assert redact(f"x {short} y") == f"x {short} y"
    padding = base64.b64encode(random.Random(1).randbytes(MAX_RUN)).decode()
    huge = padding + base64.b64encode(b" password=Hunter2Secret9").decode()
    assert len(huge) > MAX_RUN
    assert "REDACTED" not in redact(huge[:MAX_RUN])


@pytest.mark.parametrize(
    "text",
    [
        "data:image/png;base64," + base64.b64encode(random.Random(2).randbytes(600)).decode(),
        hashlib.sha256(b"password").hexdigest(),
        hashlib.sha1(b"token").hexdigest() + " HEAD",
        base64.b64encode(b"the password policy requires twelve characters").decode(),
        urllib.parse.quote("search for password reset help"),
    ],
)
def test_ordinary_encoded_text_is_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        f'T = "{GH[:10]}" + "{GH[10:]}"',
        f"T = '{GH[:10]}' '{GH[10:]}'",
        f'T = "{GH[:10]}" .. "{GH[10:]}"',
        f'T = ("{GH[:10]}"\n     "{GH[10:]}")',
        f'{{"cmd": "T = \\"{GH[:10]}\\" + \\"{GH[10:]}\\""}}',
        f"token: {GH[:20]}\n{GH[20:]}",
    ],
)
def test_a_split_token_is_joined(text: str) -> None:
    out = redact(text)
    assert GH[10:] not in out, out
    assert GH[20:] not in out, out


def test_a_whole_token_on_its_line_is_not_joined_with_the_next() -> None:
    assert redact(f"{GH}\nnext line") == "[REDACTED:github_token]\nnext line"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, categories=None), max_size=200))
def test_redaction_never_raises_on_any_text(text: str) -> None:
    out, _ = REDACTOR.redact({"text": text, text: text.encode("utf-8", "surrogatepass")})
    assert isinstance(out, dict)


def test_a_long_run_full_of_triggers_is_decoded_window_by_window() -> None:
    noise = base64.b64encode(b"password token secret " * 8000).decode()
    assert redact(noise) == noise  # no value is given: nothing to redact
    secrets_everywhere = base64.b64encode(b"password=Hunter2Secret9 " * 20000).decode()
    out = redact(secrets_everywhere)
    left = out.replace("[REDACTED:encoded_secret]", "")
    assert len(left) < 16, left[:80]  # every window of the run is replaced


def test_a_line_that_starts_a_token_is_not_a_continuation() -> None:
    text = "ghp_abc\n" + GH + "\n"
    assert redact(text) == "ghp_abc\n[REDACTED:github_token]\n"
