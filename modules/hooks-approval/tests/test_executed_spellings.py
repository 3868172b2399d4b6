"""Every decision agrees with what the command actually executed.

Generated spellings of each rule family run in a bubblewrap sandbox (``executed.py``), where
the programs a rule is about are recording stubs or real programs whose effect is observed.
For every spelling:

* **deny families** (``git push --force``, ``rm -rf``): when the command executed the
  program with those options (the remote's ``main`` rewritten; ``rm`` reached with ``-r`` and
  ``-f`` as getopt reads its argv, or the victim directory gone), the rule must have denied
  it or asked; it is never allowed;
* **allow families** (``sed -n *``, ``sort *`` under ``default_action: deny``): when the
  command wrote a file (sed in place, sort's output), it was not allowed;
* **protected paths** (the ``secrets`` rule on ``.env``): when the file's content reached the
  output or another file, the command was not allowed.

Spellings come from hypothesis (a few hundred per family, in batches of one sandbox each):
program paths, wrappers (``env``, ``command``, ``nice``, ``timeout``, ``exec``), assignments,
git's global options, option order, bundling, long-option abbreviations, and the commands that
run commands (``sh -c``, ``bash -c``, ``eval``, ``xargs``, ``find -exec/-delete``,
command substitution, brace expansion, globs as the program).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from amplifier_module_hooks_approval.config import parse_config
from amplifier_module_hooks_approval.rules import RuleSet
from amplifier_module_hooks_approval.subject import subject_of

from .executed import Execution, run_batch
from .support import readme_rules

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap missing (CI sets AMPLIFIER_HOOKS_REQUIRE_BWRAP: there it must run)",
)
pytestmark = [needs_bwrap, pytest.mark.skipif(shutil.which("git") is None, reason="no git")]

PUSHES = 150  # a real git push each: the slowest family
SPELLINGS = 350


def corpus(strategy: st.SearchStrategy[str], size: int) -> list[str]:
    """``size`` distinct spellings drawn by hypothesis (derandomized: the same every run), run
    together in one sandbox. A failure lists every spelling that disagreed, so nothing is
    shrunk."""
    found: dict[str, None] = {}

    @settings(
        max_examples=size * 4,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(spelling: str) -> None:
        if len(found) < size:
            found[spelling] = None

    draw()
    return list(found)


FIGURES = Path(os.environ.get("APPROVAL_AGREEMENT_FIGURES", "/dev/null"))


def decide(rules: RuleSet, command: str, workspace: str) -> str:
    subject = subject_of({"tool_name": "bash", "tool_input": {"command": command}}, workspace)
    return rules.decide(subject).action


def tally(family: str, rows: list[tuple[Execution, str, bool]]) -> dict[str, Any]:
    """Agreement figures: of the spellings that executed the dangerous thing, how many were
    denied / asked / allowed; of the others, how many were allowed."""
    dangerous = Counter(decision for _, decision, hit in rows if hit)
    harmless = Counter(decision for _, decision, hit in rows if not hit)
    figures = {
        "family": family,
        "spellings": len(rows),
        "executed": sum(dangerous.values()),
        "executed_decisions": dict(dangerous),
        "not_executed_decisions": dict(harmless),
    }
    if str(FIGURES) != "/dev/null":
        with FIGURES.open("a", encoding="utf-8") as out:
            out.write(json.dumps(figures) + "\n")
    return figures


def quote_split(word: str) -> st.SearchStrategy[str]:
    """``word`` as bash reads it back: plain, quoted, split by empty quotes, escaped."""
    return st.sampled_from(
        [word, f"'{word}'", f'"{word}"', word[:1] + "''" + word[1:], "\\" + word]
        if len(word) > 1
        else [word]
    )


def wrapped(command: str, how: str, noise: str = "") -> str:
    if how in GRAMMAR:
        return str(GRAMMAR[how](command, noise))
    if how == "plain":
        return command
    if how == "sh -c":
        return f"sh -c {shlex.quote(command)}"
    if how == "bash -c":
        return f"bash -c {shlex.quote(command)}"
    if how == "eval":
        return f"eval {shlex.quote(command)}"
    if how == "and":
        return f"true && {command}"
    if how == "subshell":
        return f"( {command} )"
    if how == "substitution":
        return f"echo $({command})"
    if how == "group":
        return f"{{ {command}; }}"
    raise AssertionError(how)


def _q(text: str) -> str:
    return shlex.quote(text)


def _split(command: str) -> list[str]:
    """``command``'s words as an argument list (what cannot be split is one word)."""
    try:
        return shlex.split(command)
    except ValueError:
        return [command]


