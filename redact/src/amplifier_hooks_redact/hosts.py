"""An instance's address written beside its credential.

A key alone is of little use without the instance it opens: the Azure storage account's
name beside its account key, the API gateway's URL beside its subscription key, a search
service's or a function app's URL beside the key that calls it, a Couchbase cluster's
domain beside its password. The address is redacted when two things hold:

- it is named as an address or an account (a key ending in ``url``, ``uri``, ``endpoint``,
  ``host``, ``hostname``, ``domain``, ``server``, ``gateway``, ``account_name`` or
  ``storage_account``), or it is a URL whose first host label reads as generated
  (``https://dffe5e2teoezcct050ch-2au74tmls8jm1p.azure-api.net``);
- a credential is assigned a literal value within a few lines of it (``password:``,
  ``AccountKey``, ``<secret>``, ``api_key =``, ``SUBSCRIPTION_KEY=``).

An address that names no instance stays: ``localhost`` and loopback addresses, the
documentation domains (``example.com``, ``.test``, ``.invalid``), a registered domain
alone (``github.com``), a public service's host whose first label is a generic service
name (``api.openai.com``, ``www.``, ``git.``, ``smtp.``), placeholders (``$DB_HOST``,
``{{ host }}``, ``<host>``). Without a credential near it no address is touched.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Final

from .checks import is_patterned, is_placeholder
from .lazy import lazy_compile

__all__ = ["host_patterns", "select_host"]

# Key names that hold an address or an account's name, at the end of a longer name
# (GATEWAY_URL, azureURL, couchbase_domain, storageAccountName, "AccountName").
_ADDRESS_KEYS: Final = (
    r"(?:(?P<url>url|uri|endpoint|gateway)|host|hostname|domain|server"
    r"|(?P<account>account[_-]?name|storage[_-]?account))"
)
# A key's end, its separator and an optional opening quote: url=, "url": ", url := ",
# {"AccountName", "...": a quoted key and a quoted value as two arguments.
_SEPARATOR: Final = (
    r"""(?![a-z0-9])(?:\\{0,8}["'][ \t]*(?:,|:=|=>|=(?!=)|:(?!:))"""
    r"""|[ \t]*(?::=|=>|=(?![=~])|:(?![:/]))"""
    # A literal default: process.env.ACCOUNT_NAME || "...".
    r"""|[ \t]*(?:\|\||\?\?)[ \t]*(?:\r?\n[ \t]*)?(?=["'`]))[ \t]*(?:\\{0,8}["'`])?"""
)
_VALUE: Final = r"""(?P<v>[^\s"'`,;<>(){}\[\]\\|]{3,512})"""


def host_patterns() -> tuple[str, ...]:
    """On lower-cased text: an address key and its value; a URL after ``://``."""
    return (
        _ADDRESS_KEYS + _SEPARATOR + _VALUE,
        r"://(?P<g>[a-z0-9-]{12,63})\.[a-z0-9.-]{3,253}(?P<p>[/?#][^\s\"'`<>(){}\[\]\\|]*)?",
    )


# Hosts that name no instance: loopback, unspecified, documentation and reserved names.
_NO_INSTANCE: Final = lazy_compile(
    r"(?:localhost|127(?:\.[0-9]{1,3}){3}|0\.0\.0\.0|::1?|host\.docker\.internal"
    r"|(?:[a-z0-9-]+\.)*(?:example\.(?:com|org|net)|localhost|test|example|invalid|local))",
)
# First labels of a public service's host: api.vendor.com is the vendor's, not an instance.
_SERVICE_LABELS: Final = frozenset(
    {
        *("api", "apis", "www", "app", "apps", "auth", "login", "oauth", "sso", "id", "accounts"),
        *("graph", "hooks", "cdn", "static", "assets", "docs", "git", "gitlab", "github"),
        *("smtp", "mail", "imap", "pop", "mx", "ftp", "web", "portal", "console", "dashboard"),
        *("registry", "hub", "download", "downloads", "upload", "uploads", "status", "stream"),
        *("rest", "sandbox", "sso", "secure", "my", "m", "v1", "v2", "v3", "gateway", "edge"),
    }
)
_HOST: Final = lazy_compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9-]{1,63})*")
_IPV4: Final = lazy_compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")
_ACCOUNT: Final = lazy_compile(r"[a-z0-9][a-z0-9-]{2,62}")
# Account names that stand for none: defaults, nulls and words of code.
_NO_ACCOUNT: Final = frozenset(
    {
        *("default", "none", "null", "nil", "test", "name", "account", "accountname", "string"),
        *("true", "false", "undefined", "required", "optional", "env", "str", "value"),
    }
)


def _instance_host(host: str) -> bool:
    """Whether ``host`` (lower case, without port) names one instance of a service."""
    first = host.partition(".")[0]
    if first in _SERVICE_LABELS or first in _CODE_HEADS:
        return False  # api.vendor.com, www., this.options.host: the quick look first
    if not host or _NO_INSTANCE.fullmatch(host) is not None:
        return False
    if _IPV4.fullmatch(host) is not None:
        return True
    if _HOST.fullmatch(host) is None or "." not in host:
        return False
    labels = host.split(".")
    if len(labels) < 3 or not labels[-1].isalpha():
        return False  # github.com: a registered domain alone; 1.2.3: a version
    return labels[0] not in _SERVICE_LABELS and labels[0] not in _CODE_HEADS


# First names of an expression in code, not of a host: host: this.options.host.
_CODE_HEADS: Final = frozenset(
    {
        *("this", "self", "cls", "options", "opts", "config", "cfg", "conf", "settings"),
        *("process", "env", "os", "window", "document", "req", "res", "request", "response"),
        *("ctx", "context", "args", "params", "props", "state", "data", "init", "app", "module"),
    }
)


