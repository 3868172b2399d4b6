"""The built-in redaction rules and the rule sets that group them.

A :class:`Rule` is one or more precompiled patterns plus a selector that turns a match into the
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

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from .checks import (
    beside_hex_group,
    is_card_number,
    is_placeholder,
    is_plain_code_value,
    looks_random,
    phone_digit_count_ok,
)

__all__ = [
    "BUILTIN_RULES",
    "RULE_SETS",
    "Category",
    "Rule",
    "Selector",
    "Span",
    "custom_rule",
]

Span = tuple[int, int]
Selector = Callable[[str, "re.Match[str]"], "Span | None"]
Category = Literal["secret", "pii", "custom"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret or PII: how to find it and which part of a match to replace.

    ``patterns`` run on the text, or on ``text.lower()`` when ``lowered`` is set (so that
    ``PASSWORD=`` and ``password=`` are one literal; ``ignorecase`` holds the same patterns
    compiled case-insensitively for the rare text whose lower-case form changes length).
    ``select`` returns the span to replace, in the original text, or ``None`` to reject the
    match.
    """

    name: str
    category: Category
    summary: str
    patterns: tuple[re.Pattern[str], ...]
    select: Selector
    lowered: bool = False
    ignorecase: tuple[re.Pattern[str], ...] = ()


# ---------------------------------------------------------------------------------- selectors


def _whole(check: Callable[[str], bool] | None = None) -> Selector:
    """Select the whole match, optionally after ``check`` accepts its text."""

    def select(text: str, match: re.Match[str]) -> Span | None:
        start, end = match.span()
        if check is not None and not check(text[start:end]):
            return None
        return start, end

    return select


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
    if match.group("v") is not None:
        start, end = match.span("v")
        value = text[start:end]
        if not value.strip() or is_placeholder(value.strip()):
            return None
        return start, end
    start, end = match.span("u")
    end = _trim_period(text, start, end)
    value = text[start:end]
    if not value or value[0] == "$" or is_placeholder(value) or is_plain_code_value(value):
        return None
    if text[end : end + 1] in ("(", "["):  # token = b64encode(raw): a call, not a value
        return None
    return start, end


# The local part before "@": runs of letters, digits, _ % + joined by single "." or "-".
_LOCAL_PART: Final = re.compile(r"(?:[A-Za-z0-9_%+]+[.-])*[A-Za-z0-9_%+]+\Z")
_IMAGE_SUFFIXES: Final = ("png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp")
_CODE_SUFFIXES: Final = ("css", "js", "jsx", "mjs", "ts", "tsx", "json", "lock", "yaml", "yml")
_FILE_SUFFIXES: Final = frozenset((*_IMAGE_SUFFIXES, *_CODE_SUFFIXES, "toml", "txt"))


def _email(text: str, match: re.Match[str]) -> Span | None:
    """Extend an ``@domain`` match to the left over the local part.

    Not an address: ``icon@2x.png`` (a file name), ``ssh://git@host`` (a URL's user name);
    ``git@github.com:org/repo`` is excluded by the pattern itself.
    """
    at = match.start()
    local = _LOCAL_PART.search(text, max(0, at - 64), at)
    if local is None:
        return None
    start = local.start()
    if match.group("tld").lower() in _FILE_SUFFIXES:
        return None
    if text.endswith("//", 0, start):  # ssh://git@host/...: a URL's user name, not an address
        return None
    return start, match.end()


def _phone(text: str, match: re.Match[str]) -> Span | None:
    kind = match.lastgroup
    start, end = match.span()
    candidate = text[start:end]
    if kind == "intl":
        return (start, end) if phone_digit_count_ok(candidate, 8, 15) else None
    if kind == "nanp":
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


def _after(prefix: str, width: int, word: str) -> str:
    """``prefix`` followed by a look-behind: the character before the prefix is not ``word``.

    Putting the look-behind after the literal keeps the literal at the start of the pattern,
    where the regex engine searches for it quickly.
    """
    return f"(?:{prefix})(?<!{word}.{{{width}}})"


# A token is glued to what precedes it when that is a word character, or the "]" that ends
# an earlier replacement: so redacting redacted text finds nothing new.
_W = r"[A-Za-z0-9_\]]"
_WD = r"[A-Za-z0-9_\]-]"

# Assignment grammar, on lower-cased text: key end (a closing quote, and "]" only after a
# quote as in data["api_key"]), separator, quoted or bare value.
_KEY_END = r"""(?:\\{0,8}["']\]?)?[ \t]*(?:=>|:=|=(?![=~])|:(?!:))[ \t]*"""
_VALUE = (
    r"""(?:\\{0,8}(?P<q>["'])(?P<v>(?:(?!(?P=q))[^\\\r\n]){1,512})\\{0,8}(?P=q)"""
    r"""|(?P<u>[^\s"'`,;&<>(){}\[\]\\]{1,512}))"""
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
    "pass(?:word|wd|phrase)",
    r"secret(?:[_-]?(?:access[_-]?)?key)?",
    "token",
    _KEY_WORD,
)

