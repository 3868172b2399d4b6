"""One rule for the variables a session sets for its commands: none may change what runs.

A session's commands (the ``bash`` tool's) may run with variables the session sets, for example
those a ``SessionStart`` hook writes to ``CLAUDE_ENV_FILE``. Such a variable must never change
*which program runs* or *what code a program loads*, because the approval rules judge the
command text only: ``ls`` is harmless unless ``PATH`` finds the project's ``ls`` first.

:func:`review` splits a set of variables into what may be used and what is refused, with the
reason for each refusal. Refused are:

* ``PATH`` entries that are relative (``.``, ``bin``, an empty entry, which means ``.``), lie
  inside the project directory, are not an existing directory, or lie in a directory anyone may
  write to (``/tmp/x``), links resolved (the other entries are kept);
* every name of the families below, whatever its value: the shells' start-up and option
  variables (``BASH_ENV``, ``ENV``, ``PROMPT_COMMAND``, ``PS*``, ``SHELLOPTS``, ``BASHOPTS``,
  ``BASH_FUNC_*``, ``IFS``, ``CDPATH``, ``HOME``, ``ZDOTDIR``, ...); the dynamic loader's
  (``LD_*``, ``GCONV_PATH``, ``GLIBC_TUNABLES``, ``DYLD_*``); git's (``GIT_*`` except the
  author and committer identity); the interpreters' and package managers' (``PYTHON*``
  except a few output switches, ``NODE_*`` except ``NODE_ENV``, ``NPM_CONFIG_*``,
  ``PERL*``, ``RUBY*``, ``GEM_*``, ``BUNDLE_*``, ``JAVA_TOOL_OPTIONS``, ``LUA_*``, ``CARGO_*``,
  ``RUSTC*``, ``GO*``, ...); the programs other programs start (``EDITOR``, ``PAGER``,
  ``LESSOPEN``, ``*ASKPASS``, ``CC``, ``MAKEFLAGS``, ...); and the generic shapes of all of
  them: a name ending in ``PATH``, ``_OPTIONS``, ``_OPTS``, ``OPT``, ``LIB``, ``_HOME``,
  ``RC``, ``_COMMAND``, ``_CMD``, ``_PROGRAM``, ``_WRAPPER``, ``_EDITOR``, ``_PAGER``,
  ``_SHELL``, ``_INIT``, ``_STARTUP``, or holding ``CONFIG``, ``_CONF`` or ``PRELOAD``; the
  version managers' selectors of which program their shims run (``PYENV_*``, ``RBENV_*``,
  ``NODENV_*``, ``ASDF_*``, ``MISE_*``, ``NVM_*``, a name ending in ``_VERSION`` or
  ``_TOOLCHAIN``);
* every variable whose value climbs out of a directory (``..`` as a path component): a program
  joins such a value to a directory of its own (``PYENV_VERSION=../../../repo/evil`` made the
  pyenv shim of an approved ``pytest`` run the project's program);

* every variable that hands a program options or arguments (:func:`option_variable`): a name
  ending in ``OPTS``, ``OPTIONS``, ``FLAGS``, ``ARGS``, ``ARGV``, ``PARAMS``, ``_EXTRA``,
  ``_DEFAULTS``, holding ``ADDOPTS``, starting with a test or build tool's prefix
  (``PYTEST_``, ``TOX_``, ``COVERAGE_``, ``MAVEN_`` ...), the programs' own (``LESS``,
  ``GZIP``, ``XZ_OPT``, ``PARALLEL``, ``TAR_OPTIONS`` ...), and any variable whose value holds
  an option word (``-x``, ``--name``): ``PYTEST_ADDOPTS=--basetemp=DIR`` would make an
  approved ``pytest -q`` empty DIR;
* every variable whose name says it acts on the programs that read it
  (:func:`variable_class`): the shell's own variables (bash's, ``COMP_WORDBREAKS``,
  ``HISTCONTROL``, ``TIMEFORMAT`` ...); a place a program reads or writes files (a name ending
  in ``DIR``, ``FILE``, ``TMP``, ``ROOT``, ``PREFIX``, ``SOCKET`` ...: ``TMPDIR``, ``TZDIR``,
  ``SSLKEYLOGFILE``); where a program connects (``DISPLAY``, ``*_PROXY``, ``*_ENDPOINT``,
  ``*_ADDRESS``); a runtime's parameters (``OCAMLRUNPARAM``, ``*TUNABLES``, ``MALLOC_*``);
  code a program loads by name or what it trusts (``*_MODULE(S)``, ``*_PLUGIN(S)``,
  ``*LIBRARY``, ``*INPUTS``, ``*_APP``, ``*CA_BUNDLE``, ``*CAINFO``, ``KRB5*``, ``GTK*``,
  ``QT_*``: ``DJANGO_SETTINGS_MODULE``, ``FLASK_APP``, ``CURL_CA_BUNDLE``); a version at the
  end of a name read away (``GST_PLUGIN_PATH_1_0`` is a ``*PATH``);
  ``TZ`` naming a file. Only the output switches ``PYTHONUNBUFFERED``, ``PYTHONIOENCODING``,
  ``PYTHONUTF8``, ``PYTHONHASHSEED``, ``PYTHONFAULTHANDLER`` are let through of an
  interpreter's variables.

Names are compared in upper case (``npm_config_*`` is ``NPM_CONFIG_*``). What is not
refused is plain data a program reads (``NODE_ENV=production``, ``API_URL=...``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from collections.abc import Mapping
from typing import Final

__all__ = ["Refusal", "Review", "option_variable", "review", "risky_name", "variable_class"]

_NAMES: Final = frozenset(
    {
        # shells: start-up files, prompts run as code, options, functions, word splitting
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "IFS",
        "CDPATH",
        "EXECIGNORE",
        "GLOBIGNORE",
        "FPATH",
        "ZDOTDIR",
        "INPUTRC",
        "HOME",
        "SHELL",
        "HISTFILE",
        "TMOUT",
        "POSIXLY_CORRECT",
        # the dynamic loader and the C library
        "GCONV_PATH",
        "GLIBC_TUNABLES",
        "HOSTALIASES",
        "NLSPATH",
        "LOCPATH",
        "RESOLV_HOST_CONF",
        "MALLOC_CHECK_",
        # programs that other programs start
        "EDITOR",
        "VISUAL",
        "PAGER",
        "MANPAGER",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "LESSKEY",
        "TERMINFO",
        "TERMINFO_DIRS",
        "CC",
        "CXX",
        "CPP",
        "LD",
        "AR",
        "AS",
        "FC",
        "MAKE",
        "MAKEFLAGS",
        "MAKEFILES",
        "MFLAGS",
        "GNUMAKEFLAGS",
        "CONFIG_SITE",
        "CFLAGS",
        "CXXFLAGS",
        "CPPFLAGS",
        "LDFLAGS",
        "TAR_OPTIONS",
        "GZIP",
        "BZIP2",
        "XZ_DEFAULTS",
        "ZSTD_CLEVEL",
        "CLASSPATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "KUBECONFIG",
        "NETRC",
        "CURL_HOME",
        "WGETRC",
        "OPENSSL_ENGINES",
        "OPENSSL_MODULES",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "GNUPGHOME",
        "DOCKER_HOST",
        "R_ENVIRON",
        "R_PROFILE",
        "TCLLIBPATH",
        "RUSTC",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "GOFLAGS",
        "GOROOT",
        "GOTOOLCHAIN",
        "GOPROXY",
        "GONOSUMDB",
        "GOINSECURE",
        "GOENV",
        "GOBIN",
        "GOEXPERIMENT",
        "GODEBUG",
        "MAVEN_ARGS",
        "SBT_OPTS",
        "DENO_DIR",
    }
)
_PREFIXES: Final = (
    "LD_",
    "DYLD_",
    "BASH_",
    "GIT_",
    "PYTHON",
    "NODE_",
    "NPM_",
    "YARN_",
    "PNPM_",
    "COREPACK_",
    "BUN_",
    "PERL",
    "RUBY",
    "GEM_",
    "BUNDLE_",
    "JAVA",
    "_JAVA",
    "JDK_",
    "GRADLE_",
    "LUA_",
    "CARGO_",
    "RUSTUP_",
    "PIP_",
    "UV_",
    "POETRY_",
    "PIPENV_",
    "CONDA_",
    "XDG_",
    "SSH_",
    "DOCKER_",
    "KUBE",
    "AWS_CONFIG",
    "AWS_SHARED",
    "PHP",
    "DOTNET_",
    "COMPlus_".upper(),
    "CORECLR_",
    "ERL_",
    "ELIXIR_",
    "GHC_",
    "CABAL_",
    "OPAM",
    "TEXMF",
    "EMACS",
    "VIM",
    "MYVIMRC",
    # version managers: which interpreter or tool their shims run (PYENV_VERSION picks a
    # directory under versions/, and ../ climbs out of it into the project)
    "PYENV",
    "RBENV",
    "NODENV",
    "GOENV",
    "JENV",
    "PLENV",
    "PHPENV",
    "SWIFTENV",
    "TFENV",
    "ASDF_",
    "MISE_",
    "RTX_",
    "VOLTA_",
    "FNM_",
    "NVM_",
    "SDKMAN_",
    "DENO_",
    "R_PROFILE",
    "R_ENVIRON",
    "R_LIBS",
)
_SUFFIXES: Final = (
    "PATH",
    "_OPTIONS",
    "_OPTS",
    "OPT",
    "LIB",
    "_HOME",
    "RC",
    "_COMMAND",
    "_CMD",
    "_PROGRAM",
    "_WRAPPER",
    "_EDITOR",
    "_PAGER",
    "_SHELL",
    "_INIT",
    "_STARTUP",
    "_EXEC",
    "ASKPASS",
    "_VERSION",
    "_TOOLCHAIN",
    "EXINIT",
    "INIT",  # commands an editor or interpreter runs at start (GVIMINIT, VIMINIT, LUA_INIT)
    "LAUNCHER",  # a program put in front of a compiler (CMAKE_C_COMPILER_LAUNCHER)
    "WRAPPER",
)
# RUN_AS: a switch making a program run as another (ELECTRON_RUN_AS_NODE makes any Electron
# application a node interpreter of its arguments)
_INFIXES: Final = ("CONFIG", "_CONF", "PRELOAD", "_EXEC_", "RUN_AS")
_HARMLESS: Final = frozenset(
    {
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_TERMINAL_PROMPT",
        "PYTHONUNBUFFERED",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONHASHSEED",
        "PYTHONFAULTHANDLER",
        "NODE_ENV",
        "NODE_NO_WARNINGS",
    }
)
# Variables a program reads its own options and arguments from: what they hold is part of the
# command line, so a command approved by its text would run with more options than it shows
# (PYTEST_ADDOPTS=--basetemp=DIR makes ``pytest -q`` empty DIR).
_OPTION_NAMES: Final = frozenset(
    {
        "LESS",
        "MORE",
        "GZIP",
        "BZIP",
        "BZIP2",
        "XZ_OPT",
        "XZ_DEFAULTS",
        "ZSTD_CLEVEL",
        "ZSTD_NBTHREADS",
        "PARALLEL",
        "MANOPT",
        "GREP_OPTIONS",
        "GREP_COLOR",
        "TAR_OPTIONS",
        "QUILT_PATCHES",
        "RSYNC_RSH",
        "RSYNC_CONNECT_PROG",
        "SHELLCHECK_OPTS",
        "HTTPIE_CONFIG_DIR",
        "FZF_DEFAULT_COMMAND",
    }
)
_OPTION_PREFIXES: Final = (
    "PYTEST_",
    "TOX_",
    "NOX_",
    "COVERAGE_",
    "COV_CORE_",
    "MYPY_",
    "RUFF_",
    "HYPOTHESIS_",
    "MAVEN_",
    "SBT_",
    "ANT_",
    "PARALLEL_",
)
_OPTION_SUFFIXES: Final = (
    "OPTS",
    "OPTIONS",
    "FLAGS",
    "ARGS",
    "ARGV",
    "ARGUMENTS",
    "PARAMS",
    "PARAMETERS",
    "_OPT",
    "_EXTRA",
    "_DEFAULTS",
)
_OPTION_INFIXES: Final = ("ADDOPTS", "_OPTS_", "_ARGS_", "_FLAGS_", "_OPTIONS_", "_ARGV_")
# A value holding a command-line option (a word ``-x`` or ``--name``), whatever the name.
_OPTION_VALUE: Final = re.compile(r"(?:^|\s)--?[A-Za-z]")
_SEARCH_PATH: Final = "PATH"
# A value holding ``..`` as a path component: a program that joins it to a directory of its
# own (a version manager's versions/) is led out of it, into the project.
_CLIMBS: Final = re.compile(r"(?:^|[/\\:=\s])\.\.(?:[/\\:\s]|$)")
_VALID_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# What else a variable does to the programs that read it, by class (the name's shape says
# which; a name of no class is the project's own data):
# the shell's own variables (bash's manual, "Shell Variables"): completion, history, timing,
# mail checks, the shell's identity; a command's shell reads them before any rule's program.
_SHELL_NAMES: Final = frozenset(
    {"BASH", "BASHPID", "CHILD_MAX", "COLUMNS", "COPROC", "DIRSTACK", "EMACS", "EPOCHREALTIME",
     "EPOCHSECONDS", "EUID", "FCEDIT", "FIGNORE", "FUNCNAME", "FUNCNEST", "GROUPS", "HISTCMD",
     "HISTCONTROL", "HISTFILESIZE", "HISTIGNORE", "HISTSIZE", "HISTTIMEFORMAT", "HOSTFILE",
     "HOSTNAME", "HOSTTYPE", "IGNOREEOF", "LINENO", "MACHTYPE", "MAIL", "MAILCHECK", "MAILPATH",
     "MAPFILE", "OLDPWD", "OPTARG", "OPTERR", "OPTIND", "OSTYPE", "PIPESTATUS", "PPID",
     "PROMPT_DIRTRIM", "PWD", "RANDOM", "READLINE_ARGUMENT", "READLINE_LINE", "READLINE_MARK",
     "READLINE_POINT", "REPLY", "SECONDS", "SHLVL", "SRANDOM", "TIMEFORMAT", "UID", "HISTCHARS",
     "auto_resume", "histchars", "TMPDIR", "TEXTDOMAIN", "TEXTDOMAINDIR"}
)  # fmt: skip
_SHELL_PREFIXES: Final = ("COMP_", "COMPREPLY", "READLINE_")
# where a program reads or writes files: a temporary or data directory (TMPDIR, TZDIR), a
# file it appends to (SSLKEYLOGFILE writes TLS session keys), a socket it talks through
_LOCATION_SUFFIXES: Final = (
    "DIR", "DIRS", "FILE", "FILES", "_LOG", "LOGFILE", "LOGDIR", "TMP", "TEMP", "ROOT",
    "PREFIX", "CACHE", "SOCK", "SOCKET", "AUTHORITY", "DB", "DATABASE",
)  # fmt: skip
_LOCATION_NAMES: Final = frozenset(
    {"TMP", "TEMP", "TEMPDIR", "TMPDIR", "XAUTHORITY", "TAPE", "MAGIC", "TERMCAP", "LESSKEYIN",
     "SIMPLE_BACKUP_SUFFIX", "VERSION_CONTROL"}
)  # fmt: skip
# TAPE: the archive tar writes without -f; MAGIC: libmagic's database; TERMCAP: a terminal
# description (or its file); LESSKEYIN: less's key bindings; the backup suffix and method: the
# names of the files cp, mv, ln and install write
# where a program connects: an X or Wayland display, a proxy, a bus, a service endpoint
_ENDPOINT_NAMES: Final = frozenset({"DISPLAY", "NO_PROXY", "GPG_AGENT_INFO"})
# a list of servers a program sends to or fetches from (DEBUGINFOD_URLS, DISTCC_HOSTS), a
# host, server or registry it talks to; one ``*_URL`` is the project's own data (API_URL)
_ENDPOINT_SUFFIXES: Final = (
    "DISPLAY", "PROXY", "_ADDRESS", "_ENDPOINT", "_ENDPOINT_URL", "_URLS", "_URIS", "HOSTS",
    "_HOST", "_SERVER", "_SERVERS", "REGISTRY",
)  # fmt: skip
_ENDPOINT_INFIXES: Final = ("ENDPOINT", "PROXY_")
# a runtime's own parameters and tunables (OCAMLRUNPARAM, GLIBC_TUNABLES, MALLOC_ARENA_MAX):
# options by another name
_RUNTIME_PREFIXES: Final = ("MALLOC_", "OCAML", "GHCRTS", "ERL", "GC_", "MONO_", "WINE")
_RUNTIME_SUFFIXES: Final = ("PARAM", "PARAMS", "TUNABLES", "RTS", "_DEBUG")
# code a program loads by the name it is given (GTK_MODULES, DJANGO_SETTINGS_MODULE,
# FLASK_APP, TCL_LIBRARY, TEXINPUTS), and what a program trusts (CURL_CA_BUNDLE, KRB5CCNAME)
_LOAD_SUFFIXES: Final = (
    "MODULE", "MODULES", "_PLUGIN", "_PLUGINS", "LIBRARY", "LIBRARIES", "INPUTS", "_APP",
    "EXTENSIONS", "CA_BUNDLE", "CAINFO", "CAPATH", "_CERT", "_CERTS", "CCNAME", "KEYRING",
    "BACKEND", "APPNAME",
)  # fmt: skip
# BACKEND: a module loaded by the name given (MPLBACKEND=module://x imports x); APPNAME: the
# directory a program loads its configuration, and so its code, from (NVIM_APPNAME)
_LOAD_PREFIXES: Final = ("KRB5", "JULIA_", "GST_", "GTK", "GIO_", "GDK_", "QT_", "TEX")
# a version at the end of a name is not its meaning (GST_PLUGIN_PATH_1_0 is a PATH)
_VERSION_TAIL: Final = re.compile(r"(?:_[0-9]+)+$")
# a value a program reads as a file or directory: TZ=:/path, an absolute or home path
_PATH_VALUE: Final = re.compile(r"^:?(?:/|~)")


def variable_class(name: str, value: str = "") -> str | None:
    """What a variable ``name=value`` does to the programs that read it, beyond running or
    loading code and passing options (those are :func:`risky_name`, :func:`option_variable`):
    the phrase saying so, or ``None`` for the project's own data."""
    upper = name.upper()
    if upper in _HARMLESS or upper == _SEARCH_PATH:
        return None
    bare = _VERSION_TAIL.sub("", upper)
    if bare != upper and (risky_name(bare) or option_variable(bare)):
        return "it can change which program runs or what code a program loads"
    upper = bare or upper
    if upper.endswith(_LOAD_SUFFIXES) or upper.startswith(_LOAD_PREFIXES):
        return "it names code a program loads, or what it trusts"
    if name in _SHELL_NAMES or upper in _SHELL_NAMES or upper.startswith(_SHELL_PREFIXES):
        return "the shell running the command reads it"
    if (
        upper in _ENDPOINT_NAMES
        or upper.endswith(_ENDPOINT_SUFFIXES)
        or any(part in upper for part in _ENDPOINT_INFIXES)
    ):
        return "it changes where a program connects"
    if upper in _LOCATION_NAMES or upper.endswith(_LOCATION_SUFFIXES):
        return "it changes where a program reads or writes files"
    if upper.startswith(_RUNTIME_PREFIXES) or upper.endswith(_RUNTIME_SUFFIXES):
        return "it sets a program's runtime parameters"
    if upper == "TZ" and _PATH_VALUE.match(value):
        return "it names a file a program reads"
    return None


