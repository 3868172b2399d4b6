"""Build ``bench/corpus/external.json`` from text nobody here wrote (see redaction_external.py).

gitleaks (MIT): each rule's true positives (``tps``) and false positives (``fps``) in
``cmd/generate/config/rules/*.go``. Samples gitleaks generates at test time are generated the
same way here: ``secrets.NewSecret(regex)`` is a random string of the regex (fixed seed),
``utils.GenerateSampleSecrets(id, secret)`` puts it into gitleaks' own contexts (read from
``cmd/generate/config/utils/generate.go``). For a sample written out literally, the secret is
what the rule's own regex (its secret group) matches in it; a literal the regex cannot be
translated for, or does not match, is left out.

detect-secrets (Apache-2.0): the ``(line, should_flag)`` pairs of ``tests/plugins/*_test.py``.
The secret of a flagged line is what the plugin under test reports in it (asked in
detect-secrets' own environment); lines it reports nothing in are left out of recall.
"""

from __future__ import annotations

import ast
import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any

from _go_expr import GoExpressions, Unsupported

__all__ = ["build_detect_secrets", "build_gitleaks"]


def git_files(git: str, folder: str, suffix: str) -> list[tuple[str, str]]:
    listing = subprocess.run(
        ["git", "--git-dir", git, "ls-tree", "-r", "--name-only", "HEAD", folder],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [
        (
            name,
            subprocess.run(
                ["git", "--git-dir", git, "show", f"HEAD:{name}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout,
        )
        for name in listing
        if name.endswith(suffix)
    ]


# ------------------------------------------------------------------------ Go expressions

_TOKEN = re.compile(
    r"\s*(?:(?P<raw>`[^`]*`)|(?P<str>\"(?:[^\"\\\n]|\\.)*\")|(?P<name>[A-Za-z_][\w.]*)"
    r"|(?P<op>\.\.\.|[()+,{}\[\]:]))"
)


def _tokens(source: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    position = 0
    while True:
        while position < len(source) and source[position].isspace():
            position += 1
        if position >= len(source):
            return out
        if source.startswith("//", position):
            end = source.find("\n", position)
            position = len(source) if end < 0 else end
            continue
        match = _TOKEN.match(source, position)
        if match is None:
            raise Unsupported(source[position : position + 30])
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        position = match.end()


_PATTERNS = {
    "utils.Numeric": "[0-9]{%s}",
    "utils.Hex": "[a-f0-9]{%s}",
    "utils.AlphaNumeric": "[a-z0-9]{%s}",
    "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "utils.AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
    "utils.AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
}


class _Parser(GoExpressions):
    """Evaluates the Go expressions of gitleaks' rule samples to strings."""

    def __init__(
        self, tokens: list[tuple[str, str]], rng: random.Random, templates: dict[str, str]
    ) -> None:
        super().__init__(tokens)
        self.rng = rng
        self.templates = templates

    def items(self) -> list[Any]:
        """A comma-separated list of expressions up to a closing bracket."""
        values: list[Any] = []
        while self.peek()[1] not in ("}", ")", ""):
            value = self.expr()
            if self.peek()[1] == "...":
                self.take()
                values.extend(value)
            else:
                values.append(value)
            if self.peek()[1] == ",":
                self.take()
        return values

    def term(self) -> Any:
        kind, text = self.take()
        if kind == "raw":
            return text[1:-1]
        if kind == "str":
            return json.loads(text)
        if text == "[":
            self.take("]")
            self.take("string")
            self.take("{")
            values = self.items()
            self.take("}")
            return values
        if kind != "name":
            raise Unsupported(text)
        self.take("(")
        args = self.items()
        self.take(")")
        return self.call(text, args)

    def call(self, name: str, args: list[Any]) -> Any:
        if name in _PATTERNS:
            return _PATTERNS[name] % args[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "secrets.NewSecret":
            return sample(args[0], self.rng)
        if name == "utils.GenerateSampleSecret":
            return ("pair", f'{args[0]}_api_token = "{args[1]}"', args[1])
        if name == "utils.GenerateSampleSecrets":
            identifier, secret = args
            return [
                (
                    "pair",
                    t.replace("{i}", identifier)
                    .replace("{I}", identifier.upper())
                    .replace("{s}", secret),
                    secret,
                )
                for t in self.templates.values()
            ]
        if name == "append":
            return args[1:] if args and isinstance(args[0], list) else args
        if name == "strings.Repeat":
            return args[0] * int(args[1])
        raise Unsupported(name)


# ------------------------------------------------------------------------ regexes


def to_python(go: str) -> str:
    """A Go (RE2) pattern as a Python one: an inline (?i) applies to the rest of its group."""
    go = go.replace("\\z", "\\Z").replace("[[:alnum:]]", "[a-zA-Z0-9]").replace("\\x60", "`")
    out: list[str] = []
    opened: list[int] = []  # per open group: how many (?i: to close with it
    pending = 0
    i = 0
    while i < len(go):
        if go.startswith("(?i)", i):
            out.append("(?i:")
            pending += 1
            i += 4
            continue
        c = go[i]
        if c == "\\":
            out.append(go[i : i + 2])
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < len(go) and go[j] == "^":
                j += 1
            if j < len(go) and go[j] == "]":
                j += 1
            while j < len(go) and go[j] != "]":
                j += 2 if go[j] == "\\" else 1
            out.append(go[i : j + 1])
            i = j + 1
            continue
        if c == "(":
            opened.append(pending)
            pending = 0
        elif c == ")":
            out.append(")" * pending)
            pending = opened.pop() if opened else 0
        out.append(c)
        i += 1
    out.append(")" * pending)
    return "".join(out)


def sample(pattern: str, rng: random.Random) -> str:
    """A random string that the (Go) pattern matches."""
    import re._parser as sre_parse  # type: ignore[import-not-found]
    from re import _constants as C  # type: ignore[attr-defined]

    source = re.sub(r"\(\?-?i\)", "", pattern).replace("(?i:", "(?:").replace("(?-i:", "(?:")
    source = source.replace("\\z", "\\Z").replace("[[:alnum:]]", "[a-zA-Z0-9]")
    parsed = sre_parse.parse(source)

    def chars(items: Any) -> list[str]:
        allowed: list[str] = []
        negate = False
        for op, value in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                allowed.append(chr(value))
            elif op is C.RANGE:
                allowed.extend(chr(c) for c in range(value[0], value[1] + 1))
            elif op is C.CATEGORY:
                allowed.extend(
                    {
                        "CATEGORY_DIGIT": "0123456789",
                        "CATEGORY_WORD": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",  # noqa: E501
                        "CATEGORY_SPACE": " ",
                    }.get(str(value), "x")
                )
        if negate:
            pool = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            return [c for c in pool if c not in allowed]
        return allowed

    def gen(items: Any) -> str:
        out = []
        for op, value in items:
            if op is C.LITERAL:
                out.append(chr(value))
            elif op is C.IN:
                out.append(rng.choice(chars(value)))
            elif op is C.ANY:
                out.append(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789"))
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
                low, high, body = value
                high = min(high, low + 12) if high is not C.MAXREPEAT else low + 12
                out.extend(gen(body) for _ in range(rng.randint(low, max(low, high))))
            elif op is C.SUBPATTERN:
                out.append(gen(value[-1]))
            elif op is C.BRANCH:
                out.append(gen(rng.choice(value[1])))
            elif op is C.CATEGORY:
                out.append(rng.choice(chars([(op, value)])))
        return "".join(out)

    return gen(parsed)


def _rule_regex(body: str, rng: random.Random) -> re.Pattern[str] | None:
    """The rule's regex (Python), from its ``Regex:`` field, or None."""
    found = re.search(r"\n\s*Regex:\s*", body)
    if found is None:
        return None
    parser = _Parser(_tokens(_balanced(body, found.end())), rng, {})
    parser.call = _regex_call.__get__(parser)  # type: ignore[method-assign]
    try:
        pattern = parser.expr()
        return re.compile(to_python(pattern))
    except (Unsupported, re.error, IndexError, ValueError):
        return None


_IDENTIFIER_PREFIX = r"[\w.-]{0,50}?(?:"
_IDENTIFIER_SUFFIX = r")(?:[ \t\w.-]{0,20})[\s'\"]{0,3}"
_OPERATOR = r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"


def _regex_call(self: _Parser, name: str, args: list[Any]) -> Any:
    if name in _PATTERNS or name == "utils.Hex8_4_4_4_12":
        return _Parser.call(self, name, args)
    if name == "regexp.MustCompile":
        return args[0]
    if name == "utils.GenerateUniqueTokenRegex":
        return (
            ("(?i)" if args[1] is True else "") + r"\b(" + args[0] + r")(?:[\x60'\"\s;]|\\[nr]|$)"
        )
    if name == "utils.GenerateSemiGenericRegex":
        ids = "|".join(args[0])
        head = (
            ("(?i)" + _IDENTIFIER_PREFIX + ids + _IDENTIFIER_SUFFIX)
            if args[2] is True
            else (r"[\w.-]{0,50}?(?i:" + _IDENTIFIER_PREFIX + ids + _IDENTIFIER_SUFFIX + ")")
        )
        return head + _OPERATOR + r"[\x60'\"\s=]{0,5}(" + args[1] + r")(?:[\x60'\"\s;]|\\[nr]|$)"
    if name == "utils.MergeRegexps":
        return "|".join(args)
    if name in ("fmt.Sprintf",):
        raise Unsupported(name)
    raise Unsupported(name)


def _balanced(text: str, start: int) -> str:
    """The expression starting at ``start``, up to the comma or newline that ends it."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if c == "'":  # a rune
            end = text.find("'", i + 1)
            i = len(text) if end < 0 else end + 1
            continue
        if c == "`":
            end = text.find("`", i + 1)
            if end < 0:
                return text[start:]
            i = end + 1
            continue
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return text[start:i]
            depth -= 1
        elif c == "\n" and depth == 0:
            return text[start:i].rstrip().rstrip(",")
        i += 1
    return text[start:]


def _secret_of(regex: re.Pattern[str], text: str) -> str | None:
    match = regex.search(text)
    if match is None:
        return None
    for group in match.groups():
        if group:
            return group
    return match.group()


def build_gitleaks(git: str) -> list[dict[str, Any]]:
    rng = random.Random("external-corpus")
    generate = dict(git_files(git, "cmd/generate/config/utils", "generate.go"))[
        "cmd/generate/config/utils/generate.go"
    ]
    block = generate[generate.index("samples := map[string]string{") :]
    block = block[: block.index("\n\t}\n")]
    templates = {}
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("//") or ":" not in line:
            continue
        try:
            tokens = _tokens(line.rstrip(","))
        except Unsupported:
            continue
        key_value = [t for t in tokens if t[0] in ("str", "raw")]
        if len(key_value) == 2:
            value = key_value[1][1]
            templates[key_value[0][1]] = value[1:-1] if value.startswith("`") else json.loads(value)
    rows: list[dict[str, Any]] = []
    skipped = 0
    for name, text in git_files(git, "cmd/generate/config/rules", ".go"):
        family = Path(name).stem
        for body in re.split(r"\nfunc ", text)[1:]:
            regex = _rule_regex(body, rng)
            for kind in ("tps", "fps"):
                for found in re.finditer(rf"\n\s*{kind}\s*:?=\s*", body):
                    expression = _balanced(body, found.end())
                    try:
                        values = _Parser(_tokens(expression), rng, templates).expr()
                    except (Unsupported, IndexError, ValueError, json.JSONDecodeError):
                        skipped += 1
                        continue
                    values = values if isinstance(values, list) else [values]
                    for value in values:
                        if isinstance(value, tuple):  # (pair, text, secret)
                            text_, secret = value[1], value[2]
                        elif isinstance(value, str):
                            text_, secret = value, None
                        else:
                            continue
                        if kind == "fps":
                            rows.append(
                                {
                                    "source": "gitleaks",
                                    "family": family,
                                    "kind": "ordinary",
                                    "text": text_,
                                }
                            )
                            continue
                        if secret is None:
                            secret = _secret_of(regex, text_) if regex is not None else None
                        if secret:
                            rows.append(
                                {
                                    "source": "gitleaks",
                                    "family": family,
                                    "kind": "secret",
                                    "text": text_,
                                    "secret": secret,
                                }
                            )
                        else:
                            skipped += 1
    print(f"gitleaks: {len(rows)} samples, {skipped} left out (no regex match or unparsed)")
    return rows


def build_detect_secrets(git: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name, text in git_files(git, "tests/plugins", "_test.py"):
        family = Path(name).stem.removesuffix("_test")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Tuple) and len(node.elts) == 2:
                line, flag = node.elts
                if (
                    isinstance(line, ast.Constant)
                    and isinstance(line.value, str)
                    and isinstance(flag, ast.Constant)
                    and isinstance(flag.value, bool)
                ):
                    kind = "secret" if flag.value else "ordinary"
                    rows.append(
                        {
                            "source": "detect-secrets",
                            "family": family,
                            "kind": kind,
                            "text": line.value,
                        }
                    )
    return rows
