"""The built-in redaction rules and the rule sets that group them.

A :class:`Rule` is one or more lazy patterns plus a selector that turns a match into the
span to replace (or rejects it). Patterns are written so that Python's regex engine can skip
text quickly: each secret pattern starts with a literal prefix (``ghp_``, ``AKIA``, ``-----BEGIN``)
and checks the character before it with a look-behind placed *after* that prefix; assignment
patterns run on the lower-cased text so that they, too, start with a literal; the phone and
card patterns share one pattern, so digits are scanned once for both.

Secrets
    ``private_key``, ``jwt``, ``aws_access_key_id``, ``aws_secret_access_key``, ``github_token``,
    ``gitlab_token``, ``slack_token``, ``slack_webhook``, ``google_api_key``, ``stripe_key``,
    ``anthropic_api_key``, ``openai_api_key``, ``url_credentials``, ``auth_header``,
    ``credential_assignment``.
PII
    ``email``, ``phone``, ``payment_card``.

Earlier rules win where two matches overlap: a GitHub token assigned to ``api_key=`` is
reported as ``github_token``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import json
import math
import re
import string
from collections.abc import Callable, Mapping
from typing import Final

from .boundaries import after, glued
from .bounded import GAP_REACH, TOKEN_REACH
from .bounded_memo import BoundedMemo
from .checks import (
    beside_hex_group,
    is_card_number,
    is_credential_word,
    is_patterned,
    is_placeholder,
    is_plain_code_value,
    looks_random,
    phone_digit_count_ok,
)
from .encoded import encoded_patterns, encoded_selector
from .hosts import host_patterns, select_host
from .inner import Finder
from .lazy import PatternLike, lazy_compile
from .paired import paired_patterns, select_paired
from .rule_type import RECOVERING_RULES, TOKEN_RULES, Category, Rule, Selector, Span
from .split import split_patterns, split_selector
from .triggers import triggers_of

__all__ = [
    "ASSIGNMENT_KEY",
    "BUILTIN_RULES",
    "RULE_SETS",
    "Category",
    "Rule",
    "Selector",
    "Span",
    "custom_rule",
    "reads_as_key",
]

# ---------------------------------------------------------------------------------- selectors


def _whole(check: Callable[[str], bool] | None = None) -> Selector:
    """Select the whole match, optionally after ``check`` accepts its text."""

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span()
        if check is not None and not check(text[start:end]):
            return None
        return start, end

    return select


_MASKED_TAIL: Final = lazy_compile(r"#{4,}|\*{3,}|…|\.\.\.")


def _token(check: Callable[[str], bool]) -> Selector:
    """Select a whole token that ``check`` accepts, unless a mask follows it: the visible
    start of a masked token (``xoxp-5723...-####################``) is not a token."""

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span()
        if _MASKED_TAIL.match(text, end) is not None or not check(text[start:end]):
            return None
        return start, end

    return select


def _not_patterned(value: str) -> bool:
    return not is_patterned(value)


_KEY_MATERIAL: Final = lazy_compile(r"[A-Za-z0-9+/]{16}")


def _holds_key_material(block: str) -> bool:
    """A private key block holds key material: a run of base64 (16 characters or more), not
    only its BEGIN and END lines (``-----BEGIN PRIVATE KEY-----\\nanything\\n-----END``)."""
    return _KEY_MATERIAL.search(block) is not None


def _jwt(value: str) -> bool:
    """A JSON Web Token: its header is base64url of a JSON object (RFC 7519), and it is not
    typed out as a pattern."""
    header = value.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        parsed = json.loads(decoded)
    except (ValueError, binascii.Error):
        return False
    return isinstance(parsed, dict) and not is_patterned(value)


def _trim_period(text: str, start: int, end: int) -> int:
    """The end of a bare value without the full stop of the sentence it ends."""
    while end > start and text[end - 1] == ".":
        end -= 1
    return end


def _group(
    name: str, check: Callable[[str], bool] | None = None, *, bare: bool = False
) -> Selector:
    """Select group ``name`` unless it is a placeholder or ``check`` rejects it.

    ``bare``: the value is not quoted, so a trailing full stop belongs to the sentence.
    """

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span(name)
        if bare:
            end = _trim_period(text, start, end)
        value = text[start:end]
        if is_placeholder(value) or (check is not None and not check(value)):
            return None
        return start, end

    return select


def _assignment(text: str, match: re.Match[str]) -> Span | None:
    """Select an assigned value: quoted values unless placeholders, bare ones unless code.

    A quoted value needs its closing quote on the same line, so the closing quote of a string
    literal (``print("token=" + x)``, ``getpass('Password: ')``) does not start a value.
    """
    weak = "weak" in match.re.groupindex and match.group("weak") is not None
    if "generic" in match.re.groupindex:  # any name ending in "key": a random value only
        if _NOT_SECRET_KEY.search(text, max(0, match.start() - 16), match.start()):
            return None  # public_key, primary_key, cache_key: not a credential
        span = _assigned(text, match, loose=False)
        if span is None or not reads_as_key(text[span[0] : span[1]]):
            return None
        return span
    loose = weak or match.group("comma") is not None or match.group("default") is not None
    return _assigned(text, match, loose=loose)


def _assigned(text: str, match: re.Match[str], *, loose: bool) -> Span | None:
    """:func:`_assignment`'s value; ``loose``: it must read as generated."""
    if match.group("y") is not None:
        return _yaml_value(text, match, loose=loose)
    for group in ("w", "v", "t"):  # quoted (escapes inside), in escaped quotes, unterminated
        if match.group(group) is None:
            continue
        start, end = match.span(group)
        value = text[start:end]
        if not value.strip() or is_placeholder(value.strip()) or is_patterned(value):
            return None
        if len(value) > _LONG_VALUE and any(char.isspace() for char in value):
            return None  # a long quoted text with blanks: a message, not a key
        if _between_literals(value) or _FORMAT_VERB.search(value) is not None:
            return None  # "token=" + match + "&x": code; "access_token=%s|%s": a template
        if group == "t" and (value[0] == "$" or value[0] == "{"):
            return None
        if text[start - 1 : start] == "`" and (" " in value or is_plain_code_value(value)):
            return None  # `cmd args` (a command's output), `name` (code in Markdown)
        if _CONSTANT_NAME.fullmatch(value):
            return None  # "ANTHROPIC_API_KEY": "OTHER_API_KEY": a variable's name
        if _PLAIN_URL.fullmatch(value):
            return None  # "mongodb://localhost:27017/db": an address, no credential in it
        if loose and not _generated(value):
            return None
        return start, end
    start, end = match.span("u")
    cut = end
    end = _trim_period(text, start, end)
    value = text[start:end]
    if cut - end >= 2 or is_patterned(value) or _FORMAT_VERB.search(value) is not None:
        return None  # abc...: a value cut short; abcd1234...: typed out; %s/%s: a template
    if not value or value[0] == "$" or is_placeholder(value) or _TYPE_OR_SYMBOL.fullmatch(value):
        return None  # token: &str, out_token: *mut T, token = || ...: code, not a value
    if (
        is_plain_code_value(value)
        and _TOKEN_PREFIX.match(value) is None
        and not _environment_value(text, match.start(), value)
    ):
        return None  # token = self.token; but npm_xxxx is a token's prefix, not code
    if text[end : end + 1] in ("(", "["):  # token = b64encode(raw): a call, not a value
        return None
    if loose and not _generated(value):
        return None
    while (more := _CONTINUED.match(text, end)) is not None:  # value\<newline>  rest
        end = more.end()
    return start, end


# A quoted value is read up to 4,096 characters (long JWTs and session tokens), but one
# longer than this holding a blank is a message, not a key.
_LONG_VALUE: Final = 512

# An environment variable's name (DB_PASSWORD, MYSQL_ROOT_PASSWORD), as env files,
# docker-compose environment blocks and shell exports write it.
_ENV_NAME: Final = lazy_compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
_CODE_WORDS: Final = frozenset(
    {
        *("none", "null", "nil", "true", "false", "undefined", "required", "optional"),
        *("str", "string", "int", "bool", "bytes", "self", "this", "env", "secret"),
    }
)


def _environment_value(text: str, key_start: int, value: str) -> bool:
    """Whether a bare word is a value given to an environment variable (``DB_PASSWORD=
    postgres``, ``MYSQL_ROOT_PASSWORD: example`` under ``environment:``): the name is written
    in capitals as a variable's is, and the word is not code (a dotted name, a keyword, the
    name itself in lower case: ``PASSWORD = password`` reads as a constant set from a
    variable)."""
    if "." in value or value.lower() in _CODE_WORDS:
        return False
    left = key_start
    while left > 0 and (text[left - 1].isalnum() or text[left - 1] == "_"):
        left -= 1
    right = key_start
    while right < len(text) and (text[right].isalnum() or text[right] == "_"):
        right += 1
    name = text[left:right]
    if _ENV_NAME.fullmatch(name) is None:
        return False
    return not name.lower().endswith(value.lower())


def _yaml_value(text: str, match: re.Match[str], *, loose: bool) -> Span | None:
    """A value on the line after ``key:``: a block scalar's first line, or a plain scalar
    that reads as generated (not a nested mapping, a list or code after ``if token:``)."""
    start = match.start("y")
    end = start + len(text[start : match.end("y")].rstrip())
    value = text[start:end]
    head = text[max(0, match.start() - 1) : match.start("y")]
    block = match.group("b") is not None
    if not re.match(r"[^\n]*:[ \t]*(?:[|>][+-]?[0-9]?)?[ \t]*\r?\n", head[head.find(":") :]):
        return None  # the key ends in "=" or "=>": no YAML
    if not value or is_placeholder(value) or is_patterned(value) or value[0] in "${":
        return None
    if any(char.isspace() for char in value):
        return None  # words: a description, a nested mapping, code
    if not block and (value.endswith(":") or not _generated(value)):
        return None
    if block and loose and not _generated(value):
        return None
    return start, end


# A printf-style verb (%s, %v, %d, %q, %w, %(name)s): the value is a template to fill.
_FORMAT_VERB: Final = lazy_compile(r"%[-+# 0]?[sdvqw](?![0-9A-Fa-f])|%\([A-Za-z_]+\)s")


def _between_literals(value: str) -> bool:
    """A "quoted value" that is the code between two string literals: the quote closing one
    literal and the quote opening the next (``"token=" + match + "&x"``, PHP's ``. $pw .``)."""
    inner = value.strip(" \t`'\"")
    return inner[:1] == "+" or inner[-1:] == "+" or inner[:2] == ". " or inner[-2:] == " ."


def reads_as_key(value: str) -> bool:
    """A value that reads as a generated key, not a setting, a name or words: 12 to 512
    characters without spaces, not a path, a URL or a dotted name; letters with three digits
    or more, or both cases and not mostly lower-case words run together
    (``SponsoredProductsSearch``); and an entropy near that of random text of its length
    (at least 3.5 bits per character, less for values shorter than 32 characters)."""
    value = value.strip("\"'`")
    size = len(value)
    if not 12 <= size <= 512 or any(char.isspace() for char in value):
        return False
    if value[0] in "/.~$%{<[(" or "://" in value or _DOTTED_NAME.fullmatch(value):
        return False
    letters = sum(map(str.isalpha, value))
    digits = sum(map(str.isdigit, value))
    mixed = value != value.lower() and value != value.upper()
    if letters == 0 or is_patterned(value) or is_placeholder(value) or _encoded_words(value):
        return False
    if digits < 3:
        worded = sum(len(run) for run in _WORD_RUNS.findall(value))
        if not mixed or size < 16 or 2 * worded > size:
            return False
    return _entropy(value) >= min(3.5, math.log2(size) - 0.7)


# What a key name ending in "key" is when it is no credential: a public key, a database or
# cache key, an idempotency key (the words just before "key").
_NOT_SECRET_KEY: Final = lazy_compile(
    r"(?:public|publishable|pub|primary|foreign|partition|sort|cache|idempotency|dedup"
    r"|routing|lookup|hash|object|row|index|map|group|ssh)[_ .-]?\Z",
    re.IGNORECASE,
)


def _encoded_words(value: str) -> bool:
    """Base64 of words (``ZHVtbXkgdGV4dA==``): text written encoded, not a key."""
    if len(value) % 4 or not _BASE64.fullmatch(value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True)
    except (ValueError, binascii.Error):
        return False
    return decoded.isascii() and b" " in decoded and decoded.decode("ascii").isprintable()


_BASE64: Final = lazy_compile(r"[A-Za-z0-9+/]+={0,2}")
_DOTTED_NAME: Final = lazy_compile(r"[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)+")


def _generated(value: str) -> bool:
    """A value that reads as generated (a key or user:password), not words or a name: for
    key names that may hold ordinary settings too (``auth: required``) and for a quoted key
    and value given as two arguments (``("passwd", "Password changes")``,
    ``["CancellationToken", "CancellationState"]``)."""
    if len(value) < 8 or any(char.isspace() for char in value):
        return False
    digits = sum(char.isdigit() for char in value)
    return ":" in value or (0 < digits < len(value)) or digits >= 12


# A URL without a user name or password in it (a query is left to the rules that read it).
_PLAIN_URL: Final = lazy_compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s@/?#]+(?:[/?#][^\s@]*)?")
# An upper-case constant or environment variable name, quoted as a value.
_CONSTANT_NAME: Final = lazy_compile(r"[A-Z][A-Z]*(?:_[A-Z]+)+")
# A bare value that is a type or an operator: &str, *mut, &'a, ||, ->.
_TYPE_OR_SYMBOL: Final = lazy_compile(r"[*&]+(?:mut|const|'?[A-Za-z_]\w*)?|[^A-Za-z0-9]+")


# A value that starts like a token is not an identifier of code, whatever follows.
_TOKEN_PREFIX: Final = lazy_compile(
    "(?:gh[pousr]_|github_pat_|glpat-|xox[a-z]-|sk_live_|sk_test_|rk_live_|sk-|AKIA|ASIA|AIza|"
    "hf_|npm_|pypi-|dop_v1_|shp[a-z]{2}_|lin_api_|glc_|glsa_|sntry[su]_|pnu_|rdme_|pplx-)"
)


# A bare value continued on the next line after a backslash (.properties files, shells).
_CONTINUED: Final = lazy_compile(r"""\\\r?\n[ \t]*[^\s"'`,;&<>(){}\[\]\\]+""")


def _extend_left(alphabet: str, most: int, least: int, after: str = "") -> Selector:
    """Select the match widened to the left over up to ``most`` characters of ``alphabet``
    (at least ``least`` of them, and not glued to a longer run or a word, unless the word
    is ``after``: ``bot`` in a Telegram API URL)."""
    allowed = frozenset(alphabet)

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span()
        left = start
        while left > 0 and start - left < most and text[left - 1] in allowed:
            left -= 1
        if start - left < least or (left > 0 and text[left - 1] in allowed):
            return None
        glued = left > 0 and (text[left - 1].isalnum() or text[left - 1] == "_")
        if glued and not (after and text.endswith(after, 0, left)):
            return None
        return left, end

    return select


def _unquoted(
    name: str, check: Callable[[str], bool] | None = None, *, trim: bool = False
) -> Selector:
    """Select group ``name`` without the quotes around it; with ``trim``, a bare value
    without the closing bracket, comma or full stop of the text around it."""

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span(name)
        if end - start >= 2 and text[start] == text[end - 1] and text[start] in "'\"":
            start, end = start + 1, end - 1
        elif trim:
            while end > start + 1 and text[end - 1] in ")]>,.;":
                end -= 1
        value = text[start:end]
        if not value or value[0] == "$" or is_placeholder(value):
            return None
        if check is not None and not check(value):
            return None
        return start, end

    return select


# Words that follow a password flag in prose about it ("pass the --password flag to ..."),
# never a password given on a command line.
_FLAG_PROSE: Final = frozenset(
    {
        *("flag", "option", "argument", "parameter", "switch", "prompt", "is", "to", "and"),
        *("or", "for", "when", "if", "with", "then", "the", "on", "of"),
    }
)


def _cli_value(value: str) -> bool:
    return value.lower() not in _FLAG_PROSE and not is_patterned(value)


# Option names that take a credential (the end of the name: --db-password, -storepass).
_LONG_OPTION_NAMES = (
    *("password", "passwd", "passphrase", "pass", "pwd", "token", "secret", "bearer", "auth"),
    *("api-key", "api_key", "apikey", "access-key", "access_key", "secret-key", "secret_key"),
    *("private-key", "private_key", "client-secret", "client_secret", "credentials"),
    "credential",
)
_OPTION_START: Final = lazy_compile(r"(?:^|(?<=[\s'\"(=\[]))--[a-z0-9]")
_SINGLE_DASH_NAMES = (
    *("storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass"),
    *("password", "passwd", "passphrase", "pwd", "token", "secret", "apikey", "accesstoken"),
    "clientsecret",
)
_CLI_VALUE = r"""(?P<v>'[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]*)"""
_CLI_PASSWORDS: Final = frozenset({"password", "passwd", "pass", "pwd", "passphrase"})
_CLI_NOT_VALUES: Final = ("pass:", "env:", "file:", "fd:", "stdin", "http", "/", "./", "~/")


def _cli_named(text: str, match: re.Match[str]) -> Span | None:
    """The value of a named credential option; a value not clearly a secret for names that
    take other things too (--token-file is not matched; --secret my-secret-name is not kept)."""
    span = _unquoted("v", _cli_value, trim=True)(text, match)
    if span is None:
        return None
    value = text[span[0] : span[1]]
    lowered = value.lower()
    if lowered.startswith(_CLI_NOT_VALUES) or value.startswith(("{", "@")):
        return None
    key = match.group("k") if "k" in match.re.groupindex else None
    if "long" in match.re.groupindex:  # the option's name runs back to its "--"
        start = match.start("k")
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-_."):
            start -= 1
        if _OPTION_START.match(text, start) is None:
            return None
    if "s" in match.re.groupindex and match.group("s") is not None:  # mysql -p V, ldap -w V
        return span if len(value) >= 4 and (looks_random(value) or not value.isalnum()) else None
    if key is not None and (key == "" or key.lower() in _CLI_PASSWORDS):  # "": -storepass
        return span if len(value) >= 3 else None
    return span if _generated(value) else None


_SLOT: Final = lazy_compile(r"<[^<>]+>|\[[A-Za-z][A-Za-z0-9 _-]*\]|\$\{?[A-Za-z_]\w*\}?")


# A vendor's token prefix: a short lower-case word, maybe a second one (tskey-api-,
# lsv2_pt_), and the separator before the body.
_TOKEN_HEAD: Final = lazy_compile(r"[a-z][a-z0-9]{1,9}(?:[_-][a-z0-9]{1,8})?[_-]\Z")
# Prefixes of identifiers that are not secrets: messages, tool calls, requests, customers.
_ID_HEADS: Final = frozenset(
    {
        *("msg", "toolu", "chatcmpl", "req", "cus", "sess", "run", "step", "file", "asst"),
        *("thread", "call", "evt", "ch", "pi", "sub", "in", "prod", "price", "acct", "resp"),
        *("batch", "job", "cmpl", "item", "id", "uuid", "sha", "sha1", "sha256", "md5"),
        *("sha384", "sha512"),
    }
)
_HEAD_REACH: Final = 20


def _shaped_token(text: str, match: re.Match[str]) -> Span | None:
    """A token by its shape when no vendor rule knows its prefix: a prefix of one or two
    short lower-case words, and a body of 32 or more letters and digits that reads as
    random (digits and both cases, about four bits of entropy per character or more, no
    typed-out pattern). Ids of messages, tool calls and requests (``msg_``, ``toolu_``,
    ``req_``), digests and words joined by separators are not tokens."""
    start, end = match.span()
    left = start
    while (
        left > 0
        and start + 1 - left < _HEAD_REACH
        and (text[left - 1].isalnum() or text[left - 1] in "_-")
    ):
        left -= 1
    if left > 0 and text[left - 1].isalnum():
        return None
    head = _TOKEN_HEAD.search(text, left, start + 1)
    if head is None:
        return None
    left = head.start()
    if left > 0 and (text[left - 1].isalnum() or text[left - 1] in "_-"):
        return None  # part of a longer name: my_var_name_<body>
    if re.split("[_-]", text[left : start + 1], maxsplit=1)[0] in _ID_HEADS:
        return None
    if text.startswith(_known_heads(), left):
        return None  # a vendor's own rule knows this prefix and has decided
    body = text[start + 1 : end]
    if _random_body(body):
        return left, end
    if not _hex_key(body) or len(body) > _HEX_TOKEN_MOST:
        return None
    if re.split("[_-]", text[left : start + 1], maxsplit=1)[0] in _HEX_ID_HEADS:
        return None  # trace_<hex>, commit-<hex>: an id or a digest
    if text[end : end + 1] == "." and text[end + 1 : end + 2].isalnum():
        return None  # docker-<hex>.scope, build_<hex>.tar: a name
    return left, end


# A vendor's hex token (pri_, dapi, shpat_ and kin) holds 32 to 64 digits; a longer run
# after a prefix is a digest.
_HEX_TOKEN_MOST: Final = 64
# Prefixes of hex ids and digests besides :data:`_ID_HEADS`: traces and spans, commits,
# objects, caches and builds, containers and images.
_HEX_ID_HEADS: Final = frozenset(
    {
        *("trace", "span", "request", "commit", "hash", "digest", "build", "tmp", "temp"),
        *("cache", "docker", "object", "obj", "blob", "tree", "rev", "ref", "etag", "checksum"),
        *("nonce", "salt", "iv", "ver", "version", "v", "git", "image", "layer", "container"),
        *("pod", "node", "instance", "session", "cid", "guid", "uid", "sig", "signature"),
        *("event", "order", "user", "account", "device", "tx", "block", "hex"),
    }
)


# Names before a value that make a random-looking run a digest, an address or data, not a
# key.
_DIGEST_BEFORE: Final = lazy_compile(
    r"(?:sha[0-9]*|md5|blake[0-9a-z]*|hash|digest|checksum|integrity|etag|nonce|commit|oid"
    r"|cid|ipfs|address|wallet|id|base64|b64decode\(b?"
    # Names of data, not of a key: content, body, payload, a signature, a salt.
    r"|content|body|data|payload|blob|encoded|ciphertext|signature|salt|iv)"
    r"[^A-Za-z0-9\n]{1,4}\Z",
    re.IGNORECASE,
)


def _unnamed_key(text: str, match: re.Match[str]) -> Span | None:
    """A key written with nothing around it to name it: a run of base64 holding ``+`` or
    ``/`` (:func:`_base64_run`), else of letters and digits (:func:`_random_run`). One rule
    and one pattern for both, so that one Hyperscan expression finds where either starts."""
    start, end = match.span()
    pad = end - start - len(text[start:end].rstrip("="))
    body_end = end - pad
    if text.find("+", start, body_end) >= 0 or text.find("/", start, body_end) >= 0:
        return _base64_run(text, start, end)
    if pad or body_end - start > _RANDOM_RUN_MOST:
        return None  # base64 padding after it, or longer than a key of letters and digits
    return _random_run(text, start, body_end)


# The longest key of letters and digits alone the shape reads (longer runs are data).
_RANDOM_RUN_MOST: Final = 256


def _random_run(text: str, start: int, end: int) -> Span | None:
    r"""A run that reads as a generated key by its shape alone: 24 characters or more with
    two digits, two upper- and two lower-case letters or more, about four bits of entropy
    per character (random base62 of 24 characters has about 4.2; 0.9 bit under the most a
    run of its length can have), not words run together
    or typed out; not a segment of a path or URL (``/``, ``\``), nor a value named as a
    digest, an address, an id or data (``sha256:``, ``commit``, ``etag``, ``content:``),
    nor base64 of text,
    nor typed out (``ABCDEF1234567890``)."""
    body = text[start:end]
    one_case = body.islower() or body.isupper()
    if body.isalpha() or (one_case and not _one_case_random(body)):
        return None  # no digit, or one case and not random (hex digests, ids): most end here
    if (
        start
        and text[start - 1] == "="
        and _ASSIGNED.search(text, max(0, start - 65), start) is None
    ):
        return None  # base64 padding, a comparison (==), a URL's query: not a value of its own
    if not one_case:
        if sum(map(str.isdigit, body)) < 2 or sum(map(str.isupper, body)) < 2:
            return None
        if sum(map(str.islower, body)) < 2 or is_patterned(body) or is_credential_word(body):
            return None
        if 2 * sum(len(run) for run in _WORD_RUNS.findall(body)) > len(body):
            return None  # words run together: SponsoredProductsRemoteSearch2024
        if _entropy(body) < min(_MIN_ENTROPY, math.log2(len(body)) - 0.9):
            return None
    if _DIGEST_BEFORE.search(text, max(0, start - 24), start) is not None:
        return None
    if _DECODED_AFTER.match(text, end) is not None:
        return None  # echo <run> | base64 -d: encoded data
    if _decodes_to_text(body):
        return None  # base64 of text: eyJhbGciOiJIUzI1NiJ9 is {"alg":"HS256"}
    if _TYPED_RUN.search(body) is not None:
        return None  # ABCDEF1234567890: typed out
    if _inside_block(text, start):
        return None  # a line of a certificate or public key block
    return start, end


def _one_case_random(body: str) -> bool:
    """A run of one letter case and digits that reads as random base36 (``15AP0WOD...``,
    ``tzyexx2ktdfhha8w1ckt...``): 32 characters or more, not hex (digests, ids), letters and
    digits mixed throughout (a switch between them at one place in six or more, digits in
    runs of 2.5 on average or fewer: random base36 has a switch at two places in five and
    runs of 1.4; ``build20240101release`` has two switches and a run of eight), and an
    entropy near that of random base36 of its length (4 bits per character, or 1.2 under
    the most the length can have), not typed out. Random base36 keys of 32 to 128
    characters fail this about once in 800 (``test_one_case_keys.py``)."""
    size = len(body)
    if size < _ONE_CASE_LEAST or _HEX_ONLY.fullmatch(body) is not None:
        return False
    digit_runs = _DIGIT_RUNS.findall(body)
    digits = sum(map(len, digit_runs))
    if digits < 4 or size - digits < 8 or 2 * digits > 5 * len(digit_runs):
        return False
    # Each run of digits inside the body has a switch before and after it.
    switches = 2 * len(digit_runs) - body[0].isdigit() - body[-1].isdigit()
    if 6 * switches < size:
        return False
    if _entropy(body) < min(_MIN_ENTROPY, math.log2(size) - 1.2):
        return False
    return not is_patterned(body) and _TYPED_RUN.search(body) is None


# The shortest one-case key the shape reads (random base36 of 32 characters has about 4.4
# bits per character, of 64 about 4.8).
_ONE_CASE_LEAST: Final = 32
_HEX_ONLY: Final = lazy_compile("[0-9a-f]+|[0-9A-F]+")
_DIGIT_RUNS: Final = lazy_compile("[0-9]+")


def _base64_run(text: str, start: int, end: int) -> Span | None:
    r"""A key written in base64 with nothing around it to name it (an AWS session token, an
    Azure storage key): a run of 40 or more base64 characters holding ``+`` or ``/``, that
    reads as random bytes (digits and both cases, no words, an entropy near that of random
    base64 of its length), not base64 of text, not a digest, signature or data named
    before it (``sha512-``, ``integrity``, ``h1:``, ``base64,``), not a public key
    (``ssh-rsa AAAA...``) and not inside a certificate or public key block."""
    body = text[start:end].rstrip("=")
    if len(body) < _BASE64_LEAST:
        return None
    if "/" in body and _a_path(text, start, body):
        return None  # /usr/lib/<run>, host:8080/<run>: a path or an address, not a key
    if (
        start
        and text[start - 1] == "="
        and _ASSIGNED.search(text, max(0, start - 65), start) is None
    ):
        return None  # after base64 padding or a URL's query: not a value of its own
    if sum(map(str.isdigit, body)) < 2 or sum(map(str.isupper, body)) < 3:
        return None
    if sum(map(str.islower, body)) < 3 or is_patterned(body):
        return None
    if 3 * sum(len(run) for run in _WORD_RUNS.findall(body)) > len(body):
        return None  # words between slashes: a path
    if _entropy(body) < min(_BASE64_ENTROPY, math.log2(len(body)) - 1.1):
        return None
    if _DIGEST_BEFORE.search(text, max(0, start - 24), start) is not None:
        return None
    if _PUBLIC_BEFORE.search(text, max(0, start - 40), start) is not None:
        return None
    if _DECODED_AFTER.match(text, end) is not None or _decodes_to_text(body):
        return None
    if _inside_block(text, start):
        return None  # a certificate's, a public key's or a signature's body
    return start, end


def _a_path(text: str, start: int, body: str) -> bool:
    """Whether a run holding ``/`` is a path or a URL's path: glued to what comes before
    it (``host]/``, ``:8080/``), or it starts with ``/`` and its first segment is empty,
    lower case or digits (``//host``, ``/usr/``, ``/2024/``), as one of a random key almost
    never is."""
    if start and text[start - 1] not in _STANDS_APART:
        return True
    if body[0] != "/":
        return False
    second = body.find("/", 1)
    if second < 0:
        return False
    segment = body[1:second]
    return not segment or segment.islower() or segment.isdigit()


_STANDS_APART: Final = frozenset(" \t\r\n\"'`=([{<>,;")


def _inside_block(text: str, start: int) -> bool:
    """Whether the run at ``start`` is a line of a ``-----BEGIN ...-----`` block whose END
    line has not come yet (a private key's block is the private_key rule's, found before
    this). A block's lines stand alone: a run with other text on its line is in none."""
    if start and text[start - 1] != "\n":
        return False
    block = text.rfind("-----BEGIN ", max(0, start - _BLOCK_REACH), start)
    return block >= 0 and text.find("-----END ", block, start) < 0


# The shortest key in base64 the shape reads (30 random bytes).
_BASE64_LEAST: Final = 40
# Random base64 of 64 characters or more has about 5.3 bits per character or more; one of
# 40 about 4.8 (the floor is 1.1 bits under the most a run of its length can have).
_BASE64_ENTROPY: Final = 4.8
# How far back a block's BEGIN line is looked for (a 4096-bit certificate is about 2 KB).
_BLOCK_REACH: Final = 8192
# What a public key or a module checksum is written after: ssh-rsa, ecdsa-sha2-nistp256,
# ssh-ed25519, h1: (go.sum).
_PUBLIC_BEFORE: Final = lazy_compile(
    r"(?:ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-ssh-[a-z0-9@.]+|sk-ecdsa-[a-z0-9@.-]+)[ \t]+\Z"
    r"|\bh1:\Z"
)


# Five characters in a row of the alphabet or the digits, or one character four times: a
# random run of 24 holds one by chance about once in a million.
_TYPED_RUN: Final = lazy_compile(
    "|".join(
        alphabet[i : i + 5]
        for alphabet in (string.ascii_lowercase, string.ascii_uppercase, "0123456789")
        for i in range(len(alphabet) - 4)
    )
    + r"|(.)\1{3}"
)


# ``NAME=`` before a run, the name standing on its own (a line's start, a blank, a quote,
# a brace, a comma or semicolon before it): an assignment whose name says nothing, as in an
# env file (confluence_b=<key>). Not a URL's query (?id=, &sig=) nor base64 (a=, ==).
_ASSIGNED: Final = lazy_compile(r"""(?:^|(?<=[\s"'`{(,;]))[A-Za-z_][A-Za-z0-9_.-]{0,63}=\Z""", re.M)


_DECODED_AFTER: Final = lazy_compile(
    r"[ \t]*\|[ \t]*(?:base64|base32|xxd|openssl[ \t]+(?:base64|enc))"
)


def _decodes_to_text(body: str) -> bool:
    """Whether ``body`` is base64 of printable ASCII text (random bytes almost never are)."""
    try:
        decoded = base64.b64decode(body[: len(body) - len(body) % 4], validate=True)
    except (ValueError, binascii.Error):
        return False
    return decoded.isascii() and decoded.decode("ascii").isprintable()


@functools.cache
def _known_heads() -> tuple[str, ...]:
    """The literal starts of every other secret rule that reads the text as written (the
    vendors' prefixes): a token with one of them is theirs to take or leave. Read off the
    patterns once per process, through the disk cache of triggers (:func:`.triggers_of`)."""
    patterns = [
        pattern
        for rule in _RULES
        if rule.category == "secret" and not rule.lowered and rule.name != "shaped_token"
        for pattern in rule.patterns
    ]
    heads: set[str] = set()
    for found in triggers_of(patterns):
        # glpat-, sk-ant-: a vendor's prefix, not a program's name
        heads.update(head for head in found or () if _VENDOR_HEAD.match(head) is not None)
    return tuple(sorted(heads))


_VENDOR_HEAD: Final = lazy_compile(r"[a-z][a-z0-9]*[_-]")


def _random_body(body: str) -> bool:
    """Letters and digits drawn at random: digits, upper and lower case letters, a high
    entropy (4 bits per character, or 1.1 under the most the body's length can have if
    that is less), and no typed-out pattern or placeholder word; or of one letter case and
    digits that read as random base36 (:func:`_one_case_random`)."""
    if _A_DIGIT.search(body) is None:
        return False
    if body == body.lower() or body == body.upper():
        return _one_case_random(body)
    if is_patterned(body) or is_credential_word(body):
        return False
    worded = sum(len(run) for run in _WORD_RUNS.findall(body))
    if 2 * worded > len(body):
        return False  # words run together: SponsoredProductsRemoteSearch, not a key
    # A length-aware floor: random base62 of 32 characters has about 4.6 bits per character,
    # and falls under 4.0 about once in 2,500; 1.1 bits under the most 32 can have is 3.9.
    return _entropy(body) >= min(_MIN_ENTROPY, math.log2(len(body)) - 1.1)


def _entropy(value: str) -> float:
    """Shannon entropy of the characters of ``value``, in bits per character."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


_WORD_RUNS: Final = lazy_compile("[a-z]{4,}")
_MIN_ENTROPY: Final = 4.0  # bits per character; random base62 of 32 characters: about 4.6
_A_DIGIT: Final = lazy_compile("[0-9]")


def _cli_password(text: str, match: re.Match[str]) -> Span | None:
    """A command-line password, or a ``user:password`` pair given to -u / --user, whole."""
    if "pair" not in match.re.groupindex:
        return _unquoted("v", _cli_value, trim=True)(text, match)
    start, end = match.span("pair")
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "'\"":
        start, end = start + 1, end - 1
    while end > start and text[end - 1] in ")]>,;":
        end -= 1
    if is_placeholder(text[start:end]):  # an earlier [REDACTED:...] too
        return None
    user, _, password = text[start:end].partition(":")
    if password.startswith("[") and text[end : end + 1] == "]" and "]" not in password:
        password += "]"  # user:[PASSWORD]: the slot's closing bracket was trimmed above
    if _SLOT.fullmatch(password):
        return None  # a slot to fill in: the user name alone is no credential
    if (is_placeholder(password) or is_credential_word(password)) and (
        not user or is_placeholder(user) or is_credential_word(user)
    ):
        return None
    if (user.isdigit() or not user) and (password.isdigit() or not password):
        return None  # -u 1000:1000, a uid and gid
    if user.startswith(("$", "%")) or password.startswith(("$", "%")):
        return None
    return start, end


_URL_TOKEN: Final = lazy_compile(r"[A-Za-z0-9_-]+")


def _url_pair(text: str, match: re.Match[str]) -> Span | None:
    """The ``user:password`` of a URL, whole (a credential's two halves), unless the password
    is a placeholder (``${DB_PASSWORD}``, ``<password>``, ``user:password``)."""
    start, end = match.span("v")
    user, colon, password = text[start:end].partition(":")
    if not colon:  # a user part alone: a credential when it reads as a generated token
        token = len(user) >= 20 and _URL_TOKEN.fullmatch(user) is not None
        return (start, end) if token and looks_random(user) and not is_placeholder(user) else None
    if is_placeholder(password) or (is_credential_word(password) and is_credential_word(user)):
        return None
    return start, end


# What comes just before "password" in a .netrc entry: another token and its value, a word
# or two apart at most (machine HOST, login USER, "login with admin / password"), or the
# "default" entry.
_NETRC_BEFORE: Final = lazy_compile(
    r"(?:(?<![a-z0-9_-])(?:machine|login|account|port)(?:[ \t\r\n]+\S+){1,3}"
    r"|(?<![a-z0-9_-])default)"
    r"[ \t\r\n]+\Z"
)


_XML_STRONG: Final = lazy_compile(
    r"(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|token|credentials?)\Z"
)


def _xml_value(text: str, match: re.Match[str]) -> Span | None:
    """An XML element's text under a secret's tag; under any other tag ending in ``key`` or
    ``auth`` (``<aa_key>``, ``<primaryKey>``), only a value that reads as a generated key."""
    span = _group("v")(text, match)
    if span is None:
        return None
    tag = match.group("tag").rstrip("0123456789_-")
    if _XML_STRONG.search(tag) is None:
        if _NOT_SECRET_KEY.search(tag[:-4] if tag.endswith("key") else tag):
            return None
        if not reads_as_key(text[span[0] : span[1]]):
            return None
    return span


def _netrc(text: str, match: re.Match[str]) -> Span | None:
    """A ``password`` word in a ``.netrc`` entry: right after another token of the entry
    and its value (``login USER password PASS``), or after ``default``."""
    before = text[max(0, match.start() - 300) : match.start()].lower()
    if _NETRC_BEFORE.search(before) is None:
        return None
    start, end = match.span("v")
    while end > start + 1 and text[end - 1] in ")]>,.;":
        end -= 1
    value = text[start:end]
    return None if is_placeholder(value) else (start, end)


def _base64_credentials(text: str, match: re.Match[str]) -> Span | None:
    """A base64 value that decodes to ``user:password``."""
    import base64
    import binascii

    start, end = match.span("v")
    raw = text[start:end]
    try:
        decoded = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        plain = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return None
    user, colon, password = plain.partition(":")
    if not colon or not user or not password or not plain.isprintable():
        return None
    return start, end


def _mixed_case_and_digit(value: str) -> bool:
    """Both letter cases or a digit and a letter: a generated secret, not hex or a word."""
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    return (lower and upper) and (digit or "/" in value or "+" in value)


# A secret access key after its key id: a run of exactly 40 base64 characters on the same line
# or the next (within 200 characters of each), or right after a \n escape.
_KEY_PAIR_REACH: Final = 200
_SECRET_KEY_RUN: Final = lazy_compile(
    r"(?<![A-Za-z0-9/+])(?:(?<=\\)[nrt])?(?P<k>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
# What may not follow the run, checked past the reach too: the search sees nothing beyond it.
_AFTER_KEY: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+=")


def _key_pair(text: str, match: re.Match[str]) -> Span | None:
    """The secret access key written near the key id ``match`` found."""
    position = match.end()
    newline = text.find("\n", position, position + _KEY_PAIR_REACH)
    if newline < 0:
        limit = min(len(text), position + _KEY_PAIR_REACH)
    else:
        following = text.find("\n", newline + 1, newline + 1 + _KEY_PAIR_REACH)
        limit = following if following >= 0 else min(len(text), newline + 1 + _KEY_PAIR_REACH)
    run = _SECRET_KEY_RUN.search(text, position, limit)
    while run is not None:
        start, end = run.span("k")
        if text[end : end + 1] not in _AFTER_KEY and _mixed_case_and_digit(text[start:end]):
            return start, end
        run = _SECRET_KEY_RUN.search(text, end, limit)
    return None


def _prose(text: str, match: re.Match[str]) -> Span | None:
    """The value a sentence says is a password, a key or a token, without the punctuation
    that ends it."""
    start, end = match.span("v")
    while end > start and text[end - 1] in ".,;:!?":
        end -= 1
    value = text[start:end]
    if is_placeholder(value) or not _secret_word(value):
        return None
    if "keyed" in match.re.groupindex and not (reads_as_key(value) or _hex_key(value)):
        return None  # "the key is primary_key_id": a name, not a key
    return start, end


def _hex_key(value: str) -> bool:
    """32 to 128 hex digits drawn at random (a key a name or sentence calls one): one case,
    four digits and four letters or more, and an entropy near random hex's (about 3.7 bits
    per character for 32 digits; at least 3.2)."""
    if _HEX_RUN.fullmatch(value) is None or (not value.islower() and not value.isupper()):
        return False
    digits = sum(map(str.isdigit, value))
    if digits < 4 or len(value) - digits < 4 or is_patterned(value):
        return False
    return _entropy(value) >= _HEX_ENTROPY


_HEX_RUN: Final = lazy_compile("[0-9A-Fa-f]{32,128}")
_HEX_ENTROPY: Final = 3.2


def _secret_word(value: str) -> bool:
    """A bare value said to be a password in prose: not an ordinary lower-case word."""
    if len(value) < 4:
        return False
    return not value.isalpha() or not value.islower()


# Vendor tokens found from their separator: the prefix before it (a word of its own) and the
# whole token's shape, checked once a separator follows a known prefix.
_VENDOR_SHAPES: Final = {
    prefix: lazy_compile(shape)
    for prefix, shape in (
        ("npm_", "npm_[A-Za-z0-9]{36}"),
        ("hf_", "hf_[A-Za-z]{30,40}"),
        ("SG.", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        ("pypi-", "pypi-AgE[A-Za-z0-9_-]{50,}"),
        ("dop_", "dop_v1_[a-f0-9]{64}"),
        ("doo_", "doo_v1_[a-f0-9]{64}"),
        ("dor_", "dor_v1_[a-f0-9]{64}"),
        *((f"{p}_", f"{p}_[a-fA-F0-9]{{32}}") for p in ("shpat", "shpss", "shpca", "shppa")),
        # GitLab tokens, each of its documented length; a routable one (27 to 300
        # characters) ends in a dot and nine characters.
        *(
            (f"{p}-", f"{p}-(?:[A-Za-z0-9_-]{{27,300}}\\.[0-9a-z]{{9}}|[A-Za-z0-9_-]{{{n}}})")
            for p, n in (
                *(("gldt", "20,50"), ("glrt", "20,50"), ("glft", "20,50")),
                *(("glsoat", "20,50"), ("glcbt", "20,"), ("glimt", "25")),
                *(("glptt", "40"), ("gloas", "64")),
            )
        ),
        ("key-", "key-[0-9a-zA-Z]{32}"),
        ("lin_", "lin_api_[A-Za-z0-9]{40}"),
        *(("dp.", r"dp\.(?:pt|st|ct|sa)\.[A-Za-z0-9]{40,44}"),),
        ("glc_", "glc_[A-Za-z0-9+/]{32,400}={0,2}"),
        ("glsa_", "glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}"),
        ("pul-", "pul-[a-f0-9]{40}"),
        ("PMAK-", "PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
        ("sntrys_", "sntrys_[A-Za-z0-9+/=_]{40,}"),
        ("sntryu_", "sntryu_[a-f0-9]{64}"),
        ("hvs.", r"hvs\.[A-Za-z0-9_-]{24,}"),
        ("hvb.", r"hvb\.[A-Za-z0-9_-]{24,}"),
        ("AGE-", "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
        ("sq0atp-", "sq0atp-[0-9A-Za-z_-]{22,43}"),
        ("sq0csp-", "sq0csp-[0-9A-Za-z_-]{22,43}"),
        ("HRKU-", "HRKU-[A-Za-z0-9_-]{60}"),
        ("fo1_", "fo1_[A-Za-z0-9_-]{43}"),
        ("secret_", "secret_[A-Za-z0-9]{43}"),
        ("ntn_", "ntn_[A-Za-z0-9]{46}"),
        # From the vendors' documented formats (as gitleaks' rule set lists them).
        ("ops_", "ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"),
        ("A3-", "A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}"),
        ("p8e-", "p8e-[A-Za-z0-9]{32}"),
        ("dnkey-", "dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}"),
        ("duffel_", "duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
        ("dt0c01.", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
        ("fm1a_", "fm1a_[A-Za-z0-9+/]{100,}={0,3}"),
        ("fm1r_", "fm1r_[A-Za-z0-9+/]{100,}={0,3}"),
        ("fm2_", "fm2_[A-Za-z0-9+/]{100,}={0,3}"),
        ("fio-", "fio-u-[A-Za-z0-9_=-]{64}"),
        ("glffct-", "glffct-[A-Za-z0-9_-]{20,}"),
        ("glagent-", "glagent-[A-Za-z0-9_-]{50,}"),
        ("api_", "api_org_[A-Za-z]{34}"),
        ("ico-", "ico-[A-Za-z0-9]{32}"),
        ("pplx-", "pplx-[A-Za-z0-9]{48}"),
        ("pscale_", r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.-]{32,64}"),
        ("pnu_", "pnu_[A-Za-z0-9]{36}"),
        ("rdme_", "rdme_[a-z0-9]{70}"),
        ("rubygems_", "rubygems_[a-f0-9]{48}"),
        ("tk-", "tk-us-[A-Za-z0-9_-]{48}"),
        ("xkeysib-", "xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
        ("xsmtpsib-", "xsmtpsib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
        ("sm_", "sm_(?:pat|aat|sat)_[A-Za-z0-9]{16}"),
        ("shippo_", "shippo_(?:live|test)_[a-fA-F0-9]{40}"),
        ("sgp_", "sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}"),
        ("live_", "live_(?:pub_[a-f0-9]{31}|[a-f0-9]{35}|[A-Za-z0-9_=-]{40})"),
        ("test_", "test_(?:pub_[a-f0-9]{31}|[a-f0-9]{35})"),
        ("CLOJARS_", "CLOJARS_[A-Za-z0-9]{60}"),
        ("FLWPUBK_", "FLWPUBK_TEST-[A-Za-z0-9]{32}-X"),
        ("FLWSECK_", "FLWSECK_TEST(?:-[A-Za-z0-9]{32}-X|[A-Za-z0-9]{12})"),
        ("NRAK-", "NRAK-[A-Z0-9]{27}"),
        ("NRJS-", "NRJS-[a-f0-9]{19}"),
        ("NRII-", "NRII-[A-Za-z0-9_-]{32}"),
        ("API-", "API-[A-Z0-9]{26}"),
        ("v1.", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
        ("pk.", r"pk\.(?:eyJ[A-Za-z0-9_-]{50,}|[A-Za-z0-9]{60})\.[A-Za-z0-9_-]{22,}"),
        ("sk.", r"sk\.(?:eyJ[A-Za-z0-9_-]{50,}|[A-Za-z0-9]{60})\.[A-Za-z0-9_-]{22,}"),
        ("sl.", r"sl\.(?:u\.)?[A-Za-z0-9_=-]{135,}"),
        ("tfp_", r"tfp_[A-Za-z0-9_.=-]{59}"),
        ("pat.", r"pat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
        ("sat.", r"sat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
        ("_gitlab_", "_gitlab_session=[0-9a-z]{32}"),
        ("bedrock-", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*"),
        ("BBDC-", "BBDC-[A-Za-z0-9+/]{44}"),
        ("lsv2_", "lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    )
}
_VENDOR_PREFIX_LENGTHS: Final = tuple(sorted({len(p) for p in _VENDOR_SHAPES}, reverse=True))


def _vendor_separators() -> tuple[str, ...]:
    """One pattern per separator character: a known prefix, then the separator (group
    ``sep``), then a token character. The prefixes are literal triggers (see
    :mod:`.triggers`), so the pattern is tried only where one of them occurs."""
    sources = []
    for separator in "_-.":
        prefixes = sorted(p[:-1] for p in _VENDOR_SHAPES if p.endswith(separator))
        words = "|".join(re.escape(p) for p in prefixes)
        sources.append(f"(?:{words})(?P<sep>{re.escape(separator)})[A-Za-z0-9]")
    return tuple(sources)


_VENDOR_TAIL: Final = lazy_compile(r"[A-Za-z0-9_.+/=-]*")


def _vendor(text: str, match: re.Match[str]) -> Span | None:
    """A separator after a known vendor prefix (see :data:`_VENDOR_SHAPES`), or one of the
    patterns with a literal prefix of their own."""
    start, end = match.span()
    group = match.lastgroup
    if group == "bot":
        return _discord_bot(text, start)
    if group == "teams":  # https://<tenant>.webhook.office.com/webhookb2/...
        left = start
        while left > 0 and (text[left - 1].isalnum() or text[left - 1] == "-"):
            left -= 1
        if text.endswith("https://", 0, left):
            left -= len("https://")
        return left, end
    if group in _WIDENED:
        width = _WIDENED[group]
        return None if not looks_random(text[start - width : end]) else (start - width, end)
    if group == "airtable":
        left = start - 17
        glued = left > 0 and (text[left - 1].isalnum() or text[left - 1] in "_]")
        return None if glued or not looks_random(text[left:end]) else (left, end)
    if group != "sep":
        value = text[start:end]
        return (start, end) if looks_random(value) else None
    start = match.start("sep")
    run = _VENDOR_TAIL.match(text, start)
    tail = run.end() if run is not None else start
    # The prefix may be glued to what precedes it (tok<token>, %3D<token>, \n<token>): each
    # known prefix length is tried, longest first; the shape after it decides.
    for length in _VENDOR_PREFIX_LENGTHS:
        left = start + 1 - length
        if left < 0:
            continue
        shape = _VENDOR_SHAPES.get(text[left : start + 1])
        if shape is None:
            continue
        token = shape.match(text, left, tail)
        if token is None or not looks_random(token.group()):
            continue
        stop = token.end()
        if stop < len(text) and (text[stop].isalnum() or text[stop] == "_"):
            continue
        body = token.group()[length:]
        if left > 0 and text[left - 1].isalnum() and length <= 4 and _HEX_BODY.fullmatch(body):
            word_start = max(text.rfind(" ", 0, left), text.rfind("\n", 0, left)) + 1
            if "/" in text[word_start:left]:
                continue  # .../Nerdz-Ng-pubblico-<md5>: a slug and a hash in a URL's path
        return left, stop
    return None


_HEX_BODY: Final = lazy_compile(r"[0-9a-f]+")


# OpenAI's documented shapes: a project, service-account or admin key, or a key with the
# T3BlbkFJ marker in it. "sk-" glued to a word (risk-, task-) must have one of them.
_OPENAI_SHAPE: Final = lazy_compile(
    r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9_-]*T3BlbkFJ[A-Za-z0-9_-]*"
    r"|[A-Za-z0-9]{48})"
)


def _openai(text: str, match: re.Match[str]) -> Span | None:
    """An OpenAI key: any random-looking sk- token on its own, a documented shape if glued."""
    start, end = match.span()
    value = text[start:end]
    if not looks_random(value):
        return None
    glued_to_word = start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")
    if glued_to_word and _OPENAI_SHAPE.fullmatch(value) is None:
        return None
    return start, end


def _fixed_left(width: int) -> Selector:
    """The match widened ``width`` characters to the left (a look-behind checked them)."""

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span()
        value = text[start - width : end]
        return (start - width, end) if looks_random(value) else None

    return select


# Tokens found from a literal in their middle or end: how far they reach left of it.
_WIDENED: Final = {"azure": 4, "maxmind": 36, "atlas": 14}

_DISCORD_BOT: Final = lazy_compile(
    r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])"
)


def _discord_bot(text: str, dot: int) -> Span | None:
    """A Discord bot token whose first dot is at ``dot``: its id part is base64 of digits."""
    for width in (26, 25, 24):  # the widest id first: the token may be glued to a word
        left = dot - width
        if left < 0:
            continue
        token = _DISCORD_BOT.match(text, left)
        if token is not None and looks_random(token.group()):
            return left, token.end()
    return None


# The local part before "@", read backwards from the "@": runs of letters, digits, _ % +
# joined by single "." or "-", 64 characters at most.
_LOCAL_PART_REVERSED: Final = lazy_compile(r"[A-Za-z0-9_%+]+(?:[.-][A-Za-z0-9_%+]+)*")
_LOCAL_PART_MOST: Final = 64
_IMAGE_SUFFIXES: Final = ("png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp")
_CODE_SUFFIXES: Final = ("css", "js", "jsx", "mjs", "ts", "tsx", "json", "lock", "yaml", "yml")
_FILE_SUFFIXES: Final = frozenset((*_IMAGE_SUFFIXES, *_CODE_SUFFIXES, "toml", "txt"))


def _email(text: str, match: re.Match[str]) -> Span | None:
    """Extend an ``@domain`` match to the left over the local part.

    Not an address: ``icon@2x.png`` (a file name), ``ssh://git@host`` (a URL's user name);
    ``git@github.com:org/repo`` is excluded by the pattern itself.
    """
    at = match.start()
    local = _LOCAL_PART_REVERSED.match(text[max(0, at - _LOCAL_PART_MOST) : at][::-1])
    if local is None:
        return None
    start = at - local.end()
    if match.group("tld").lower() in _FILE_SUFFIXES:
        return None
    if text.endswith("//", 0, start):  # ssh://git@host/...: a URL's user name, not an address
        return None
    line = text.rfind("\n", 0, start) + 1
    if _REMOTE_LOGIN.search(text, line, start) is not None:  # ssh -p 22 deploy@build.example.com
        return None
    return start, match.end()


# A command that takes user@host: what follows it on the line is a login, not an address.
_REMOTE_LOGIN: Final = lazy_compile(
    r"(?m)(?:^|[\s;&|(])(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id)[ \t]"
)


_COUNTED: Final = lazy_compile(
    r" (?:[a-z]{2,}s|passed|failed|skipped|total|of|ok|per|[nuµm]?s|[kmgt]i?b)\b"
)
_TALLIED: Final = lazy_compile(
    r" (?:items|files|tests|lines|rows|records|bytes|entries|runs|passed|failed|skipped)\b"
)


def _counted(text: str, candidate: str, end: int) -> bool:
    """Digit groups followed by a plural, a unit or a tally word are counts (``719 512 8135
    tests passed``, ``took 812 412 5521 ns``), not a phone number; with dashes between the
    groups, only before a word that counts things (``555-123-4567 items``)."""
    if any(sep in candidate for sep in ".()"):
        return False
    if "-" in candidate:
        return _TALLIED.match(text, end) is not None
    return _COUNTED.match(text, end) is not None


def _phone(text: str, match: re.Match[str]) -> Span | None:
    kind = match.lastgroup
    start, end = match.span()
    candidate = text[start:end]
    if kind == "intl":
        return (start, end) if phone_digit_count_ok(candidate, 8, 15) else None
    if kind == "nanp":
        if _counted(text, candidate, end):
            return None
        return start, end
    if kind == "trunk" and phone_digit_count_ok(candidate, 10, 11):
        return None if beside_hex_group(text, start, end) else (start, end)
    return None


def _card(text: str, match: re.Match[str]) -> Span | None:
    kind = match.lastgroup
    if kind not in ("card_grouped", "card_compact"):
        return None
    start, end = match.span()
    if not is_card_number(text[start:end]):
        return None
    if kind == "card_grouped" and beside_hex_group(text, start, end):
        return None
    return start, end


# ---------------------------------------------------------------------------------- patterns


_after = after  # the prefix stands apart from a word, or after an escaped separator


# A token is glued to what precedes it when that is a word character, or the "]" that ends
# an earlier replacement: so redacting redacted text finds nothing new.
_W = r"[A-Za-z0-9_\]]"
_WD = r"[A-Za-z0-9_\]-]"

# Assignment grammar, on lower-cased text: key end (a closing quote, and "]" only after a
# quote as in data["api_key"]), separator, quoted or bare value.
_KEY_END = (
    # A numbered name: token1 =, password_2:, secret-3=.
    r"""(?:(?:[_-]?[0-9]{1,2})?(?:\\{0,8}["']\]?|%22)?"""
    # A typed declaration of a string: var token string = "...", token: String = "...",
    # token: &str = "..." (a space before "=", a quote after it).
    r"""(?:(?:[ \t]*:[ \t]*|[ \t]+)&?[a-z_][a-z0-9_.]*(?:<[a-z0-9_, ]*>|\[\])?"""
    r"""(?=[ \t]+:?=[ \t]*["'`]))?"""
    r"""[ \t]*(?:=>|:{1,3}=|[.?]=|\?\?=|=(?![=~])|:(?!:)|%3d|%3a"""
    # Prose and notes: token - 'value' (a quote must follow: not a list or a subtraction).
    r"""|[ \t]+-(?=[ \t]+["'`])"""
    # A literal default after a name: process.env.API_KEY || "...", token ?? '...'.
    # Such a default must read as generated (credentials ?? 'same-origin' is a setting).
    r"""|[ \t]*(?P<default>\|\||\?\?)[ \t]*(?:\r?\n[ \t]*)?(?=["'`]))"""
    # A quoted key and a quoted value as two arguments: setProperty("API_TOKEN", "...").
    r"""|(?<=[a-z0-9_])\\{0,8}["'](?P<comma>[ \t]*,)(?=[ \t]*\\{0,8}["']))[ \t]*"""
)
_VALUE = (
    # YAML: a block scalar (key: |, key: >-) or a plain value on the next, indented line.
    r"""(?:(?P<b>[|>][+-]?[0-9]?)?[ \t]*\r?\n[ \t]+(?P<y>[^\s#"'`-][^\r\n]{0,511})"""
    r"""|(?P<e>["'`])(?P<w>(?:\\[^\r\n]|(?!(?P=e))[^\\\r\n]){1,4096})(?P=e)"""
    r"""|\\{0,8}(?P<q>["'])(?P<v>(?:(?!(?P=q))[^\\\r\n]){1,512})\\{0,8}(?P=q)"""
    r"""|(?P<u>(?:[^\s"'`,;&<>(){}\[\]\\]|&(?![&\s]|[a-z_][a-z0-9_]*=)){1,512})"""
    # A quoted value whose closing quote never comes: the rest of the line.
    r"""|\\{0,8}(?P<o>["'`])(?P<t>[^\s"'`\\]{4,4096})(?=[ \t]*(?:[\r\n]|\\[nr]|$)))"""
)
_KEY_PREFIXES = (
    "api",
    "access",
    "private",
    "encryption",
    "signing",
    "master",
    "subscription",
    "client",
    "auth",
)
_KEY_WORD = (
    "key(?:" + "|".join(f"(?<={p}{s}key)" for p in _KEY_PREFIXES for s in ("_", "-", "")) + ")"
)
_ASSIGNMENT_KEYS = (
    "pass(?:word|wd|phrase|code)",
    # Short key names stand apart from a longer word (passenger, bypass, authority).
    # (not openssl's -passin pass:X, which cli_password reads)
    _after("pass", 4, "[a-z0-9]") + "(?<!-pass pass)(?<!-passin pass)(?<!-passout pass)(?:w)?",
    _after("pswd", 4, "[a-z0-9]"),
    _after("psw", 3, "[a-z0-9]"),
    _after("pwd", 3, "[a-z]"),
    _after("pw", 2, "[a-z]"),
    r"secret(?:[_-]?(?:access[_-]?)?key(?:[_-]?base)?)?",
    "token",
    "accountkey",
    "sharedaccesskey",
    _after("credential", 10, "[a-z]") + "s?",
    # Names that may hold other things too (auth: required): their value must look generated.
    "(?P<weak>"
    + _after("auth", 4, "[a-z0-9]")
    + "|"
    + _after("creds", 5, "[a-z0-9]")
    + "|"
    + _after("cred", 4, "[a-z0-9]")
    + ")",
    _KEY_WORD,
    # Any other name ending in "key" or "auth" (braintreeKey, commodities_key, Using Key=,
    # beeboleAuth): the value
    # must read as random (see reads_as_key), as a key's does and a setting's does not.
    "(?P<generic>key|auth)",
)

ASSIGNMENT_KEY: Final = "(?:" + "|".join(_ASSIGNMENT_KEYS) + ")"
"""The key names ``credential_assignment`` reads (``password``, ``pw``, ``api_key``, ``auth``
...), as one pattern for lower-cased text: how the walker knows a dict key is one of them."""

# A key block is longer than a token: a PGP secret key of 4096 bits takes about 7,000
# characters. A key block's body never holds a run of five dashes (that is the next BEGIN or
# END line), so one attempt reads no further than the next such line.
_KEY_REACH: Final = 65_536
_PEM_LABEL = r"[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
# Base64 lines, header lines (Proc-Type: 4,ENCRYPTED) and \n escapes, as in JSON key files.
# Lines may carry a prefix or a suffix: quoted mail (> ), comments (# ; *), string literals
# ("...\n"), table bars, <br> tags.
_PEM_BODY = r"(?:[A-Za-z0-9+/=\s\\:,.>#|\"'*;<]|-(?!----))"

# Phone numbers and card numbers, scanned in one pass. The pattern starts with a character
# class (``[0-9+(]``) so the engine skips other text quickly; the look-behinds after it check
# that this first character stands apart from a longer token (not after a letter, digit,
# ``_ . + / -`` or a ``12:`` time), and each branch checks with a look-behind which character
# that was. The end is checked likewise, so digits inside hashes, UUIDs, versions, paths and
# timestamps never match.
_DIGIT_SHAPES = r"""
[0-9+(](?<![A-Za-z0-9_.+/\]-].)(?<![0-9]:.)
(?:
    (?<=\+)(?P<intl>
        [1-9][0-9]{0,2}(?:[ .-]?\([0-9]{1,4}\)[ .-]?|[ .-])[0-9]{1,12}(?:[ .-][0-9]{1,12}){0,5}
      | [1-9][0-9]{7,14})
  | (?<=[0-9])(?P<card_grouped>[0-9]{3}(?P<cs>[ -])
        (?:[0-9]{4}(?P=cs)[0-9]{4}(?P=cs)[0-9]{4}(?:(?P=cs)?[0-9]{3})?|[0-9]{6}(?P=cs)[0-9]{4,5}))
  | (?<=[0-9])(?P<card_compact>[0-9]{12,18}+)
  | (?P<nanp>
        (?<=\()[2-9][0-9]{2}\)[ ]?[2-9][0-9]{2}[ .-][0-9]{4}
      | (?<=1)[ .-]?
        (?:\([2-9][0-9]{2}\)[ ]?[2-9][0-9]{2}[ .-]|[2-9][0-9]{2}(?P<ns1>[ .-])[2-9][0-9]{2}(?P=ns1))
        [0-9]{4}
      | (?<=[2-9])[0-9]{2}(?P<ns>[ .-])[2-9][0-9]{2}(?P=ns)[0-9]{4})
  | (?<=0)(?P<trunk>[1-9][0-9]{0,3}(?P<ts>[ .-])[0-9]{2,8}(?:(?P=ts)[0-9]{2,8}){0,3})
)
(?![A-Za-z0-9_+\[]|[.:/-][A-Za-z0-9\[])
"""


_BOUNDED: Final = BoundedMemo()
"""The bounded sources of the rules below, read from the disk cache (:mod:`.bounded_memo`)."""


def _compile(*sources: str, flags: int = 0, reach: int = TOKEN_REACH) -> tuple[PatternLike, ...]:
    """The patterns, each repeat bounded by ``reach`` (:mod:`.bounded`): one attempt at a
    trigger reads a bounded stretch of text, so a scan is linear in the text's length. Each is
    compiled the first time it is used (:mod:`.lazy`)."""
    verbose = bool(flags & re.VERBOSE)
    gap = min(reach, GAP_REACH) if reach == TOKEN_REACH else reach
    return tuple(
        lazy_compile(_BOUNDED.bounded(source, reach, gap, verbose=verbose), flags)
        for source in sources
    )


def _rule(
    name: str,
    category: Category,
    summary: str,
    sources: tuple[str, ...],
    select: Selector,
    *,
    lowered: bool = False,
    reach: int = TOKEN_REACH,
) -> Rule:
    return Rule(
        name=name,
        category=category,
        summary=summary,
        patterns=_compile(*sources, reach=reach),
        select=select,
        lowered=lowered,
        ignorecase=_compile(*sources, flags=re.IGNORECASE, reach=reach) if lowered else (),
    )


_DIGIT_PATTERN: Final = _compile(_DIGIT_SHAPES, flags=re.VERBOSE)

# Where a match of _DIGIT_SHAPES can start: after a character that does not glue it to a
# longer token, the first characters of one of its branches (back-references relaxed to the
# class they repeat, optional parts spelt out), each with its width. Most digits, in hashes,
# timestamps, counts and ids, start none of them.
_DIGIT_BEFORE = r"[^A-Za-z0-9_.+/\]\-]"
_DIGIT_STARTS: Final = tuple(
    (_DIGIT_BEFORE + shape, width)
    for shape, width in (
        (r"\+[1-9]", 2),  # intl
        (r"[0-9]{4}[ \-][0-9]{4}", 9),  # card_grouped
        (r"[0-9]{13}", 13),  # card_compact
        (r"\([2-9][0-9]{2}\)", 5),  # nanp: (555) 123-4567
        (r"1\([2-9]", 3),  # nanp: 1(555) ...
        (r"1[ .\-]\([2-9]", 4),
        (r"1[2-9][0-9]{2}[ .\-]", 5),  # nanp: 1555-123-4567
        (r"1[ .\-][2-9][0-9]{2}[ .\-]", 6),
        (r"[2-9][0-9]{2}[ .\-][2-9][0-9]{2}[ .\-][0-9]{4}", 12),  # nanp: 555-123-4567
        (r"0[1-9][ .\-][0-9]{2}", 5),  # trunk: 020 7946 0958
        (r"0[1-9][0-9][ .\-][0-9]{2}", 6),
        (r"0[1-9][0-9]{2}[ .\-][0-9]{2}", 7),
        (r"0[1-9][0-9]{3}[ .\-][0-9]{2}", 8),
    )
)

# The scanners of text recovered from inside a match (decoded blobs, joined fragments), built
# from the rules below when first used: every secret rule but the recovering ones (so
# recovered text is decoded once, never again), and the rules of whole tokens.
_SECRETS_FOUND: Final = Finder(
    lambda: [r for r in BUILTIN_RULES if r.category == "secret" and r.name not in RECOVERING_RULES]
)
_TOKENS_FOUND: Final = Finder(lambda: [r for r in BUILTIN_RULES if r.name in TOKEN_RULES])

_RULES: Final[tuple[Rule, ...]] = (
    _rule(
        "private_key",
        "secret",
        "PEM private key blocks (RSA, EC, DSA, OpenSSH, PKCS#8, PGP), also when truncated, "
        "and the private lines of PuTTY key files",
        (
            rf"-----BEGIN{_PEM_LABEL}(?:{_PEM_BODY}*?-----END{_PEM_LABEL}|{_PEM_BODY}{{16,}})",
            # Key material without its BEGIN line: the fixed start of a DER private key (PKCS#1
            # RSA, PKCS#8 RSA, EC and Ed25519, SEC1 EC) or of an OpenSSH key, in base64.
            r"(?:MII[A-Za-z0-9+/]{3}IBA(?:AKC|DANBgkqhkiG9w0BAQEFAASC)|MHcCAQEEI|MIGkAgEBBD"
            r"|MC4CAQAwBQYDK2Vw|MIGHAgEAMBMGByqGSM49|MIG2AgEAMBAGByqGSM49|b3BlbnNzaC1rZXktdjE)"
            # Base64 holds "=" only at its end: a run never reads past one.
            r"[A-Za-z0-9+/]{24,}(?:(?:\\r)?(?:\\n|\r?\n)[ \t]*[A-Za-z0-9+/]{16,})*={0,2}",
            # A PuTTY key file: its private lines and their MAC.
            r"Private-Lines:[ \t]*[0-9]+\r?\n(?:[A-Za-z0-9+/=]+\r?\n)+"
            r"(?:Private-(?:MAC|Hash):[ \t]*[0-9a-fA-F]+)?",
        ),
        _whole(_holds_key_material),
        reach=_KEY_REACH,
    ),
    Rule(
        name="split_token",
        category="secret",
        summary='tokens split by string concatenation ("ghp_ab" + "cd...", adjacent '
        "literals) or a line break",
        patterns=_compile(*split_patterns()),
        select=split_selector(_TOKENS_FOUND),
    ),
    _rule(
        "jwt",
        "secret",
        "JSON Web Tokens (eyJ... header and payload)",
        (glued("eyJ") + r"[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?",),
        _whole(_jwt),
    ),
    _rule(
        "aws_access_key_id",
        "secret",
        "AWS access key ids (AKIA, ASIA, ABIA, ACCA, A3T...)",
        # A word glued after the key (AKIA...EXAMPLEabc) does not hide it: the key is upper case.
        (glued("AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9]") + "[A-Z0-9]{16}(?![A-Z0-9])",),
        _token(_not_patterned),
    ),
    _rule(
        "aws_secret_access_key",
        "secret",
        "AWS secret access keys assigned to aws_secret_access_key / SecretAccessKey",
        tuple(
            key + _KEY_END + r"""(?:\\{0,8}["'])?(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])"""
            for key in (r"secret[_-]?access[_-]?key", r"aws[_-]?secret[_-]?key")
        ),
        _group("v"),
        lowered=True,
    ),
    _rule(
        "github_token",
        "secret",
        "GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
        (
            glued("ghp_|gho_|ghu_|ghs_|ghr_") + "[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])",
            glued("github_pat_") + "[A-Za-z0-9_]{22,244}(?![A-Za-z0-9_])",
        ),
        _token(_not_patterned),
    ),
    _rule(
        "gitlab_token",
        "secret",
        "GitLab personal access tokens (glpat-)",
        (glued("glpat-") + r"[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{9})?(?![A-Za-z0-9_-])",),
        _token(_not_patterned),
    ),
    _rule(
        "slack_token",
        "secret",
        "Slack tokens (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-, xapp-)",
        (
            glued("xoxb-|xoxp-|xoxo-|xoxs-|xoxe-") + "[0-9][A-Za-z0-9-]{9,250}(?![A-Za-z0-9_-])",
            glued("xoxa-|xoxr-") + "[A-Za-z0-9-]{10,250}(?![A-Za-z0-9_-])",
            glued("xapp-") + "[0-9]-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9_-])",
        ),
        _token(looks_random),
    ),
    _rule(
        "slack_webhook",
        "secret",
        "Slack incoming-webhook URLs",
        (
            r"(?:https://|http://|)hooks\.slack\.com/(?:services|workflows|triggers)/"
            r"[A-Za-z0-9_/+-]{20,}",
        ),
        _token(_not_patterned),
    ),
    _rule(
        "google_api_key",
        "secret",
        "Google API keys (AIza + 35 characters)",
        (glued("AIza") + "[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",),
        _token(_not_patterned),
    ),
    _rule(
        "stripe_key",
        "secret",
        "Stripe secret and restricted keys (sk_live_, sk_test_, rk_...) and webhook secrets",
        (
            glued("sk_(?:live|test|prod)_") + "[0-9A-Za-z]{10,247}(?![0-9A-Za-z_])",
            glued("rk_(?:live|test|prod)_") + "[0-9A-Za-z]{10,247}(?![0-9A-Za-z_])",
            glued("whsec_") + "[A-Za-z0-9]{32,}(?![A-Za-z0-9_])",
        ),
        _token(_not_patterned),
    ),
    _rule(
        "anthropic_api_key",
        "secret",
        "Anthropic API keys (sk-ant-...)",
        (glued("sk-ant-") + "[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])",),
        _token(looks_random),
    ),
    _rule(
        "openai_api_key",
        "secret",
        "OpenAI API keys (sk-..., sk-proj-..., sk-svcacct-..., sk-admin-...)",
        (glued("sk-") + "(?!ant-)[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])",),
        _openai,
    ),
    Rule(
        name="vendor_token",
        category="secret",
        summary="other vendors' API tokens by their documented prefixes: npm, Hugging Face, "
        "SendGrid, PyPI, DigitalOcean, Shopify, GitLab (deploy, runner, feed ...), Twilio, "
        "Mailgun, Linear, Doppler, Databricks, Grafana, Pulumi, Postman, Sentry, Vault, age, "
        "Atlassian, Bitbucket Data Center, LangSmith, Square, Discord webhooks, Heroku, Fly.io, "
        "Notion",
        patterns=_compile(
            # One scan per separator: the word before it says which vendor, if any.
            *_vendor_separators(),
            glued("AC|SK") + "[0-9a-f]{32}(?![A-Za-z0-9_])",
            _after("AC|SK", 2, _W) + "[0-9a-z]{32}(?![A-Za-z0-9_])",
            _after("AKC", 3, _W) + "(?=[A-Za-z0-9]*[a-z0-9])[A-Za-z0-9]{10,}(?![A-Za-z0-9_])",
            _after("AP[0-9A-F]", 3, _W) + "(?=[A-Za-z0-9]*[a-z0-9])[A-Za-z0-9]{8,}(?![A-Za-z0-9_])",
            glued("GR1348941") + "[A-Za-z0-9_-]{20,50}(?![A-Za-z0-9_-])",
            # Found from a dot, in one scan: a Discord bot token (base64 of the user id, a
            # 6-character stamp and the HMAC; the dot before the stamp, see _discord_bot), or an
            # Airtable personal access token (pat, 14 characters, a dot, 64 hex digits; "pat"
            # alone is too common a trigger: path, compat).
            r"\.(?:(?=[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27})(?<=[A-Za-z0-9_-]{24}\.)(?P<bot>)"
            r"|(?<=pat[A-Za-z0-9]{14}\.)[a-f0-9]{64}(?![A-Za-z0-9_])(?P<airtable>))",
            _after("EAAA", 4, _W) + "[A-Za-z0-9_-]{60}(?![A-Za-z0-9_-])",
            # Vendors' documented shapes with a literal prefix of their own.
            glued("s-s4t2(?:ud|af)-") + "[a-fA-F0-9]{64}(?![A-Za-z0-9_])",
            glued("LTAI") + "[A-Za-z0-9]{20}(?![A-Za-z0-9_])",
            glued("AKCp") + "[A-Za-z0-9]{69}(?![A-Za-z0-9_])",
            _after("cmVmd", 5, _W) + "[A-Za-z0-9]{59}(?![A-Za-z0-9_+/=])",
            _after("4b1d", 4, _W) + "(?![a-f0-9]{38})[A-Za-z0-9]{38}(?![A-Za-z0-9_])",
            glued("EZAK|EZTK") + "[A-Za-z0-9]{54}(?![A-Za-z0-9_])",
            _after("EAA[MC]", 4, _W) + "[A-Za-z0-9]{100,}(?![A-Za-z0-9_+/=])",
            _after("ABSK", 4, _W) + "[A-Za-z0-9+/]{109,269}={0,2}(?![A-Za-z0-9_+/=])",
            glued("eyJrIjoi") + "[A-Za-z0-9]{70,400}={0,3}(?![A-Za-z0-9_+/=])",
            glued("oy2") + "[a-z0-9]{43}(?![A-Za-z0-9_])",
            glued("sha256~") + "[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
            glued("sc_|ext_|scauth_|authress_")
            + r"[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}"
            r"\.[A-Za-z0-9+/_=-]{30,120}(?![A-Za-z0-9_+/=-])",
            # Azure AD client secrets (xxx8Q~...), MaxMind license keys (..._mmk), Terraform
            # Cloud tokens (....atlasv1....): found from the literal inside them.
            r"Q~(?<=(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}[0-9]Q~)[A-Za-z0-9_~.-]{31,34}"
            r"(?![A-Za-z0-9_~.-])(?P<azure>)",
            r"_mmk(?<=(?<![A-Za-z0-9])[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?![A-Za-z0-9_])"
            r"(?P<maxmind>)",
            r"\.atlasv1\.(?<=(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_=-]{60,70}"
            r"(?![A-Za-z0-9_=-])(?P<atlas>)",
            r"\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{40,}(?P<teams>)",
            glued("dapi") + "[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9_])",
            glued("ATATT3") + "[A-Za-z0-9_=-]{100,}(?![A-Za-z0-9_=-])",
            r"https://(?:ptb\.|canary\.|)discord(?:app|)\.com/api/webhooks/[0-9]{17,20}/"
            r"[A-Za-z0-9_-]{60,68}",
        ),
        select=_vendor,
    ),
    Rule(
        name="shaped_token",
        category="secret",
        summary="tokens of vendors nobody listed, by their shape: a short lower-case prefix "
        "and separator (gsk_, figd_, tskey-api-) before 32 or more random letters and digits",
        # One pattern per separator: a search for a literal character is fast, for a class
        # of two is not.
        patterns=_compile(
            r"_(?<=[a-z0-9]_)[A-Za-z0-9]{32,256}+(?![A-Za-z0-9_-])",
            r"-(?<=[a-z0-9]-)[A-Za-z0-9]{32,256}+(?![A-Za-z0-9_-])",
        ),
        select=_shaped_token,
    ),
    Rule(
        name="telegram_bot_token",
        category="secret",
        summary="Telegram bot tokens (bot id, :AA, 33 characters)",
        patterns=_compile(r":AA(?<=[0-9]{8}:AA)[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
        select=_extend_left("0123456789", 10, 8, after="bot"),
    ),
    Rule(
        name="mailchimp_api_key",
        category="secret",
        summary="Mailchimp API keys (32 hex characters, -us and the data centre)",
        patterns=_compile(r"-us(?<=[0-9a-f]{32}-us)[0-9]{1,2}(?![A-Za-z0-9_])"),
        select=_extend_left("0123456789abcdef", 32, 32),
    ),
    _rule(
        "netrc_password",
        "secret",
        ".netrc and similar 'password <value>' entries after machine / login",
        (_after("password", 8, "[a-z_-]") + r"""[ \t]+(?P<v>[^\s=:'"]+)""",),
        _netrc,
        lowered=True,
    ),
    _rule(
        "xml_secret",
        "secret",
        "XML elements that hold secrets: <password>, <secret>, <apiKey>, <token> ..., and any "
        "other tag ending in key or auth whose text reads as a generated key",
        (
            r"<(?P<tag>[a-z0-9_.:-]*(?:password|passwd|pwd|secret|api[_-]?key"
            r"|access[_-]?key|secret[_-]?key|token|access[_-]?token|auth[_-]?token"
            r"|client[_-]?secret|private[_-]?key|credentials?|key|auth)(?:[_-]?[0-9]{1,2})?)"
            r"(?:\s[^<>]*)?>"
            r"(?P<v>[^<>]{1,512})</(?P=tag)>",
        ),
        _xml_value,
        lowered=True,
    ),
    Rule(
        name="aws_key_pair",
        category="secret",
        summary="an AWS secret access key written near its access key id, without a key name",
        patterns=_compile(r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        select=_key_pair,
    ),
    _rule(
        "url_credentials",
        "secret",
        "the user:password in scheme://user:password@host URLs (the pair, whole)",
        # The password runs to the last @ of the authority (p@ss written unencoded); a user
        # part without one may be a token (https://<token>@github.com, a Sentry DSN).
        (r"""://(?P<v>[^\s:/?#@"'<>\[\]]{0,256}(?::[^\s/?#"'<>]{1,256})?)@""",),
        _url_pair,
    ),
    _rule(
        "instance_host",
        "secret",
        "an instance's address beside its credential: a URL, host or account name under an "
        "address key (endpoint, *_URL, *_HOST, AccountName), or a URL whose host reads as "
        "generated, when a credential is assigned within a few lines",
        host_patterns(),
        select_host,
        lowered=True,
    ),
    _rule(
        "auth_header",
        "secret",
        "Bearer tokens and Authorization: Basic credentials",
        (
            _after("bearer", 6, r"[a-z0-9_\]]")
            + r"[ \t]+(?P<v>[a-z0-9._~+/-]{16,}=*)(?![a-z0-9._~+/=-])",
            r"""authorization(?:\\{0,8}["'])?[ \t]*[:=][ \t]*(?:\\{0,8}["'])?basic[ \t]+"""
            r"(?P<v>[a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=])",
            # Any other scheme (token, SSWS, Token token=, GenieKey ...) or none at all.
            r"""authorization(?:\\{0,8}["'])?[ \t]*[:=][ \t]*(?:\\{0,8}["'])?"""
            r"(?!bearer[ \t]|basic[ \t])(?:[a-z][a-z0-9_.-]{0,30}[ \t]+(?:[a-z_]{1,20}=)?)?"
            r"(?P<v>[a-z0-9._~+/:-]{16,}=*)(?![a-z0-9._~+/=-])",
        ),
        _group("v", looks_random, bare=True),
        lowered=True,
    ),
    _rule(
        "docker_auth",
        "secret",
        "base64 user:password credentials: docker config auths, Basic auth values",
        (
            r"""auth(?:\\{0,8}["'])?[ \t]*[:=]?[ \t]*(?:\\{0,8}["'])?"""
            r"(?P<v>[a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=])",
            r"""basic[ \t]+(?P<v>[a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=])""",
        ),
        _base64_credentials,
        lowered=True,
    ),
    _rule(
        "credential_assignment",
        "secret",
        "password=, secret:, token=, api_key: style assignments (quoted, or bare values "
        "that are not code)",
        tuple(key + _KEY_END + _VALUE for key in _ASSIGNMENT_KEYS),
        _assignment,
        lowered=True,
    ),
    _rule(
        "paired_secret",
        "secret",
        "a value whose name is given in a field beside it: Kubernetes env (name: DB_PASSWORD, "
        "value: ...), {Key, Value} and ParameterKey / ParameterValue pairs, <add key=... "
        "value=...>, <entry key=...>",
        paired_patterns(),
        select_paired,
        lowered=True,
    ),
    _rule(
        "cli_password",
        "secret",
        "passwords on command lines: mysql -pX, --password X, curl -u user:X, sshpass -p X, "
        "docker login -p X, redis-cli -a X, openssl -pass pass:X, htpasswd -b",
        (
            r"(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport)\b[^\n|;&]*? -p"
            r"""(?P<v>'[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]*)""",
            r"""--pass(?:word|wd)?(?:=|[ \t]+)(?P<v>'[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]*)""",
            # user:password given to -u / --user (curl, wget, httpie): the pair, whole.
            r"""-u(?<![^\s;&|(]-u)(?:=|[ \t]*)(?P<pair>'[^'\n]*:[^'\n]*'"""
            r"""|"[^"\n]*:[^"\n]*"|[^\s'"-][^\s:]*:[^\s]*)""",
            r"""--user(?<![^\s;&|(]--user)(?:=|[ \t]+)(?P<pair>'[^'\n]*:[^'\n]*'"""
            r"""|"[^"\n]*:[^"\n]*"|[^\s'"-][^\s:]*:[^\s]*)""",
            # httpie's and xh's -a / --auth user:password, the pair whole. The program's
            # name is followed by a blank: a URL's scheme (http://) fails at once.
            r"(?:http|https|httpie|xh|xhs)(?=[ \t])[^\n|;&]*?[ \t](?:-a|--auth)(?:=|[ \t]+)"
            r"""(?P<pair>'[^'\n]*:[^'\n]*'|"[^"\n]*:[^"\n]*"|[^\s'"-][^\s:]*:[^\s]*)""",
            # user:password@host given to ssh and its kin, as a URL without its scheme.
            r"(?:ssh|scp|sftp|sshfs|rsync|telnet|ftp|lftp)\b[^\n|;&]*?[ \t]['\"]?"
            r"[A-Za-z0-9._-]+:(?P<v>[^\s@/:'\"]+)@[A-Za-z0-9.-]+",
            *(
                tool
                + r"""\b(?:[^\n|;&\\]|\\\n|\\(?!\n))*?[ \t]"""
                + flag
                + r"""[ \t]*(?P<v>'[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]*)"""
                for tool, flag in (
                    ("sshpass", "-p"),
                    ("docker[ \t]+login", "-p"),
                    ("mongo[a-z]*", "-p"),
                    ("redis-cli", "-a"),
                    ("ssh-keygen", "-[NP]"),
                    ("openssl", "-k(?=[ \\t])"),
                    ("twine", "-p"),
                )
            ),
            r"""-pass(?:in|out)?[ \t]+(?:pass|env):(?P<v>[^\s'"]+)""",
            # Samba's user%password: smbclient -U 'DOMAIN\user%password'.
            r"(?:smbclient|rpcclient|smbmap|smbget|smbcacls|net)\b[^\n|;&]*?[ \t](?:-U|--user=)"
            r"""[ \t]*['"]?[^\s'"%]+%(?P<v>[^\s'"]+)""",
            # Oracle's user/password@database: sqlplus scott/tiger@db, jdbc:oracle:thin:u/p@h.
            r"(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)\b(?:[ \t]+-[A-Za-z]+)*[ \t]+"
            r"""['"]?[A-Za-z0-9_$#]+/(?P<v>[^\s@/'"]+)(?=@|['"]?(?:\s|$))""",
            r"""jdbc:oracle:[a-z]+:@?[A-Za-z0-9_$#]+/(?P<v>[^\s@/'"]+)@""",
            # Windows' net use \\host\share /user:NAME PASSWORD; vault login TOKEN.
            r"""net[ \t]+use\b[^\n|;&]*?[ \t]/user:\S+[ \t]+(?P<v>[^\s/'"=-][^\s'"=]*)""",
            r"vault[ \t]+login(?:[ \t]+-[a-z-]+(?:=\S+)?)*[ \t]+(?P<v>[^\s'\"=-][^\s'\"=]{11,})",
            r"""htpasswd\b(?=[^\n]*[ \t]-[a-zA-Z]*b)(?:[ \t]+-[a-zA-Z]+)*[ \t]+[^\s-]\S*"""
            r"""[ \t]+[^\s-]\S*[ \t]+"""
            r"""(?P<v>'[^'\n]+'|"[^"\n]+"|[^\s'"]+)""",
        ),
        _cli_password,
    ),
    _rule(
        "cli_credential",
        "secret",
        "credentials given as named command-line options: --token V, --api-key=V, "
        "-storepass V, aws configure set aws_secret_access_key V, mysql -p V",
        (
            # --token V, --db-password=V: found from the name, the "--" checked by the selector.
            "(?P<k>"
            + "|".join(f"{name}(?<=[-_.]{name})" for name in _LONG_OPTION_NAMES)
            + r")(?P<long>)(?:=|[ \t]+)"
            + _CLI_VALUE,
            # Single-dash options of keytool, jarsigner, PowerShell and kin.
            "(?:"
            + "|".join(f"-{name}(?<![\\w-]-{name})" for name in _SINGLE_DASH_NAMES)
            + r")(?P<k>)[ \t]+"
            + _CLI_VALUE,
            r"config(?:ure)?[ \t]+set[ \t]+(?:-[a-z-]+[ \t]+)*(?P<k>[^\s=]*"
            r"(?:secret|token|password|passwd|pwd|auth|key|credential)[^\s=]*)[ \t]+" + _CLI_VALUE,
            r"secret[ \t]+set[ \t]+\S+[ \t]+(?:--body|-b)[ \t]+" + _CLI_VALUE,
            r"(?:mysql[a-z]*|mariadb|mongo[a-z]*|sshpass|sqlcmd|bcp|ldap[a-z]+|zip|7z"
            r"|az[ \t]+login)"
            r"\b(?:[^\n|;&\\]|\\\n)*?[ \t]-(?P<s>[pw])[ \t]+" + _CLI_VALUE,
        ),
        _cli_named,
        lowered=True,
    ),
    Rule(
        name="encoded_secret",
        category="secret",
        summary="base64, base64url, hex and percent-encoded runs whose decoded text holds a "
        "secret (decoded once, runs of 16 to 8192 characters), replaced whole",
        patterns=_compile(*encoded_patterns()),
        select=encoded_selector(_SECRETS_FOUND),
    ),
    _rule(
        "prose_password",
        "secret",
        "passwords, keys and tokens given in prose: 'the password is X', 'passcode was X', "
        "'your API key is X', 'the token to test the API: X'",
        (
            r"pass(?:word|code|phrase)s?(?:[ \t]+(?:for|to|on|of)[ \t]+(?:the[ \t]+)?[^\s]{1,40})?"
            r"[ \t]+(?:is|was|will be|should be)[ \t]+['\"]?"
            r"""(?P<v>[^\s'")]{4,128})""",
            # A key or token a sentence gives: "your API key is X", "the token to test the
            # API: X". The value must read as a generated key (see _prose).
            r"(?:key|token|secret)s?(?P<keyed>)"
            r"(?:[ \t]+(?:for|to|on|of)(?:[ \t]+[^\s:]{1,40}){1,4})?"
            r"(?:[ \t]+(?:is|was|will be|should be)[ \t]+|:[ \t]+)['\"]?"
            r"""(?P<v>[^\s'")]{12,512})""",
        ),
        _prose,
        lowered=True,
    ),
    Rule(
        name="random_token",
        category="secret",
        summary="a key written with nothing around it to name it: a run of 24 to 256 letters "
        "and digits, standing alone, that reads as random (digits and both cases, high "
        "entropy, not words, not in a path or after a hash's name), a run of 32 or more of one "
        "letter case and digits that reads as random base36 (not hex), or a run of 40 to 4,096 "
        "base64 characters with + or / that reads as random bytes (not base64 of text, not "
        "a digest, path, public key or certificate)",
        patterns=_compile(
            r"(?<![A-Za-z0-9_+/.\\-])[A-Za-z0-9+/]{24,4096}+={0,2}"
            r"(?![A-Za-z0-9_+/=\-]|\.[A-Za-z0-9])"
        ),
        select=_unnamed_key,
        starts=((r"[^A-Za-z0-9_+/.\\\-][A-Za-z0-9+/]{24}", 24),),
    ),
    _rule(
        "email",
        "pii",
        "email addresses",
        (
            r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?P<tld>[A-Za-z]{2,24})"
            r"(?![A-Za-z0-9_\[-]|:[A-Za-z0-9_~/\[])",
        ),
        _email,
    ),
    Rule(
        name="phone",
        category="pii",
        summary="phone numbers: +country code, (555) 123-4567, 555-123-4567, 020 7946 0958",
        patterns=_DIGIT_PATTERN,
        select=_phone,
        starts=_DIGIT_STARTS,
    ),
    Rule(
        name="payment_card",
        category="pii",
        summary="payment card numbers with a card network prefix that pass the Luhn check",
        patterns=_DIGIT_PATTERN,
        select=_card,
        starts=_DIGIT_STARTS,
    ),
)

# A file name with a hash in it (video_box.ico-7a38...0aab0c.png), not a token.
_FILE_SUFFIX: Final = lazy_compile(
    r"\.(?:png|jpe?g|gif|svg|webp|ico|css|js|mjs|map|html?|pdf|woff2?|ttf|eot)\b"
)


def _made_up_tokens_rejected(select: Selector) -> Selector:
    """``select``, rejecting tokens that are part of a file name (a hash before ``.png``).

    Tokens filled in with one character (``AKIAXXXXXXXXXXXXXXXX``) are still redacted: some
    test data counts them as secrets, and a leak costs more than a masked placeholder."""

    def wrapped(text: str, match: re.Match[str]) -> Span | None:
        span = select(text, match)
        if span is None:
            return None
        if _FILE_SUFFIX.match(text, span[1]):
            return None
        return span

    return wrapped


BUILTIN_RULES: Final[tuple[Rule, ...]] = tuple(
    dataclasses.replace(rule, select=_made_up_tokens_rejected(rule.select))
    if rule.name in TOKEN_RULES and rule.name != "private_key"
    else rule
    for rule in _RULES
)

_BOUNDED.store()  # every built-in pattern is bounded by now

_SECRETS = tuple(rule.name for rule in BUILTIN_RULES if rule.category == "secret")
_PII = tuple(rule.name for rule in BUILTIN_RULES if rule.category == "pii")

RULE_SETS: Final[Mapping[str, tuple[str, ...]]] = {
    "secrets": _SECRETS,
    "pii": _PII,
    "pii-basic": _PII,
    "all": _SECRETS + _PII,
}
"""Rule set name -> rule names. ``pii-basic`` is the name older bundles use for ``pii``."""


def custom_rule(name: str, pattern: re.Pattern[str]) -> Rule:
    """A rule from a bundle's regex: replaces group ``secret`` if the pattern has one."""
    select = _group("secret") if "secret" in pattern.groupindex else _whole()
    return Rule(
        name=name, category="custom", summary=pattern.pattern, patterns=(pattern,), select=select
    )