def _system(command: str) -> str:
    return f"import os; os.system({command!r})"


def _arith(command: str) -> str:
    return _q(f"a[$({command})]")


# The shell grammar and the programs that run code, each a way to reach ``command``: bash's
# comments (``noise`` is generated text put in them: quotes, backslashes, operators), reserved
# words, builtins that take code, arithmetic that evaluates a variable, interpreters given code
# inline, and wrappers the approval does not know.
_WRAPPER = "printf '#!/bin/sh\\nexec \"$@\"\\n' > w; chmod +x w; ./w"
GRAMMAR: dict[str, Any] = {
    "comment": lambda c, n: f"# {n}\n{c}",
    "comment after": lambda c, n: f"echo x # {n}\n{c}",
    "comment continued": lambda c, n: f"echo x # {n} \\\n{c}",
    "coproc": lambda c, n: f"coproc {c}\nwait",
    "coproc named": lambda c, n: f"coproc w {{ {c}; }}\nwait",
    "function": lambda c, n: f"function w {{ {c}; }}; w",
    "function parens": lambda c, n: f"w() {{ {c}; }}\nw",
    "alias": lambda c, n: f"shopt -s expand_aliases\nalias w={_q(c)}\nw",
    "trap": lambda c, n: f"trap {_q(c)} EXIT",
    "source here-string": lambda c, n: f"source /dev/stdin <<< {_q(c)}",
    "dot process": lambda c, n: f". <(printf '%s\\n' {_q(c)})",
    "bash -c --": lambda c, n: f"bash -c -- {_q(c)}",
    "arithmetic": lambda c, n: f"x={_arith(c)}; echo $((x))",
    "arithmetic built": lambda c, n: f"d='$'; x=\"a[${{d}}({c})]\"; (( x ))",
    "let": lambda c, n: f"let {_q(f'y=a[$({c})]')}",
    "declare -i": lambda c, n: f"declare -i y={_arith(c)}",
    "printf -v": lambda c, n: f"x={_arith(c)}; printf -v 'b[x]' 1",
    "substring": lambda c, n: f"x={_arith(c)}; z=abc; echo ${{z:x}}",
    "python -c": lambda c, n: f"/usr/bin/python3 -c {_q(f'import os; os.system({c!r})')}",
    "perl -e": lambda c, n: f"C={_q(c)} perl -e 'system($ENV{{C}})'",
    "awk": lambda c, n: f"C={_q(c)} awk 'BEGIN{{system(ENVIRON[\"C\"])}}'",
    "sed e": lambda c, n: f"printf 'x\\n' | sed -n {_q('1e ' + c)}",
    "python stdin": lambda c, n: f"/usr/bin/python3 /dev/stdin <<< {_q(_system(c))}",
    "python -": lambda c, n: f"/usr/bin/python3 - <<< {_q(_system(c))}",
    "python list": lambda c, n: (
        "/usr/bin/python3 -c " + _q(f"import subprocess; subprocess.run({_split(c)!r})")
    ),
    "perl system": lambda c, n: f"perl -e {_q(f'system({c!r})')}",
    "perl list": lambda c, n: f"perl -e {_q('system(' + ', '.join(map(repr, _split(c))) + ')')}",
    "node execSync": lambda c, n: (
        "node -e " + _q(f"require('child_process').execSync({json.dumps(c)}, {{stdio: 'inherit'}})")
    ),
    "bash here-string": lambda c, n: f"bash <<< {_q(c)}",
    "setpriv": lambda c, n: f"setpriv {c}",
    "setarch": lambda c, n: f"setarch $(uname -m) {c}",
    "unknown wrapper": lambda c, n: f"{_WRAPPER} {c}",
}
NOISE = st.text(alphabet="'\"\\$(){}`;&|<> xy#", max_size=8)
WRAPS = st.sampled_from(
    ["plain", "plain", "plain", "sh -c", "bash -c", "eval", "and", "subshell", "substitution",
     "group", *GRAMMAR]
)  # fmt: skip
PROGRAM_PREFIXES = st.sampled_from(
    ["", "", "", "env ", "command ", "nice ", "nice -n 3 ", "timeout 20 ", "exec ",
     "env -u FOO ", "X=1 ", "env X=1 ", "nohup ", "time "]
)  # fmt: skip