_PEM_LABEL = r"[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
# Base64 lines, header lines (Proc-Type: 4,ENCRYPTED) and \n escapes, as in JSON key files.
_PEM_BODY = r"[A-Za-z0-9+/=\s\\:,.-]"

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


def _compile(*sources: str, flags: int = 0) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(source, flags) for source in sources)


def _rule(
    name: str,
    category: Category,
    summary: str,
    sources: tuple[str, ...],
    select: Selector,
    *,
    lowered: bool = False,
) -> Rule:
    return Rule(
        name=name,
        category=category,
        summary=summary,
        patterns=_compile(*sources),
        select=select,
        lowered=lowered,
        ignorecase=_compile(*sources, flags=re.IGNORECASE) if lowered else (),
    )


_DIGIT_PATTERN: Final = _compile(_DIGIT_SHAPES, flags=re.VERBOSE)

BUILTIN_RULES: Final[tuple[Rule, ...]] = (
    _rule(
        "private_key",
        "secret",
        "PEM private key blocks (RSA, EC, DSA, OpenSSH, PKCS#8, PGP), also when truncated",
        (rf"-----BEGIN{_PEM_LABEL}(?:{_PEM_BODY}*?-----END{_PEM_LABEL}|{_PEM_BODY}{{16,}})",),
        _whole(),
    ),
    _rule(
        "jwt",
        "secret",
        "JSON Web Tokens (eyJ... header and payload)",
        (_after("eyJ", 3, _WD) + r"[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",),
        _whole(),
    ),
    _rule(
        "aws_access_key_id",
        "secret",
        "AWS access key ids (AKIA, ASIA, ABIA, ACCA, A3T...)",
        (
            _after("AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9]", 4, r"[A-Za-z0-9\]]")
            + "[A-Z0-9]{16}(?![A-Za-z0-9])",
        ),
        _whole(),
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
            _after("gh[pousr]_", 4, _W) + "[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])",
            _after("github_pat_", 11, _W) + "[A-Za-z0-9_]{22,244}(?![A-Za-z0-9_])",
        ),
        _whole(),
    ),
    _rule(
        "gitlab_token",
        "secret",
        "GitLab personal access tokens (glpat-)",
        (_after("glpat-", 6, _WD) + "[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])",),
        _whole(),
    ),
    _rule(
        "slack_token",
        "secret",
        "Slack tokens (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-, xapp-)",
        (
            _after("xox[abposre]-", 5, _WD) + "[A-Za-z0-9-]{10,250}(?![A-Za-z0-9_-])",
            _after("xapp-", 5, _WD) + "[0-9]-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9_-])",
        ),
        _whole(looks_random),
    ),
    _rule(
        "slack_webhook",
        "secret",
        "Slack incoming-webhook URLs",
        (r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",),
        _whole(),
    ),
    _rule(
        "google_api_key",
        "secret",
        "Google API keys (AIza + 35 characters)",
        (_after("AIza", 4, _WD) + "[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",),
        _whole(),
    ),
    _rule(
        "stripe_key",
        "secret",
        "Stripe secret and restricted keys (sk_live_, sk_test_, rk_...) and webhook secrets",
        (
            _after("sk_(?:live|test)_", 8, _W) + "[0-9A-Za-z]{16,247}(?![0-9A-Za-z_])",
            _after("rk_(?:live|test)_", 8, _W) + "[0-9A-Za-z]{16,247}(?![0-9A-Za-z_])",
            _after("whsec_", 6, _W) + "[A-Za-z0-9]{32,}(?![A-Za-z0-9_])",
        ),
        _whole(),
    ),
    _rule(
        "anthropic_api_key",
        "secret",
        "Anthropic API keys (sk-ant-...)",
        (_after("sk-ant-", 7, _WD) + "[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])",),
        _whole(looks_random),
    ),
    _rule(
        "openai_api_key",
        "secret",
        "OpenAI API keys (sk-..., sk-proj-..., sk-svcacct-..., sk-admin-...)",
        (_after("sk-", 3, _WD) + "(?!ant-)[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])",),
        _whole(looks_random),
    ),
    _rule(
        "url_credentials",
        "secret",
        "the password in scheme://user:password@host URLs",
        (r"""://[^\s:/?#@"'<>\[\]]{0,256}:(?P<v>[^\s/?#@"'<>]{1,256})@""",),
        _group("v"),
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
        ),
        _group("v", looks_random, bare=True),
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
    ),
    Rule(
        name="payment_card",
        category="pii",
        summary="payment card numbers with a card network prefix that pass the Luhn check",
        patterns=_DIGIT_PATTERN,
        select=_card,
    ),
)

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
