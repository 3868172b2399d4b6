"""Keys found by their shape or by the words around them, drawn at random.

Each mechanism is tried both ways: random keys of its shape, in random surroundings, are
found whole; random ordinary text of the same alphabet (paths, digests, public keys, ids,
sentences naming no value, base64 of text) is left as it was. Hypothesis draws the cases
(derandomised, so a run is repeatable); a rate test measures how often the shape misses a
random key of its own kind.
"""

from __future__ import annotations

import base64
import hashlib
import random
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.rules import _base64_run

REDACTOR = build_redactor(RedactionConfig())
BASE62 = string.ascii_letters + string.digits
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "config",
    "server",
    "client",
    "build",
    "cache",
    "module",
    "source",
    "render",
    "window",
    "buffer",
    "stream",
    "handler",
    "report",
    "update",
    "review",
    "deploy",
    "output",
    "result",
]
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True)


def _found(text: str, secret: str) -> bool:
    redacted, _ = REDACTOR.redact_text(text)
    return all(piece not in redacted for piece in (secret[:12], secret[-12:]))


def _unchanged(text: str) -> bool:
    return REDACTOR.redact_text(text)[0] == text


def _rng(draw: st.DrawFn) -> random.Random:
    return random.Random(draw(st.integers(0, 2**32)))


@st.composite
def random_base64_key(draw: st.DrawFn) -> str:
    """Random bytes in base64 (48 to 400 bytes), as a key or session token is written,
    holding a ``+`` or ``/`` (else the run is random_token's to judge), two digits and
    three letters of each case at least: the shape every generated key of that length has
    but about one in 2,000 (see the rate test)."""
    rng = _rng(draw)
    while True:
        text = base64.b64encode(rng.randbytes(rng.randint(48, 400))).decode()
        body = text.rstrip("=")
        if ("+" in body or "/" in body) and sum(map(str.isdigit, body)) >= 2:
            return text


@st.composite
def base62_key(draw: st.DrawFn, least: int, most: int) -> str:
    rng = _rng(draw)
    size = rng.randint(least, most)
    body = [rng.choice(BASE62) for _ in range(size - 4)]
    body += [rng.choice(string.ascii_uppercase), rng.choice(string.ascii_lowercase)]
    body += [rng.choice(string.digits), rng.choice(string.digits)]
    rng.shuffle(body)
    return "".join(body)


@st.composite
def hex_key(draw: st.DrawFn, least: int = 32, most: int = 64) -> str:
    rng = _rng(draw)
    while True:
        value = "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(least, most)))
        digits = sum(map(str.isdigit, value))
        if 4 <= digits <= len(value) - 4:
            return value


# --------------------------------------------------------------------------- base64 keys

ANYWHERE = (
    "{}",
    "session: {}",
    "  <session>{{AQAAABAAA {}}}</session>",
    '{{"SessionToken": "{}"}}',
    'static const std::string AzuriteAccountKey{{\n    "{}"}};',
    "export X={}",
    "the value {} was printed",
)


@SETTINGS
@given(key=random_base64_key(), where=st.sampled_from(ANYWHERE))
def test_a_random_base64_key_is_found_with_nothing_naming_it(key: str, where: str) -> None:
    text = where.format(key)
    assert _found(text, key), text


@st.composite
def base64_look_alike(draw: st.DrawFn) -> str:
    """Text of the base64 alphabet that is no key: a path of words, base64 of a sentence,
    an SRI digest, a go.sum line, an SSH public key, a certificate's body, a data URL."""
    rng = _rng(draw)
    kind = draw(st.integers(0, 6))
    blob = base64.b64encode(rng.randbytes(rng.randint(32, 200))).decode()
    if kind == 0:
        return "/".join(rng.choice(WORDS) + rng.choice(("", "2", "V3")) for _ in range(12))
    if kind == 1:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
        return "echo " + base64.b64encode(sentence.encode()).decode()
    if kind == 2:
        digest = base64.b64encode(hashlib.sha512(blob.encode()).digest()).decode()
        return f'"integrity": "sha512-{digest}"'
    if kind == 3:
        digest = base64.b64encode(hashlib.sha256(blob.encode()).digest()).decode()
        return f"github.com/{rng.choice(WORDS)}/{rng.choice(WORDS)} v1.2.3 h1:{digest}"
    if kind == 4:
        key = b"\0\0\0\x07ssh-rsa\0\0\0\x03\x01\0\x01\0\0\x01\x01" + rng.randbytes(257)
        return f"ssh-rsa {base64.b64encode(key).decode()} user@{rng.choice(WORDS)}"
    if kind == 5:
        lines = [blob[i : i + 64] for i in range(0, len(blob), 64)]
        return "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----"
    return f'<img src="data:image/png;base64,{blob}">'


@SETTINGS
@given(text=base64_look_alike())
def test_base64_text_that_is_no_key_is_left_alone(text: str) -> None:
    assert _unchanged(text), text