# Interpreters given code that spells the command out (a literal string or argument list,
# a here-string read as the program): a deny rule denies them, it does not merely ask.
CODE_NAMING = ("python stdin", "python -", "python list", "perl system", "perl list",
               "node execSync", "bash here-string")  # fmt: skip


def _named(execution: Execution, decision: str) -> bool:
    """``execution`` reached the command through one of :data:`CODE_NAMING`'s plain forms
    and was not denied."""
    plain = execution.command.startswith(
        ("/usr/bin/python3 /dev/stdin", "/usr/bin/python3 - ", "/usr/bin/python3 -c 'import "
         "subprocess; subprocess.run([", "perl -e 'system(", "node -e ", "bash <<< ")
    )  # fmt: skip
    # git configuration given with -c (an alias, a refspec) is only known when git runs, and
    # so are options that reach the program on its input (printf ... | xargs rm) and a glob
    # or a brace expansion as the program (/bin/r?): asked, as they are outside code
    unknowable = ("$", "`", " -c ", "alias.", "| xargs", "?", "*")
    if _BRACES.search(execution.command) or _CONFIG.search(execution.command):
        return False
    return plain and decision != "deny" and not any(u in execution.command for u in unknowable)


# a brace expansion (not a { group; }) or a bracket glob (not a list literal)
# git configuration given with -c in any quoting (an argument list: '-c', 'a.b=c')
_CONFIG = re.compile(r"-c['\"\s,]+[\w.-]+=")
_BRACES = re.compile(r"\{[^\s;{}]*,[^\s;{}]*\}|\[[\w.-]+\]")


# ---------------------------------------------------------------- git push --force (deny)


@st.composite
def push_spellings(draw: st.DrawFn) -> str:
    program = draw(st.sampled_from(["git", "/usr/bin/git", "/bin/git", "g''it", "\\git"]))
    globals_ = draw(
        st.lists(
            st.sampled_from(["-C .", "--no-pager", "-P", "--literal-pathspecs",
                             "--no-optional-locks", "-c color.ui=false",
                             "--git-dir=.git", "--git-dir .git"]),
            max_size=2,
        )
    )  # fmt: skip
    force = draw(
        st.sampled_from(
            ["--force", "-f", "--forc", "--force-with-lease", "--force-with", "--mirror",
             "-uf", "-fq", "-vf", "--no-force", "", "", "-q", "-u", "--force --no-force",
             "--atomic", "--force-if-includes", "--for"]
        )
    )  # fmt: skip
    target = draw(
        st.sampled_from(
            ["origin main", "origin", "origin HEAD:main", "origin +main", "origin +HEAD:main",
             "origin main:main", "origin refs/heads/main"]
        )
    )  # fmt: skip
    if force == "--mirror":
        target = "origin"
    before = draw(st.booleans())
    args = f"{force} {target}" if before else f"{target} {force}"
    subcommand = draw(
        st.sampled_from(
            ["push", "push", "push", "-c alias.pu=push pu", "-c remote.origin.mirror=true push",
             "-c remote.origin.push=+refs/heads/*:refs/heads/* push", "send-pack", "send-pack"]
        )
    )  # fmt: skip
    if subcommand == "send-pack":  # the plumbing takes the remote's path, not its name
        args = args.replace("origin", "../remote.git")
    if subcommand in ("push", "send-pack") and draw(st.integers(0, 7)) == 0:
        dashed = draw(st.sampled_from(["/usr/lib/git-core/git-", "PATH=/usr/lib/git-core git-"]))
        program, globals_, subcommand = f"{dashed}{subcommand}", [], ""  # git's own program
    command = f"{draw(PROGRAM_PREFIXES)}{program} {' '.join(globals_)} {subcommand} {args}"
    if draw(st.integers(0, 9)) == 0:
        words = args.split()
        command = f"echo {' '.join(words[1:])} | xargs {program} push {words[0]}"
    return wrapped(" ".join(command.split()), draw(WRAPS), draw(NOISE))


