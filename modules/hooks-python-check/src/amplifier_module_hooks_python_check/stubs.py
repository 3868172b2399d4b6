"""Find code left unfinished: marker comments and function bodies that do nothing.

- a comment holding a marker word (``TODO``, ``FIXME``, ``XXX`` by default), found with
  :mod:`tokenize` so that the word inside a string is not a marker;
- ``raise NotImplementedError`` in a function;
- a function whose body, past its docstring, is only ``pass`` or only ``...``.

Bodies are read with :mod:`ast`. What is meant to have no body is left alone: ``.pyi`` stubs,
``@overload`` and ``@abstractmethod`` functions, and the methods of a ``Protocol`` class.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from .issues import Issue

__all__ = ["scan_stubs"]

_EXEMPT_DECORATORS: Final = frozenset(
    {
        "overload",
        "abstractmethod",
        "abstractproperty",
        "abstractclassmethod",
        "abstractstaticmethod",
    }
)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _name(node: ast.expr) -> str:
    """The last name of ``x``, ``a.b.x``, ``x[...]`` or ``x(...)``."""
    while isinstance(node, ast.Subscript | ast.Call):
        node = node.value if isinstance(node, ast.Subscript) else node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(_name(base) == "Protocol" for base in node.bases)


def _is_not_implemented(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Raise)
        and node.exc is not None
        and _name(node.exc) == "NotImplementedError"
    )


def _empty_body_kind(function: _Function) -> str | None:
    """``pass`` or ``...`` when that is all the body holds past its docstring, else None."""
    body = function.body
    first = body[0]
    if (
        len(body) > 1
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        body = body[1:]
    if all(isinstance(statement, ast.Pass) for statement in body):
        return "pass"
    if all(
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value is Ellipsis
        for statement in body
    ):
        return "..."
    return None


def _inner(node: ast.stmt) -> Iterator[ast.stmt]:
    """The statements directly inside a compound statement (``if``, ``try``, ``match``...).

    Only statement lists are read, never expressions: a function or class can only sit in
    one, and skipping the expressions makes the walk several times faster than ``ast.walk``.
    """
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list):
            yield from (child for child in block if isinstance(child, ast.stmt))
    for holder in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
        yield from holder.body


def _own_statements(statements: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested blocks included, not entering functions or classes."""
    for node in statements:
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield from _own_statements(_inner(node))


def _function_issues(node: _Function) -> Iterator[Issue]:
    kind = _empty_body_kind(node)
    if kind is not None:
        yield Issue(
            line=node.lineno,
            column=node.col_offset + 1,
            checker="stubs",
            code="empty-body",
            message=f"function `{node.name}` has no implementation: its body is only `{kind}`",
        )
        return
    for statement in _own_statements(node.body):
        if _is_not_implemented(statement):
            yield Issue(
                line=statement.lineno,
                column=statement.col_offset + 1,
                checker="stubs",
                code="not-implemented",
                message=f"function `{node.name}` raises NotImplementedError",
            )


def _body_issues(statements: Iterable[ast.stmt], *, in_protocol: bool) -> Iterator[Issue]:
    """Stub bodies and ``raise NotImplementedError`` of every function in ``statements``."""
    for node in statements:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            exempt = in_protocol or any(
                _name(decorator) in _EXEMPT_DECORATORS for decorator in node.decorator_list
            )
            if not exempt:
                yield from _function_issues(node)
            # Nested functions are judged on their own; a Protocol's exemption stops here.
            yield from _body_issues(node.body, in_protocol=False)
        elif isinstance(node, ast.ClassDef):
            yield from _body_issues(node.body, in_protocol=_is_protocol(node))
        else:
            yield from _body_issues(_inner(node), in_protocol=in_protocol)


def _comments(text: str) -> list[tuple[int, int, str]]:
    """``(line, column, text)`` of each comment; by line when the file does not tokenize."""
    try:
        return [
            (token.start[0], token.start[1], token.string)
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        found: list[tuple[int, int, str]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            column = line.find("#")
            if column >= 0:
                found.append((number, column, line[column:]))
        return found


def _marker_issues(text: str, markers: Sequence[str]) -> list[Issue]:
    if not markers:
        return []
    pattern = re.compile(r"\b(" + "|".join(re.escape(m) for m in markers) + r")\b")
    if pattern.search(text) is None:  # the common case: no need to tokenize at all
        return []
    issues: list[Issue] = []
    for line, column, comment in _comments(text):
        match = pattern.search(comment)
        if match is None:
            continue
        note = comment[match.end() :].lstrip(" :-").strip()
        issues.append(
            Issue(
                line=line,
                column=column + match.start() + 1,
                checker="stubs",
                code=match.group(1),
                message=f"{match.group(1)} marker: {note[:160]}"
                if note
                else f"{match.group(1)} marker",
            )
        )
    return issues


def scan_stubs(text: str, *, markers: Sequence[str], bodies: bool = True) -> list[Issue]:
    """Stub issues in the source ``text``, in line order.

    ``bodies=False`` skips the function bodies (for ``.pyi`` files). A file that does not parse
    (or nests deeper than the parser allows) is scanned for markers only; its syntax error is
    the linter's to report.
    """
    issues = _marker_issues(text, markers)
    if bodies:
        try:
            tree = ast.parse(text.removeprefix("\ufeff"))
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pass  # bad syntax, a NUL byte, or nesting past the parser's limits
        else:
            issues.extend(_body_issues(tree.body, in_protocol=False))
    issues.sort(key=lambda issue: (issue.line, issue.column))
    return issues