def _generated_label(label: str) -> bool:
    """A host label that reads as generated: 12 characters or more, letters and three digits
    or more, an entropy near that of random text of its length, not typed out."""
    digits = sum(map(str.isdigit, label))
    if digits < 3 or len(label) - digits - label.count("-") < 3 or is_patterned(label):
        return False
    counts: dict[str, int] = {}
    for char in label.lower():
        counts[char] = counts.get(char, 0) + 1
    size = len(label)
    entropy = -sum(n / size * math.log2(n / size) for n in counts.values())
    return entropy >= min(3.5, math.log2(size) - 0.8)


# A credential assigned a literal value: the key ends in a credential word; the value is
# eight characters or more, quoted or bare, not a call, a reference or a placeholder. Run on
# lower-cased text (a search without IGNORECASE skips faster).
_CREDENTIAL: Final = lazy_compile(
    r"""(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?)(?:[_-]?[0-9])?"""
    r"""(?:\\{0,8}["'])?[ \t]*(?:\r?\n[ \t]*)?(?:,|:=|=>|=(?!=)|:(?!:)|>|\|\||\?\?)"""
    r"""[ \t]*(?:\r?\n[ \t]*)?(?:\\{0,8}["'`])?"""
    # Not a reference or a name of code: the search goes on from the next place, where the
    # name's own key word may start (key = process.env.ACCOUNT_KEY || "...").
    r"""(?![$%{<@&*]|(?:process|os|env|config|self)\.)"""
    r"""(?P<v>[^\s"'`,;<>(){}\[\]\\]{8,512}+)(?![(\[])"""
    # An element's text: <secret>{AQAAABAAA ...}</secret> (Jenkins' encrypted form).
    r"|<[a-z_.:-]*(?:password|secret|token|key)>(?P<x>[^<\s][^<]{7,511})</",
)
# How far from the address a credential is looked for: a few lines of a configuration block.
_NEAR_LINES: Final = 6
_NEAR_CHARS: Final = 800
# Credentials are looked for in blocks of the text, each read once per text however many
# addresses ask (a text with no address near a block never reads it); a credential starting
# in a block is read up to _CREDENTIAL_REACH characters past the block's end.
_BLOCK: Final = 4096
_CREDENTIAL_REACH: Final = 1100


def _credential_value(value: str) -> bool:
    if value[0] in "$%{<@&*" or is_placeholder(value) or is_patterned(value):
        return False
    if "://" in value or value.startswith(("os.", "process.", "env.", "config.", "self.")):
        return False
    if any(char.isdigit() for char in value):
        return True
    return len(value) >= 16 and not all(char.isalpha() or char in "._" for char in value)


@functools.lru_cache(maxsize=64)
def _credentials_in_block(text: str, block: int) -> tuple[int, ...]:
    """Where credentials are assigned a literal value in one block of ``text``."""
    start = block * _BLOCK
    chunk = text[start : start + _BLOCK + _CREDENTIAL_REACH]
    found: list[int] = []
    for match in _CREDENTIAL.finditer(chunk.lower(), 0):
        if match.start() >= _BLOCK:
            break
        if match.group("x") is not None or _credential_value(chunk[slice(*match.span("v"))]):
            found.append(start + match.start())
    return tuple(found)


def _credential_near(text: str, start: int, end: int) -> bool:
    """Whether a credential is assigned within a few lines of ``text[start:end]``."""
    low = start
    for _ in range(_NEAR_LINES + 1):
        found = text.rfind("\n", max(0, start - _NEAR_CHARS), low)
        if found < 0:
            low = max(0, start - _NEAR_CHARS)
            break
        low = found
    high = end
    for _ in range(_NEAR_LINES + 1):
        found = text.find("\n", high + 1, end + _NEAR_CHARS)
        if found < 0:
            high = min(len(text), end + _NEAR_CHARS)
            break
        high = found
    for block in range(low // _BLOCK, high // _BLOCK + 1):
        for at in _credentials_in_block(text, block):
            if low <= at < high and not start <= at < end:
                return True
    return False


def select_host(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    """The address (host, port and path; or the account's name), when it names an instance
    and a credential is assigned near it."""
    if "g" in match.re.groupindex:
        return _generated_url(text, match)
    start, end = match.span("v")
    while end > start and text[end - 1] in ".:":
        end -= 1
    if end <= start or text[start] in "$%{<@&*":
        return None
    if match.group("account") is not None:
        value = text[start:end].lower()
        if _ACCOUNT.fullmatch(value) is None or value in _NO_ACCOUNT or is_placeholder(value):
            return None
        return (start, end) if _credential_near(text, start, end) else None
    scheme = text.find("://", start, end)
    if scheme >= 0:
        rest = scheme + 3
    elif match.group("url") is not None:
        return None  # a URL key's value without a scheme: code (url: this.response.url)
    else:
        rest = start
    host_start = rest
    at = text.rfind("@", rest, end)
    if at >= 0:
        host_start = at + 1  # user:password@: url_credentials' to take
    host_end = host_start
    while host_end < end and text[host_end] not in "/?#:":
        host_end += 1
    if not _instance_host(text[host_start:host_end].lower()):
        return None
    if is_placeholder(text[start:end]):
        return None
    return (host_start, end) if _credential_near(text, start, end) else None


def _generated_url(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    start = match.start("g")
    end = match.end()
    if not _generated_label(text[start : match.end("g")]):
        return None
    at = text.rfind("@", start, end)
    if at >= 0:
        return None  # user:password@host: url_credentials' to take
    return (start, end) if _credential_near(text, start, end) else None