@pytest.fixture(scope="module")
def push_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``remote.git`` with ``main`` at A-B; ``work``, a clone whose ``main`` is A-C: only a
    forced push rewrites the remote's ``main``."""
    root = tmp_path_factory.mktemp("push-template")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}  # fmt: skip

    def git(*args: str, cwd: Path = root) -> str:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    git("init", "-q", "--bare", "-b", "main", "remote.git")
    git("init", "-q", "-b", "main", "work")
    work = root / "work"
    (work / "a").write_text("a")
    git("add", "a", cwd=work)
    git("commit", "-qm", "A", cwd=work)
    git("remote", "add", "origin", "../remote.git", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)
    (work / "b").write_text("b")
    git("add", "b", cwd=work)
    git("commit", "-qm", "B", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)
    git("reset", "-q", "--hard", "HEAD~1", cwd=work)
    (work / "c").write_text("c")
    git("add", "c", cwd=work)
    git("commit", "-qm", "C", cwd=work)
    (root / "expected").write_text(git("rev-parse", "HEAD", cwd=work))
    return root


PUSH_CHECK = (
    'if [ "$(/usr/lib/git-core/git --git-dir="$d/remote.git" rev-parse main)" = '
    '"$(cat "$d/expected")" ]; then echo forced; else echo kept; fi'
)


