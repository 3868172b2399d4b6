"""A secret given as a name and a value in two fields: the name says "secret", the value is it.

Kubernetes ``env`` entries (``- name: DB_PASSWORD`` / ``value: ...``), JSON lists of
``{"name": "API_TOKEN", "value": "..."}``, AWS ``{"Key": ..., "Value": ...}`` and
CloudFormation ``ParameterKey`` / ``ParameterValue`` pairs, .NET ``<add key="DbPassword"
value="..."/>``, Spring ``<property name="password" value="..."/>``, Java properties XML
``<entry key="api.token">...</entry>``: neither field alone is an assignment. The patterns
run on lower-cased text, from the name field (``name``, ``key``, ``parameterkey``) to the
value field that follows it within the same entry.
"""

from __future__ import annotations

import re
from typing import Final

from .checks import is_patterned, is_placeholder, looks_random

__all__ = ["paired_patterns", "select_paired"]

_QUOTE: Final = r"""(?:\\{0,8}["'])?"""
# A name that says what the value is: the credential words of assignments, inside a longer
# name (DB_PASSWORD, api.token, ClientSecret).
_NAME: Final = (
    r"[a-z0-9_.-]{0,40}?(?:password|passwd|passphrase|pwd|secret|token|api[_.-]?key|apikey"
    r"|credential|private[_.-]?key|access[_.-]?key|auth[_.-]?key)[a-z0-9_.-]{0,40}"
)
# The name field, quoted or not, with its separator: the field's name and the character after
# it are the literal triggers (name", name:, key=), so "tool_name" alone triggers nothing.
_FIELDS: Final = r"(?:name|key|parameterkey|parametername)"
_FIELD: Final = (
    f"(?:{_FIELDS}(?:\"|'|\\\\\\\\{{0,7}}[\"'])[ \\t]*[:=]|{_FIELDS}:|{_FIELDS}=)[ \\t]*" + _QUOTE
)
# Between the name and the value field: the rest of one entry (", ", an attribute, a line
# break and the next line's indentation in YAML).
_GAP: Final = r"""(?:[^<>{}\[\]\r\n]{0,80}?|[ \t,'"]*\r?\n[ \t]*)"""
_VALUE: Final = (
    r"""(?:\\{0,8}(?P<q>["'])(?P<v>[^"'\r\n\\]{1,512})\\{0,8}(?P=q)"""
    r"""|(?P<u>[^\s"'<>,;{}\[\]]{1,512}))"""
)


def paired_patterns() -> tuple[str, ...]:
    """A name field naming a credential, then a value field or an element's text."""
    return (
        _FIELD
        + "(?P<k>"
        + _NAME
        + ")"
        + _QUOTE
        + _GAP
        + r"(?:value|parametervalue)"
        + _QUOTE
        + r"[ \t]*[:=][ \t]*"
        + _VALUE,
        r"""key=\\{0,8}["'](?P<k>""" + _NAME + r""")\\{0,8}["'][^<>]{0,80}>"""
        r"(?P<x>[^<>\r\n]{1,512})</",
    )


# Per-page form tokens (authenticity_token, csrf_token) protect one form, not an account.
_FORM_TOKEN: Final = ("authenticity", "csrf", "xsrf", "nonce")


def select_paired(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    """The value, unless it is a placeholder, a reference or, bare, a word or number."""
    if any(word in match.group("k") for word in _FORM_TOKEN):
        return None
    groups = match.re.groupindex
    for group in ("v", "x", "u"):
        if group not in groups or match.group(group) is None:
            continue
        start, end = match.span(group)
        if group == "u":  # a bare value without the bracket or full stop around it
            while end > start + 1 and text[end - 1] in ").,;":
                end -= 1
        value = text[start:end].strip()
        if not value or value[0] in "${%" or is_placeholder(value) or is_patterned(value):
            return None
        if group == "u" and not (len(value) >= 8 and looks_random(value)):
            return None
        if (value.isalpha() and value.islower()) or (value.isdigit() and len(value) < 10):
            return None  # a word or a number: a setting (password_policy: "strict"), no secret
        return start, end
    return None
