"""Read trufflehog's detector pattern tests as redaction samples (see redaction_trufflehog.py).

trufflehog (AGPL-3.0) keeps, beside each detector, a ``<name>_test.go`` whose
``Test..._Pattern`` table gives an ``input`` text and the ``want`` values the detector must
find in it. Nothing of it is stored here: the samples are read from a git directory at bench
time.

- A case whose ``want`` is not empty is a secret sample: each wanted value found whole in
  the input is a secret; a wanted value made of several parts joined (``id:secret``) counts
  by its longest part found in the input (8 characters or more). What a detector reports
  beside a secret but is none (a host name, an e-mail address, a URL without a password)
  is left out; of a URL with ``user:password@``, that pair is the secret.
- Ordinary lines are those of each detector's own Go source (``<name>.go`` beside the test):
  code that calls a vendor's API (endpoints, headers, regular expressions, error messages,
  identifiers). Lines beside a secret in a test input are not used: they often hold the
  other half of a credential (a key id, a client secret) that the detector does not report.
- Cases whose ``want`` is empty are left out: trufflehog leaves out many real secrets there
  (a keyword too far from the value), so they are neither secrets nor ordinary text.

The split, fixed before any sample was read: a detector belongs to the held-out half when
the first hex digit of the SHA-256 of its directory name (``pkg/detectors/<name>``, the first
directory below ``pkg/detectors``) is 8 or more, else to the tuning half.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from dataclasses import dataclass
from typing import Any

from _go_expr import GoExpressions, Unsupported

__all__ = ["Case", "cases", "held_out", "secrets_of", "sources"]

_TOKEN = re.compile(
    r"(?P<raw>`[^`]*`)|(?P<str>\"(?:[^\"\\\n]|\\.)*\")|(?P<name>[A-Za-z_][\w.]*)"
    r"|(?P<num>[0-9]+)|(?P<op>:=|\.\.\.|[()+,{}\[\]:=;*&!<>|%/.-])"
)


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    text: str
    want: tuple[str, ...]


def held_out(family: str) -> bool:
    """The fixed split: the held-out half is where sha256(name)'s first hex digit is >= 8."""
    return hashlib.sha256(family.encode()).hexdigest()[0] in "89abcdef"


def _tokens(source: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    position = 0
    while position < len(source):
        if source[position].isspace():
            position += 1
            continue
        if source.startswith("//", position):
            end = source.find("\n", position)
            position = len(source) if end < 0 else end
            continue
        if source.startswith("/*", position):
            end = source.find("*/", position)
            position = len(source) if end < 0 else end + 2
            continue
        match = _TOKEN.match(source, position)
        if match is None:
            position += 1
            continue
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        position = match.end()
    return out


def _go_string(token: tuple[str, str]) -> str:
    kind, text = token
    if kind == "raw":
        return text[1:-1].replace("\r", "")
    value: str = json.loads(text.replace("\\'", "'").replace("\\x", "\\u00"))
    return value


def _sprintf(template: str, args: list[Any]) -> str:
    out: list[str] = []
    pieces = iter(args)
    i = 0
    while i < len(template):
        char = template[i]
        if char == "%" and i + 1 < len(template):
            verb = template[i + 1]
            if verb == "%":
                out.append("%")
            elif verb in "sdvq":
                value = next(pieces)
                out.append(f'"{value}"' if verb == "q" else str(value))
            else:
                raise Unsupported(f"verb %{verb}")
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


class _Evaluator(GoExpressions):
    def __init__(self, tokens: list[tuple[str, str]], names: dict[str, Any]) -> None:
        super().__init__(tokens)
        self.names = names

    def items(self, close: str) -> list[Any]:
        values: list[Any] = []
        while self.peek()[1] not in (close, ""):
            values.append(self.expr())
            if self.peek()[1] == ",":
                self.take()
        self.take(close)
        return values

    def term(self) -> Any:
        kind, text = self.take()
        if kind in ("raw", "str"):
            return _go_string((kind, text))
        if kind == "num":
            return int(text)
        if text == "[":
            self.take("]")
            self.take("string")
            if self.peek()[1] == "(":  # []string(nil)
                self.take("(")
                self.take("nil")
                self.take(")")
                return []
            self.take("{")
            return self.items("}")
        if kind != "name":
            raise Unsupported(text)
        if text == "nil":
            return []
        if self.peek()[1] == "(":
            self.take("(")
            args = self.items(")")
            return self.call(text, args)
        if text in self.names:
            return self.names[text]
        raise Unsupported(f"unknown name {text}")

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "fmt.Sprintf":
            if not args or not isinstance(args[0], str):
                raise Unsupported("Sprintf")
            return _sprintf(args[0], args[1:])
        if name == "strings.Repeat":
            return str(args[0]) * int(args[1])
        if name in ("strings.ToUpper", "strings.ToLower", "strings.TrimSpace"):
            value = str(args[0])
            return {
                "strings.ToUpper": value.upper,
                "strings.ToLower": value.lower,
                "strings.TrimSpace": value.strip,
            }[name]()
        if name == "strings.Join" and isinstance(args[0], list):
            return str(args[1]).join(str(a) for a in args[0])
        if name == "string" and isinstance(args[0], str):
            return args[0]
        raise Unsupported(name)


def _evaluate(source: str) -> list[tuple[str, tuple[str, ...]]]:
    """``(input, want)`` of each case of a pattern test table."""
    tokens = _tokens(source)
    names: dict[str, Any] = {}
    found: list[tuple[str, tuple[str, ...]]] = []
    at = 0
    while at < len(tokens):
        kind, text = tokens[at]
        following = tokens[at + 1][1] if at + 1 < len(tokens) else ""
        if kind == "name" and following in ("=", ":=") and at + 2 < len(tokens):
            evaluator = _Evaluator(tokens[at + 2 :], names)
            try:
                value = evaluator.expr()
            except (Unsupported, StopIteration, ValueError, IndexError, TypeError):
                value = None
            if isinstance(value, str):
                names[text] = value
        if kind == "name" and text == "input" and following == ":":
            evaluator = _Evaluator(tokens[at + 2 :], names)
            try:
                value = evaluator.expr()
            except (Unsupported, StopIteration, ValueError, IndexError, TypeError):
                at += 1
                continue
            rest = at + 2 + evaluator.at
            want: list[Any] | None = None
            depth = 0
            for look in range(rest, min(rest + 400, len(tokens) - 2)):
                mark = tokens[look][1]
                if mark in ("{", "(", "["):
                    depth += 1
                elif mark in ("}", ")", "]"):
                    depth -= 1
                    if depth < 0:
                        break
                elif depth == 0 and mark == "want" and tokens[look + 1][1] == ":":
                    try:
                        got = _Evaluator(tokens[look + 2 :], names).expr()
                    except (Unsupported, StopIteration, ValueError, IndexError, TypeError):
                        got = None
                    want = got if isinstance(got, list) else None
                    break
            if (
                isinstance(value, str)
                and want is not None
                and all(isinstance(item, str) for item in want)
            ):
                found.append((value, tuple(want)))
        at += 1
    return found


def _git(git: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git}", *args], capture_output=True, text=True, check=True
    ).stdout