def test_every_forced_push_is_denied_or_asked(
    push_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    commands = corpus(push_spellings(), PUSHES)
    workdir = tmp_path_factory.mktemp("push")
    done = run_batch(
        commands, workdir=workdir, template=push_template, check=PUSH_CHECK, stubs=["git"]
    )
    configs = {
        "readme regex": readme_rules(),
        "glob": [{"name": "force", "action": "deny", "command": "git push --force"}],
    }
    for name, rules in configs.items():
        ruleset = RuleSet(parse_config({"rules": rules, "default_action": "allow"}))
        rows = [(e, decide(ruleset, e.command, str(workdir)), e.effect == "forced") for e in done]
        figures = tally(f"git push --force ({name})", rows)
        allowed = sorted({e.command for e, decision, hit in rows if hit and decision == "allow"})
        assert not allowed, f"{name}: forced pushes allowed: {allowed} ({figures})"
        assert figures["executed"] > 0
        if name == "glob":
            named = [e.command for e, decision, hit in rows if hit and _named(e, decision)]
            assert not named, f"code naming a forced push not denied: {named[:5]}"


# ---------------------------------------------------------------- rm -rf (deny)


@st.composite
def rm_spellings(draw: st.DrawFn) -> str:
    program = draw(
        st.sampled_from(
            ["rm", "/bin/rm", "/usr/bin/rm", "r''m", "\\rm", '"rm"', "/usr/bin/../bin/rm"]
        )
    )
    flags = draw(
        st.lists(
            st.sampled_from(["-r", "-R", "--recursive", "--rec", "--recu", "-f", "--force",
                             "--forc", "--f", "-rf", "-fr", "-Rf", "-fR", "-rfv", "-vfr",
                             "-v", "-i", "-d", "--verbose", "--one-file-system", "-I", "--",
                             "--interactive=never"]),
            max_size=3,
        )
    )  # fmt: skip
    operand_at = draw(st.integers(0, len(flags)))
    argv = [*flags[:operand_at], "victim", *flags[operand_at:]]
    runner = draw(st.integers(0, 11))
    prefix = draw(PROGRAM_PREFIXES)
    if runner == 0:
        command = f"echo victim | xargs {program} {' '.join(flags)}"
    elif runner == 1:
        command = f"printf '%s\\n' {' '.join(flags) or '-v'} victim | xargs {program}"
    elif runner == 2:
        command = draw(st.sampled_from(["find victim -delete", "find . -name victim -delete",
                                        "find victim -depth -delete"]))  # fmt: skip
    elif runner == 3:
        end = draw(st.sampled_from(["+", "\\;", "';'"]))
        command = f"find . -maxdepth 1 -name victim -exec {program} {' '.join(flags)} {{}} {end}"
    elif runner == 5:  # make's --eval, as GNU make spells it: -E, bundled, abbreviated
        evaluate = draw(st.sampled_from(["-E ", "-sE ", "-E", "--eval=", "--ev=", "--eva ",
                                         "--e=", "-s --eval "]))  # fmt: skip
        forcing = draw(st.sampled_from(["-rf", "-fr", "-r -f", "--recursive --force", "-Rf"]))
        recipe = shlex.quote(f"x:;rm {forcing} {' '.join(argv)}")
        command = f"make -f /dev/null {evaluate}{recipe} x"
    elif runner == 4:
        command = draw(
            st.sampled_from(
                ["{rm,-rf,victim}", "/bin/r? -rf victim", "/usr/bin/[r]m -rf victim",
                 "$(echo rm) -rf victim", "`echo rm` -fr victim", "X=rm; $X -rf victim",
                 "${X:-rm} -r -f victim"]
            )
        )  # fmt: skip
    else:
        command = f"{prefix}{program} {' '.join(argv)}"
    return wrapped(command, draw(WRAPS), draw(NOISE))


@pytest.fixture(scope="module")
def rm_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rm-template")
    (root / "work" / "victim" / "sub").mkdir(parents=True)
    (root / "work" / "victim" / "sub" / "file").write_text("x")
    (root / "work" / "victim" / "top").write_text("x")
    return root


RM_CHECK = 'if [ -e "$d/work/victim/sub/file" ]; then echo kept; else echo gone; fi'


def executed_rm_rf(execution: Execution) -> bool:
    """rm reached with -r and -f as getopt reads them, or the victim gone (find -delete)."""
    if execution.effect == "gone":
        return True
    for record in execution.records:
        program, _, rest = record.partition("\t")
        normalized = rest.split("\t", 1)[0]
        if program != "rm" or normalized == "INVALID":
            continue
        options = normalized.split(" -- ", 1)[0].split()
        recursive = {"-r", "-R", "--recursive"} & set(options)
        force = {"-f", "--force"} & set(options)
        if recursive and force:
            return True
    return False


def test_every_executed_rm_rf_is_denied_or_asked(
    rm_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    commands = corpus(rm_spellings(), SPELLINGS)
    workdir = tmp_path_factory.mktemp("rm")
    done = run_batch(commands, workdir=workdir, template=rm_template, check=RM_CHECK, stubs=["rm"])
    ruleset = RuleSet(
        parse_config(
            {"rules": [{"name": "rmrf", "action": "deny", "command": "rm -rf *"}],
             "default_action": "allow"}
        )
    )  # fmt: skip
    rows = [(e, decide(ruleset, e.command, str(workdir)), executed_rm_rf(e)) for e in done]
    figures = tally("rm -rf", rows)
    allowed = [(e.command, e.records) for e, decision, hit in rows if hit and decision == "allow"]
    assert not allowed, f"rm -rf executed and allowed: {allowed[:5]} ({figures})"
    assert figures["executed"] > 0
    named = [e.command for e, decision, hit in rows if hit and _named(e, decision)]
    assert not named, f"code naming rm -rf executed and not denied: {named[:5]}"


# ---------------------------------------------------------------- sed -n * / sort * (allow)


# sed scripts: the plain ones edit the text; the others run a command (e, s///e) or write a file
# (w, W, s///w), behind any address, range, negation, block or flag.
SED_SCRIPTS = st.sampled_from(
    ["s/x/y/", "s/x/y/g", "p", "1p", "$!N", "y/x/z/", "/x/d", "1~2p", "0,/x/s//y/", "s/x/touch g/e",
     "1e touch g", "1w g", "$w g", "/x/w g", "s/x/y/w g", "s/x/y/gw g", "1W g", "0,/x/{w g\n}",
     "1!G;1w g", "y/x/z/;1w g", "s|x|y|1w g", "/x/I,+1 w g", "1~1 e touch g", "2,$ w g",
     "1{p;e touch g\n}", "\\%x%w g", "p # w g\n1w g"]
)  # fmt: skip


@st.composite
def sed_scripts(draw: st.DrawFn) -> str:
    """A sed script of generated commands: regexes holding bracket expressions with the
    delimiter inside (``s/[/]/y/w g``: GNU sed reads ``[/]`` as one regex), and labels
    followed by a blank and a command (``:a w g``: GNU sed ends a label at a blank)."""
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["s", "address", "label", "listed"]))
        tail = draw(st.sampled_from(["w g", "W g", "e touch g", "p", "", "s/x/y/w g"]))
        if kind == "listed":
            parts.append(draw(SED_SCRIPTS))
            continue
        if kind == "label":
            command = draw(st.sampled_from([":", "b", "t", "T"]))
            space = draw(st.sampled_from(["", " ", "\t"]))
            label = draw(st.sampled_from(["a", "end", "l1"]))
            gap = draw(st.sampled_from([" ", "\t", ";", "\n", " ;"]))
            parts.append(f"{command}{space}{label}{gap}{tail}")
            continue
        delimiter = draw(st.sampled_from(["/", "|", ",", "#", "x"]))
        pieces = [f"[{delimiter}]", f"[]{delimiter}]", f"[^]{delimiter}]",
                  f"[[:alpha:]{delimiter}]", f"\\{delimiter}", "a", "b"]  # fmt: skip
        regex = "".join(draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=3)))
        if kind == "s":
            flags = draw(st.sampled_from(["", "g", "p", "w g", "gw g", "e", "c"]))
            parts.append(f"s{delimiter}{regex}{delimiter}y{delimiter}{flags}")
        else:
            opening = "/" if delimiter == "/" else "\\" + delimiter
            parts.append(f"{opening}{regex}{delimiter}{tail or 'p'}")
    return draw(st.sampled_from([";", "\n"])).join(parts)