def risky_name(name: str) -> bool:
    """Whether a variable called ``name`` can change what a command runs or loads, whatever its
    value (``PATH`` itself is judged by its entries, in :func:`review`)."""
    upper = name.upper()
    if upper in _HARMLESS:
        return False
    if upper == _SEARCH_PATH:
        return False
    if upper in _NAMES or not _VALID_NAME.fullmatch(name):
        return True  # a name no shell can set (BASH_FUNC_ls%%) is an exported function
    return (
        upper.startswith(_PREFIXES)
        or upper.endswith(_SUFFIXES)
        or any(part in upper for part in _INFIXES)
    )


def option_variable(name: str, value: str = "") -> bool:
    """Whether ``name=value`` hands a program options or arguments: a name of that family
    (``*ADDOPTS``, ``*FLAGS``, ``*_OPTIONS``, ``*OPTS``, ``*ARGS``, ``PYTEST_*``, ``LESS``,
    ``GZIP`` ...), or a value holding an option word (``-x``, ``--name``)."""
    upper = name.upper()
    if upper in _HARMLESS:
        return False
    return (
        upper in _OPTION_NAMES
        or upper.startswith(_OPTION_PREFIXES)
        or upper.endswith(_OPTION_SUFFIXES)
        or any(part in upper for part in _OPTION_INFIXES)
        or _OPTION_VALUE.search(value) is not None
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    """One variable (or part of ``PATH``) that is not used, and why."""

    name: str
    why: str


@dataclasses.dataclass(frozen=True, slots=True)
class Review:
    """``allowed``: the variables to use (``PATH`` without its refused entries);
    ``refused``: what was left out and why."""

    allowed: dict[str, str]
    refused: tuple[Refusal, ...]


def _inside(entry: str, project: str) -> bool:
    resolved = os.path.realpath(entry)
    return resolved == project or resolved.startswith(project.rstrip(os.sep) + os.sep)


def _shared(entry: str) -> str | None:
    """The directory at or above ``entry`` (links resolved) that anyone may write to, so
    anyone may have put programs there (``/tmp/x``); ``None`` when there is none."""
    path = os.path.realpath(entry)
    while True:
        try:
            if os.stat(path).st_mode & stat.S_IWOTH:
                return path
        except OSError:
            pass
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _path_problems(value: str, project: str | None) -> tuple[str, list[str]]:
    """``value`` without its refused entries, and a reason for each refused one."""
    kept: list[str] = []
    why: list[str] = []
    for entry in value.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            why.append(
                f"entry {entry or '(empty)'!r} is relative (it finds programs in the "
                "current directory)"
            )
        elif project is not None and _inside(entry, project):
            why.append(f"entry {entry!r} is inside the project directory {project}")
        elif not os.path.isdir(entry):
            why.append(f"entry {entry!r} is not a directory (one made later would be searched)")
        elif (shared := _shared(entry)) is not None:
            why.append(f"entry {entry!r} is in {shared}, which anyone may write to")
        else:
            kept.append(entry)
    return os.pathsep.join(kept), why


def review(variables: Mapping[str, str], *, project_dir: str | None = None) -> Review:
    """What of ``variables`` a session's commands may run with (see the module docstring).

    :param project_dir: the project directory; ``PATH`` entries inside it are refused.
    """
    project = os.path.realpath(project_dir) if project_dir else None
    allowed: dict[str, str] = {}
    refused: list[Refusal] = []
    for name, value in variables.items():
        if name.upper() == _SEARCH_PATH:
            kept, problems = _path_problems(value, project)
            refused.extend(Refusal(name, problem) for problem in problems)
            if kept:
                allowed[name] = kept
            continue
        if risky_name(name):
            refused.append(
                Refusal(name, "it can change which program runs or what code a program loads")
            )
            continue
        if _CLIMBS.search(value) is not None:
            refused.append(Refusal(name, "its value climbs out of a directory with '..'"))
            continue
        if option_variable(name, value):
            refused.append(
                Refusal(
                    name,
                    "it hands a program options or arguments the command text does not show",
                )
            )
            continue
        what = variable_class(name, value)
        if what is not None:
            refused.append(Refusal(name, what))
            continue
        allowed[name] = value
    return Review(allowed, tuple(refused))
