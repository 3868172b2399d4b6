"""The stub scan: marker comments and do-nothing function bodies, with what is exempt."""

from __future__ import annotations

import textwrap

from amplifier_module_hooks_python_check import scan_stubs

MARKERS = ("TODO", "FIXME", "XXX")


def found(source: str, *, bodies: bool = True, markers: tuple[str, ...] = MARKERS) -> list[str]:
    issues = scan_stubs(textwrap.dedent(source), markers=markers, bodies=bodies)
    return [f"{i.line}:{i.column} {i.code} {i.message}" for i in issues]


def test_markers_in_comments_only() -> None:
    source = """
        x = "TODO: not a comment"  # FIXME: a real one
        # XXX
        y = 1  # todo in lower case is prose
        # TODOS and XXXL are other words
        z = 2  #TODO:tight
    """
    assert found(source) == [
        "2:30 FIXME FIXME marker: a real one",
        "3:3 XXX XXX marker",
        "6:9 TODO TODO marker: tight",
    ]


def test_markers_still_found_when_the_file_does_not_parse() -> None:
    assert found("def f(:\n    pass  # TODO: fix the syntax\n") == [
        "2:13 TODO TODO marker: fix the syntax"
    ]


def test_pass_and_ellipsis_bodies() -> None:
    source = '''
        def a():
            pass

        async def b():
            ...

        def c():
            """Docstring, then nothing."""
            pass

        def d():
            pass
            pass
    '''
    assert found(source) == [
        "2:1 empty-body function `a` has no implementation: its body is only `pass`",
        "5:1 empty-body function `b` has no implementation: its body is only `...`",
        "8:1 empty-body function `c` has no implementation: its body is only `pass`",
        "12:1 empty-body function `d` has no implementation: its body is only `pass`",
    ]


def test_raise_not_implemented_anywhere_in_a_function() -> None:
    source = """
        class Base:
            def run(self, fast: bool) -> int:
                if fast:
                    raise NotImplementedError("fast mode")
                return 1

            def other(self) -> None:
                raise NotImplementedError
    """
    assert found(source) == [
        "5:13 not-implemented function `run` raises NotImplementedError",
        "9:9 not-implemented function `other` raises NotImplementedError",
    ]


def test_real_bodies_and_docstring_only_functions_are_fine() -> None:
    source = '''
        def documented():
            """Only a docstring: an intentional no-op."""

        def real(x):
            if not x:
                pass
            return x

        class Error(Exception):
            pass

        def returns_not_implemented(other):
            return NotImplemented
    '''
    assert found(source) == []


def test_overload_abstract_and_protocol_bodies_are_exempt() -> None:
    source = """
        import abc
        from typing import Protocol, overload
        import typing

        @overload
        def f(x: int) -> int: ...
        @typing.overload
        def f(x: str) -> str: ...
        def f(x):
            return x

        class Shape(abc.ABC):
            @abc.abstractmethod
            def area(self) -> float:
                raise NotImplementedError

            @property
            @abc.abstractmethod
            def name(self) -> str: ...

        class Reader(Protocol):
            def read(self) -> bytes: ...

            def close(self) -> None:
                def helper() -> None:
                    pass
                helper()

        class Typed(typing.Protocol[int]):
            def get(self) -> int: ...
    """
    assert found(source) == [
        "26:9 empty-body function `helper` has no implementation: its body is only `pass`"
    ]


def test_nested_functions_are_judged_on_their_own() -> None:
    source = """
        def outer():
            def inner():
                raise NotImplementedError
            return inner
    """
    assert found(source) == ["4:9 not-implemented function `inner` raises NotImplementedError"]


def test_stub_files_skip_bodies_but_not_markers() -> None:
    source = "def f() -> int: ...  # TODO: real type\n"
    assert found(source, bodies=False) == ["1:24 TODO TODO marker: real type"]


def test_custom_and_no_markers() -> None:
    source = "x = 1  # HACK: b\ny = 2  # TODO: a\n"
    assert found(source, markers=("HACK",)) == ["1:10 HACK HACK marker: b"]
    assert found(source, markers=()) == []


def test_a_byte_order_mark_is_ignored() -> None:
    assert found("\ufeffdef f():\n    pass\n") == [
        "1:1 empty-body function `f` has no implementation: its body is only `pass`"
    ]


def test_nesting_past_the_parser_limit_is_scanned_for_markers_only() -> None:
    deep = "x = " + "-" * 100_000 + "1  # FIXME: flatten\n"
    assert found(deep) == ["1:100010 FIXME FIXME marker: flatten"]