@st.composite
def sed_sort_spellings(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        options = draw(
            st.lists(
                st.sampled_from(["--in", "--in-p", "--in-place", "-i", "-i.bak", "--in=.bak",
                                 "-s", "-E", "--posix", "--quiet", "--sil", "-e p", "--e=p",
                                 "--expression=p", "--ex p", "-u", "--null-data", "-z",
                                 "--debug", "--sandbox", "-ni", "-in"]),
                max_size=3,
            )
        )  # fmt: skip
        text = shlex.quote(draw(st.one_of(SED_SCRIPTS, sed_scripts())))
        if draw(st.integers(0, 3)) == 0:
            options.append(draw(st.sampled_from([f"-e {text}", f"--expression={text}",
                                                 f"--expr {text}", f"-se {text}"])))  # fmt: skip
        script = [] if any(o.startswith(("-e", "--e", "-se")) for o in options) else [text]
        rest = [*options, *script, "f"]
        if draw(st.booleans()):
            draw(st.randoms()).shuffle(rest)
        if script and rest.index(text) > rest.index("f"):  # keep the script first
            rest.remove(text)
            rest.insert(0, text)
        return f"sed -n {' '.join(rest)}"
    options = draw(
        st.lists(
            st.sampled_from(["--o=g", "--ou g", "--output=g", "-o g", "-og", "-r", "-n",
                             "--rev", "-u", "-k1", "--key=1", "--re", "-s", "--st",
                             "--compress-program=gzip", "--debug", "-T .", "--temp=."]),
            max_size=3,
        )
    )  # fmt: skip
    rest = [*options, "f"]
    draw(st.randoms()).shuffle(rest)
    return f"sort {' '.join(rest)}"


@pytest.fixture(scope="module")
def text_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("text-template")
    (root / "work").mkdir()
    (root / "work" / "f").write_text("x\nb\na\n")
    return root


WRITE_CHECK = (
    'if [ "$(cat "$d/work/f")" != "$(printf "x\\nb\\na")" ] '
    '|| [ "$(ls -A "$d/work")" != "f" ]; then echo wrote; else echo read; fi'
)


def test_an_allow_rule_never_allows_a_command_that_wrote(
    text_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    commands = corpus(sed_sort_spellings(), SPELLINGS)
    workdir = tmp_path_factory.mktemp("text")
    done = run_batch(commands, workdir=workdir, template=text_template, check=WRITE_CHECK, stubs=[])
    ruleset = RuleSet(
        parse_config(
            {"rules": [{"name": "sed", "action": "allow", "command": "sed -n *"},
                       {"name": "sort", "action": "allow", "command": "sort *"}],
             "default_action": "deny"}
        )
    )  # fmt: skip
    rows = [(e, decide(ruleset, e.command, str(workdir)), e.effect == "wrote") for e in done]
    figures = tally("sed -n * / sort * (allow)", rows)
    allowed = [e.command for e, decision, hit in rows if hit and decision == "allow"]
    assert not allowed, f"wrote a file and was allowed: {allowed[:5]} ({figures})"
    assert figures["executed"] > 0
    assert figures["not_executed_decisions"].get("allow", 0) > 0  # the rules still work


# ---------------------------------------------------------------- protected paths (secrets)

MARKER = "MARK9f3a2c"


@st.composite
def read_spellings(draw: st.DrawFn) -> str:
    target = draw(
        st.sampled_from(
            [".env", "./.env", "sub/../.env", ".en?", ".e*", "'.env'", '"$PWD/.env"', "[.]env",
             "{.env,notes.txt}", ".en{v,x}", ".e{n,}v", "{notes.txt,sub}",
             "notes.txt", "sub/readme", "sub", ".", ".env$X", ".env${X}", '.en"${X:-v}"',
             ".e${Y}nv", "$D.env", "${PWD}/.env", "notes$X.txt",
             "$1.env", '"$@".env']
        )
    )  # fmt: skip
    program = draw(
        st.sampled_from(
            ["cat {t}", "head {t}", "head -n 5 {t}", "tail {t}", "less {t}", "grep MARK {t}",
             "grep -r MARK {t}", "grep -R MARK {t}", "grep --recursive MARK {t}",
             "cp {t} out.txt", "cp -r {t} outdir", "git diff --no-index /dev/null {t}",
             "git diff --no-index -- /dev/null {t}", "ls {t}", "ls -la {t}", "wc -c {t}",
             "cat -- {t}", "cat < {t}", "git status {t}", "git log {t}",
             "sort --files0-from=list0", "sort --files0=list0", "sort --fil list0",
             "tar -cf - -T names", "tar -cT names -f -", "tar --files-from=names -cf -",
             "wc --files0-from=list0", "grep -r MARK", "grep -rn MARK --exclude-dir=x",
             "grep -R -e MARK"]
        )
    )  # fmt: skip
    command = program.format(t=target)
    return f"{draw(PROGRAM_PREFIXES).replace('exec ', '')}{command}"


@pytest.fixture(scope="module")
def secrets_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("secrets-template")
    work = root / "work"
    (work / "sub").mkdir(parents=True)
    (work / ".env").write_text(f"TOKEN={MARKER}\n")
    (work / "notes.txt").write_text("notes\n")
    (work / "list0").write_text(".env\0")  # file names read by the program, not its words
    (work / "names").write_text(".env\n")
    (work / "sub" / "readme").write_text("readme\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return root


READ_CHECK = (
    f'if grep -rq --exclude=.env {MARKER} "$d/out" "$d/work"; then echo leaked; else echo clean; fi'
)


def test_no_approval_reads_a_protected_file(
    secrets_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    commands = corpus(read_spellings(), SPELLINGS)
    workdir = tmp_path_factory.mktemp("secrets")
    done = run_batch(
        commands, workdir=workdir, template=secrets_template, check=READ_CHECK, stubs=["git"]
    )
    workspace = secrets_template / "work"  # decided where the files are
    ruleset = RuleSet(
        parse_config(
            {"rules": [*readme_rules(),
                       {"name": "readers", "action": "allow",
                        "command": ["cat *", "head *", "tail *", "less *", "grep *", "cp *",
                                    "wc *", "sort *", "tar *"]}]}
        )
    )  # fmt: skip
    rows = [(e, decide(ruleset, e.command, str(workspace)), e.effect == "leaked") for e in done]
    figures = tally("protected path (.env)", rows)
    allowed = [e.command for e, decision, hit in rows if hit and decision == "allow"]
    assert not allowed, f"read .env and was allowed: {allowed[:5]} ({figures})"
    assert figures["executed"] > 0
    assert figures["not_executed_decisions"].get("allow", 0) > 0