def test_the_base64_shape_misses_few_random_keys() -> None:
    """Of 4,000 random keys in base64 (30 to 300 bytes, with + or /), at most 1 in 500 is
    missed (about 1 in 2,000 measured)."""
    rng = random.Random(36)
    tried = missed = 0
    while tried < 4000:
        key = base64.b64encode(rng.randbytes(rng.randint(30, 300))).decode()
        if "+" not in key and "/" not in key:
            continue
        tried += 1
        text = f"x {key} y"
        run = re.search(r"[A-Za-z0-9+/]{40,}={0,2}", text)
        assert run is not None
        missed += _base64_run(text, *run.span()) is None
    assert missed * 500 <= tried, missed


# ------------------------------------------------------------------- long quoted values


@st.composite
def long_token(draw: st.DrawFn) -> str:
    """A token of 600 to 3,000 characters in dotted base64url parts (a long JWT, a
    vendor's session token)."""
    rng = _rng(draw)
    alphabet = BASE62 + "-_"
    parts = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(40, 300)))
        for _ in range(rng.randint(3, 12))
    ]
    token = ".".join(parts)
    while len(token) < 600:
        token += "." + "".join(rng.choice(alphabet) for _ in range(200))
    return token[:3000].rstrip(".-_")


@SETTINGS
@given(
    token=long_token(),
    key=st.sampled_from(["token", "api_token", "storychief token", "auth_token", "secret"]),
    quote=st.sampled_from(["'", '"', "`"]),
)
def test_a_long_token_under_a_credential_name_is_found_whole(
    token: str, key: str, quote: str
) -> None:
    text = f"{key} = {quote}{token}{quote}\n"
    redacted, _ = REDACTOR.redact_text(text)
    assert all(token[i : i + 24] not in redacted for i in range(0, len(token) - 24, 24)), text


@SETTINGS
@given(words=st.lists(st.sampled_from(WORDS), min_size=120, max_size=400))
def test_a_long_message_under_a_credential_name_is_left_alone(words: list[str]) -> None:
    text = 'token_error = "' + " ".join(words) + '"'
    assert _unchanged(text), text


# ----------------------------------------------------------------- keys given in prose

PROSE = (
    "Your {vendor} key is {key}, which you will need.",
    "The {vendor} API token was {key}.",
    "Here's the token to test {vendor} APIs: {key}",
    "the secret for the {vendor} account is '{key}'",
)


@SETTINGS
@given(
    key=st.one_of(base62_key(16, 64), hex_key()),
    template=st.sampled_from(PROSE),
    vendor=st.sampled_from(["API2Cart", "JIRA", "Cloze", "acme", "Northwind"]),
)
def test_a_key_a_sentence_gives_is_found(key: str, template: str, vendor: str) -> None:
    text = template.format(vendor=vendor, key=key)
    assert _found(text, key), text


@st.composite
def named_not_a_key(draw: st.DrawFn) -> str:
    """What a sentence may say a key or token is that is no key: a name in snake or camel
    case, words, a number, a duration."""
    rng = _rng(draw)
    kind = draw(st.integers(0, 3))
    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 4))]
    if kind == 0:
        return "_".join(words) + "_id"
    if kind == 1:
        return words[0] + "".join(word.title() for word in words[1:])
    if kind == 2:
        return str(rng.randint(1, 10**9))
    return f"{rng.randint(2, 90)}_minutes_long"


@SETTINGS
@given(value=named_not_a_key(), template=st.sampled_from(PROSE))
def test_a_name_a_sentence_calls_a_key_is_left_alone(value: str, template: str) -> None:
    text = template.format(vendor="acme", key=value)
    assert _unchanged(text), text


# ----------------------------------------------------- hex bodies after a vendor prefix


@st.composite
def vendor_head(draw: st.DrawFn) -> str:
    """A made-up vendor's prefix: a word of 3 to 8 letters nobody uses for an id."""
    rng = _rng(draw)
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    word = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(2, 4)))
    return word + rng.choice("_-")


@SETTINGS
@given(
    head=vendor_head(),
    body=hex_key(32, 64),
    where=st.sampled_from(["{}", 'url := "https://x.test/keys/{}"', "key: {}", "'{}'"]),
)
def test_a_hex_token_after_a_vendor_prefix_is_found(head: str, body: str, where: str) -> None:
    token = head + body
    text = where.format(token)
    assert _found(text, token), text


@SETTINGS
@given(
    head=st.sampled_from(["trace_", "span-", "commit-", "sha256-", "docker-", "request_"]),
    body=hex_key(32, 64),
    tail=st.sampled_from(["", ".scope", " done"]),
)
def test_a_hex_id_or_digest_after_its_name_is_left_alone(head: str, body: str, tail: str) -> None:
    text = f"{head}{body}{tail}"
    assert _unchanged(text), text


# ------------------------------------------------------------------------------ echoes


@SETTINGS
@given(
    value=st.one_of(
        base62_key(10, 11),
        st.integers(10**15, 10**30).map(str),
    )
)
def test_a_short_or_numeric_value_under_a_credential_name_is_found_where_echoed(
    value: str,
) -> None:
    text = f"vendor token = '{value}' | '{value}'"
    redacted, _ = REDACTOR.redact_text(text)
    assert value not in redacted, text


@SETTINGS
@given(number=st.integers(10**5, 10**14))
def test_a_shorter_number_is_not_looked_for_again(number: int) -> None:
    text = f"password = '{number}'\ncount: {number}"
    redacted, _ = REDACTOR.redact_text(text)
    assert redacted.endswith(f"count: {number}"), redacted
