"""Secrets found by what they look like and by how they are wrapped, not by a list.

Tokens of made-up vendors (a short prefix and a random body) are found by their shape;
known tokens survive being glued into templates, encoded, compressed and encoded again.
Each test draws its cases with hypothesis; none is an example someone wrote down.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
import string
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.rules import _known_heads

REDACTOR = build_redactor(RedactionConfig())
BASE62 = string.ascii_letters + string.digits
KNOWN = {"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "sk-", "xox", "glpat-", "hf_", "npm_", "pk-"}


def _found(text: str, secret: str) -> bool:
    redacted, counts = REDACTOR.redact_text(text)
    return bool(counts) and secret not in redacted and secret[-12:] not in redacted


@st.composite
def random_body(draw: st.DrawFn, least: int = 32, most: int = 64) -> str:
    """Letters and digits as a key generator draws them: at random (a seeded generator, so
    that shrinking never turns a key into a run of zeros), one of each kind at least."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    size = draw(st.integers(least, most))
    body = [rng.choice(BASE62) for _ in range(size - 3)]
    body += [rng.choice(string.ascii_uppercase), rng.choice(string.ascii_lowercase)]
    body.append(rng.choice(string.digits))
    rng.shuffle(body)
    return "".join(body)


@st.composite
def vendor_token(draw: st.DrawFn) -> str:
    word = draw(st.text(st.sampled_from(string.ascii_lowercase), min_size=2, max_size=7))
    second = draw(
        st.one_of(st.just(""), st.text(st.sampled_from("abcdefxyz0123"), min_size=2, max_size=4))
    )
    separator = draw(st.sampled_from("_-"))
    head = word + (separator + second if second else "") + separator
    body = draw(random_body())
    return head + body


GITHUB = st.builds(lambda body: "ghp_" + body[:36], random_body(36, 36))


@settings(max_examples=150, deadline=None)
@given(
    token=vendor_token(), where=st.sampled_from(["{}", "key: {}", "export X={}", '"{}"', "[{}]"])
)
def test_a_token_of_a_vendor_nobody_listed_is_found_by_its_shape(token: str, where: str) -> None:
    if token.startswith((*KNOWN, *_known_heads())) or token.split("_")[0].split("-")[0] in {
        "msg",
        "toolu",
        "chatcmpl",
        "req",
        "cus",
        "sess",
        "run",
        "step",
        "file",
        "asst",
        "thread",
        "call",
        "evt",
        "ch",
        "pi",
        "sub",
        "in",
        "prod",
        "price",
        "acct",
        "resp",
        "batch",
        "job",
        "cmpl",
        "item",
        "id",
        "uuid",
        "sha",
        "md",
    }:
        return  # a vendor rule (any prefix a vendor rule starts with), or an id prefix, decides
    text = where.format(token)
    redacted, _ = REDACTOR.redact_text(text)
    assert token[-16:] not in redacted, (text, redacted)


@settings(max_examples=100, deadline=None)
@given(body=random_body(24, 24), head=st.sampled_from(["msg_", "toolu_", "req_", "call_"]))
def test_ids_of_messages_tool_calls_and_requests_are_kept(body: str, head: str) -> None:
    text = f"the id is {head}01{body}"
    assert REDACTOR.redact_text(text)[0] == text


@settings(max_examples=100, deadline=None)
@given(
    token=GITHUB,
    cut=st.integers(1, 30),
    quote=st.sampled_from(['"', "'"]),
    style=st.sampled_from(["${{{q}{a}{q}}}", "{{{{ {q}{a}{q} }}}}", "#{{{q}{a}{q}}}"]),
)
def test_a_token_split_by_an_interpolated_literal_is_found(
    token: str, cut: int, quote: str, style: str
) -> None:
    head, rest = token[:cut], token[cut:]
    text = 'token = "' + style.format(q=quote, a=head) + rest + '"'
    redacted, counts = REDACTOR.redact_text(text)
    assert counts, text
    assert rest[-12:] not in redacted, (text, redacted)


def _wrapped(token: str, how: str) -> str:
    data = json.dumps({"name": "release", "config": {"env": {"GITHUB_TOKEN": token}}}).encode()
    if how == "base64":
        return base64.b64encode(data).decode()
    if how == "gzip+base64":
        return base64.b64encode(gzip.compress(data)).decode()
    if how == "zlib+base64":
        return base64.b64encode(zlib.compress(data)).decode()
    if how == "gzip+base64+base64":  # a Helm release secret as the API returns it
        return base64.b64encode(base64.b64encode(gzip.compress(data))).decode()
    raise AssertionError(how)


@settings(max_examples=60, deadline=None)
@given(
    token=GITHUB,
    how=st.sampled_from(["base64", "gzip+base64", "gzip+base64+base64"]),
    where=st.sampled_from(["{}", "release: {}", '{{"data": {{"release": "{}"}}}}']),
)
def test_a_token_encoded_compressed_and_encoded_again_is_found(
    token: str, how: str, where: str
) -> None:
    blob = _wrapped(token, how)
    text = where.format(blob)
    redacted, counts = REDACTOR.redact_text(text)
    assert counts.get("encoded_secret"), (how, text[:80])
    assert blob not in redacted