def cases(git: str) -> list[Case]:
    """Every case of every detector's pattern test that could be evaluated."""
    out: list[Case] = []
    for name in _git(git, "ls-tree", "-r", "--name-only", "HEAD", "pkg/detectors").split():
        parts = name.split("/")
        if len(parts) < 4 or not name.endswith("_test.go") or "integration" in name:
            continue
        source = _git(git, "show", f"HEAD:{name}")
        if "_Pattern" not in source:
            continue
        for number, (text, want) in enumerate(_evaluate(source)):
            out.append(Case(parts[2], f"{name}#{number}", text, want))
    return out


_PIECES = re.compile(r"[A-Za-z0-9]{4,}")
_PARTS = re.compile(r"[^:;|,\s@]+")


_USERINFO = re.compile(r"^[a-z][a-z0-9+.:-]*://([^/@\s]+:[^\s]+)@[^@]+$", re.IGNORECASE)
_NOT_SECRET = re.compile(
    r"[a-z][a-z0-9+.:-]*:(?://)?[^@\s]*"  # a URL without user:password (jdbc:, https://)
    r"|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"  # an e-mail address
    r"|(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?::[0-9]+)?",  # a host name
    re.IGNORECASE,
)


def _secret(value: str) -> str | None:
    """A wanted value as the secret it holds: of a URL, its ``user:password``; ``None`` for
    what is no secret, only the context a detector reports with one (a host, an e-mail
    address, a URL without a password)."""
    userinfo = _USERINFO.match(value)
    if userinfo:
        return userinfo.group(1)
    return None if _NOT_SECRET.fullmatch(value) else value


def secrets_of(case: Case) -> list[str]:
    """The secrets a case's input holds: each wanted value, or its longest part."""
    found: list[str] = []
    for value in case.want:
        if value in case.text and len(value) >= 8:
            secret = _secret(value)
            if secret is not None:
                found.append(secret)
            continue
        parts = [
            p for p in _PARTS.findall(value) if len(p) >= 8 and p in case.text and _secret(p) == p
        ]
        if parts:
            found.append(max(parts, key=len))
    return sorted(set(found))


def sources(git: str) -> list[tuple[str, str, str]]:
    """``(family, path, text)`` of each detector's own Go source (its tests left out)."""
    out: list[tuple[str, str, str]] = []
    for name in _git(git, "ls-tree", "-r", "--name-only", "HEAD", "pkg/detectors").split():
        parts = name.split("/")
        if len(parts) < 4 or not name.endswith(".go") or name.endswith("_test.go"):
            continue
        out.append((parts[2], name, _git(git, "show", f"HEAD:{name}")))
    return out
