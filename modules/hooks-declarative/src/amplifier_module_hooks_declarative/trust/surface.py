"""What a trust record covers: a project's hook surface, found and fingerprinted in one pass.

The surface of a project (see ``docs/security.md``, "What trust covers") is:

1. its hooks files (:data:`HOOKS_FILES`, :data:`HOOKS_GLOBS`, hook-shell's ``hooks.json``
   under the hook directories, the included files that hold hooks);
2. every file under its hook directories (:data:`HOOK_DIRS`) and under each included
   directory;
3. every path a hooks file's commands name (``command``, ``args``, ``cwd``, ``env`` values)
   that exists in the project (tried from the project,
   from the file's directory and from every directory named before it): a named directory is
   covered whole; a named file is covered together with every file under its directory (a
   script imports, sources and reads its siblings), or alone when it lies at the project's
   top level; a bare word that is the name or stem of a top-level entry (``import guard``,
   ``-m tools.guard``) covers that entry; a path with a variable part (``$LIB/env.sh``,
   ``${LIB:-conf}/env.sh``) covers every entry its shape matches, each variable read as any
   one name (``*/env.sh``), watches its last name in each directory the rest matches and
   each directory a variable stands for for new subdirectories (a glob ending in ``/`` in
   :attr:`Surface.patterns`);
4. the files a tool a command runs reads from the working directory (``make``: its
   makefiles; ``npm``, ``npx``, ``node``, ``yarn``, ``pnpm``, ``bun``: ``package.json`` and
   the ``node_modules/.bin`` entry named);
5. the same, again, for every file of the surface that holds code (a script names its
   libraries: ``source lib/common.sh``, ``require('../lib/x')``, a Makefile's recipe, a
   ``package.json`` script), until nothing new is found;
6. for a link anywhere in the surface, the link's own text and what it leads to, so a
   re-pointed link or a changed target outside the project is a change;
7. interpreters inside the project: a ``#!`` line naming a program in the project (absolute,
   or relative, which the kernel resolves from the working directory: the project) makes that
   program part of the surface like a script; when anything of the surface runs Python
   (``python``, ``python3.12``, a ``#!`` line naming python) and the project holds a virtual
   environment (a ``pyvenv.cfg`` at its top level or one directory down), the files that
   environment's python runs before any script are surface too: ``pyvenv.cfg``, its
   ``bin/python*`` links with their targets, every ``*.pth`` file, ``sitecustomize`` and
   ``usercustomize`` of its ``site-packages`` and the modules the ``.pth`` lines import; and
   any such name that appears there later (:attr:`Surface.patterns`);
8. packages loaded by name: a package a JavaScript file of the surface ``require``s or
   ``import``s by name (``node_modules/<name>`` in its directory or the nearest one above it
   in the project, whole), and a module a Python file imports that lies in the
   ``site-packages`` of a virtual environment of the project;
9. the project as a home: a hooks file that names the project directory itself (``HOME``)
   makes every dot file at its top level code of the surface, present or appearing later.

Each file is recorded by its SHA-256, a link as its target text with the target's digest,
anything else (FIFO, device, socket) by its kind, never read. A file *holds code* when it is a
hooks file, is executable, starts with ``#!``, has a program's or library's suffix
(:data:`CODE_SUFFIXES`) or is a build file (:data:`BUILD_FILES`): those are what trust never
lets change silently. The rest (configuration a hook reads, data it writes) is recorded too;
what changes of it during one of the project's own hook runs, when its name says data
(:func:`says_data`), is the hook's own data (:mod:`.watch`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from glob import escape as glob_escape
from pathlib import Path, PurePosixPath
from typing import Final

from amplifier_hooks_util.regular_file import (
    MAX_HOOKS_FILE_BYTES,
    NotRegularFile,
    kind_of,
    read_regular,
)

from .shadowing import shadowing_globs

__all__ = [
    "BUILD_FILES",
    "CODE_SUFFIXES",
    "DATA_DIRS",
    "DATA_SUFFIXES",
    "HOOKS_FILES",
    "HOOKS_GLOBS",
    "HOOK_DIRS",
    "MAX_FILES",
    "FileState",
    "Surface",
    "TooManyFiles",
    "holds_code",
    "looks_like_code",
    "says_data",
    "scan_surface",
    "state_of",
]

HOOKS_FILES: Final = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".amplifier/hooks.yaml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".codex/hooks.json",
    ".factory/hooks.json",
    ".windsurf/hooks.json",
)
"""Files a project brings whose hooks run commands, relative to the project directory."""

HOOKS_GLOBS: Final = (".github/hooks/*.json",)
"""Patterns of hooks files a project brings (GitHub Copilot reads every ``.json`` there)."""

HOOK_DIRS: Final = (
    ".claude/hooks",
    ".amplifier/hooks",
    ".gemini/hooks",
    ".cursor/hooks",
    ".codex/hooks",
    ".factory/hooks",
    ".github/hooks",
    ".windsurf/hooks",
    ".clinerules/hooks",
)
"""Directories whose every file is part of what the user trusts."""

MAX_FILES: Final = 2000
"""A surface with more files cannot be trusted: a record that left some out would not notice
them change."""

CODE_SUFFIXES: Final = frozenset(
    {
        ".sh", ".bash", ".zsh", ".ksh", ".fish", ".py", ".pyw", ".pyc", ".pth", ".js", ".mjs",
        ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".rb", ".pl", ".pm", ".php", ".ps1",
        ".psm1", ".bat", ".cmd", ".awk", ".sed", ".tcl", ".lua", ".mk", ".make", ".jar",
        ".class", ".so", ".dylib", ".node", ".wasm", ".exe", ".go", ".rs", ".swift", ".kts",
        ".groovy", ".r", ".jl", ".ex", ".exs", ".el", ".vim", ".zshrc", ".bashrc", ".profile",
    }
)  # fmt: skip
"""Suffixes of programs and libraries: a file with one holds code."""

BUILD_FILES: Final = frozenset(
    {
        "Makefile", "makefile", "GNUmakefile", "package.json", "justfile", "Justfile",
        "Rakefile", "Taskfile.yml", "noxfile.py", "tox.ini", "tasks.py", "pyproject.toml",
        "setup.cfg", "setup.py", "deno.json", "bunfig.toml", ".npmrc", ".envrc",
    }
)  # fmt: skip
"""Files a tool reads its commands from: they hold code."""

DATA_SUFFIXES: Final = frozenset(
    {
        ".log", ".jsonl", ".ndjson", ".json", ".txt", ".csv", ".tsv", ".db", ".sqlite",
        ".sqlite3", ".lock", ".pid", ".state", ".cache", ".out", ".err",
    }
)  # fmt: skip
"""Suffixes of the files a hook writes as its own record: logs, state, caches, locks."""

DATA_DIRS: Final = frozenset({"cache", ".cache", "log", "logs", "state"})
"""Directories whose files a hook writes as its own record, whatever their names."""

# The files a tool reads from its working directory when a command runs it.
_TOOL_FILES: Final[dict[str, tuple[str, ...]]] = {
    "make": ("GNUmakefile", "makefile", "Makefile"),
    "gmake": ("GNUmakefile", "makefile", "Makefile"),
    "npm": ("package.json", ".npmrc"),
    "npx": ("package.json", ".npmrc"),
    "node": ("package.json",),
    "yarn": ("package.json", ".yarnrc", ".yarnrc.yml"),
    "pnpm": ("package.json", ".npmrc"),
    "bun": ("package.json", "bunfig.toml"),
    "just": ("justfile", "Justfile"),
    "rake": ("Rakefile",),
    "task": ("Taskfile.yml",),
    "nox": ("noxfile.py",),
    "tox": ("tox.ini", "pyproject.toml"),
    "invoke": ("tasks.py",),
    "uv": ("pyproject.toml",),
    "direnv": (".envrc",),
}
_NODE_BIN: Final = "node_modules/.bin"
_NODE_MODULES: Final = "node_modules"
_JS_SUFFIXES: Final = frozenset({".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"})
_JS_SPECIFIER: Final = re.compile(
    r"""(?:\brequire\s*\(|\bimport\s*\(|\bfrom|\bimport)\s*['"`]([^'"`\s]+)['"`]"""
)
_MAX_SCANNED: Final = 1 << 20  # larger files are hashed, not read for the paths they name
_PROJECT_VARIABLES: Final = re.compile(
    r"\$\{?(?:CLAUDE_PROJECT_DIR|AMPLIFIER_PROJECT_DIR|GEMINI_PROJECT_DIR|CURSOR_PROJECT_DIR"
    r"|PWD|AMPLIFIER_HOOKS_DIR)\}?|\$\{?\w*PLUGIN_ROOT\}?|\$\{?\w*extensionPath\}?"
)
_PLUGIN_ROOT: Final = re.compile(r"\$\{?\w*PLUGIN_ROOT\}?")
_VARIABLE: Final = re.compile(r"\$\{?\w+\}?|\$\(")
_VARIABLE_PART: Final = re.compile(r"\$\{?\w+\}?|\$\(.*|\$")
_BRACED: Final = re.compile(r"\$\{#?!?(\w+)[^}\n]{0,200}\}")  # ${X}, ${X:-conf}: $X
_NOT_SHAPED: Final = frozenset({".git", "node_modules"})
_MAX_SHAPE_DEPTH: Final = 6
_MAX_SHAPE_MATCHES: Final = 200
_TOKEN: Final = re.compile(r"[^\s\"'`;&|()<>=,\[\]{}\\:]+")
_PY_IMPORT: Final = re.compile(r"(?:^|[\s;'\"])(?:from|import)\s+([A-Za-z_][\w.]*)", re.MULTILINE)
_DOTTED: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_DUNDER_IMPORT: Final = re.compile(r"__import__\(\s*['\"]([A-Za-z_][\w.]*)['\"]")
_IMPORT_MODULE: Final = re.compile(r"import_module\(\s*['\"]([A-Za-z_][\w.]*)['\"]")
_PYTHON: Final = re.compile(r"python[0-9.]*[mw]?(?:\.exe)?")
_STARTUP_GLOBS: Final = ("*.pth", "sitecustomize*", "usercustomize*")
"""What a python run in a virtual environment executes from its ``site-packages`` first."""


def _virtual_environments(project: Path) -> list[Path]:
    """The virtual environments a project holds: directories with a ``pyvenv.cfg`` at its
    top level or one directory down (``.venv``, ``venv``, ``tools/.venv``)."""
    found: list[Path] = []
    try:
        tops = sorted(p for p in project.iterdir() if p.is_dir())
    except OSError:
        return found
    for top in tops:
        if (top / "pyvenv.cfg").is_file():
            found.append(top)
            continue
        try:
            found += sorted(p for p in top.iterdir() if (p / "pyvenv.cfg").is_file())
        except OSError:
            continue
    return found


def _site_packages(venv: Path) -> list[Path]:
    sites: list[Path] = []
    for lib in ("lib", "lib64"):
        if (venv / lib).is_dir():
            sites += sorted(p / "site-packages" for p in (venv / lib).glob("python*"))
    sites.append(venv / "Lib" / "site-packages")
    seen: set[str] = set()
    unique: list[Path] = []
    for site in sites:
        real = os.path.realpath(site)
        if site.is_dir() and real not in seen:
            seen.add(real)
            unique.append(site)
    return unique


class TooManyFiles(ValueError):
    """A project's hook surface holds more files than a record covers."""


@dataclass(frozen=True, slots=True)
class FileState:
    """One file of the surface as it is now: ``digest`` (SHA-256, ``link ...`` or the kind of
    a special file) and whether it holds code (:func:`looks_like_code`)."""

    digest: str
    code: bool
    mark: tuple[int, int, int, int] | None = field(default=None, compare=False)
    """``(mtime_ns, ctime_ns, size, inode)`` as it was just before it was read: a later
    ``stat`` that differs means it may have changed since."""


@dataclass(slots=True)
class Surface:
    """A project's hook surface (module docstring), found in one pass.

    ``states``: ``{project-relative name: FileState}`` (a link out of the project also under
    its target's absolute path). ``hooks``: the names of its hooks files. ``contents``: the
    bytes of the hooks files asked for (``keep``), keyed by their real path: exactly the bytes
    hashed, for the caller to parse. ``errors``: why a kept file could not be read. ``dirs``:
    directories whose every entry is surface; ``names``: other directories with the names in
    them that are.
    """

    project: Path
    states: dict[str, FileState] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    hooks: set[str] = field(default_factory=set)
    contents: dict[str, bytes] = field(default_factory=dict)
    errors: dict[str, OSError] = field(default_factory=dict)
    dirs: set[Path] = field(default_factory=set)
    names: dict[Path, set[str]] = field(default_factory=dict)
    listing: dict[Path, frozenset[str]] = field(default_factory=dict)
    """What each directory of ``dirs`` held when it was walked."""
    absent: set[Path] = field(default_factory=set)
    """Watched names that did not exist (a module ``import guard`` would find if it came)."""
    patterns: dict[Path, tuple[str, ...]] = field(default_factory=dict)
    """Directories where any entry whose name matches one of the globs is surface, present or
    not yet (a virtual environment's ``site-packages``: ``*.pth``, ``sitecustomize.py``); a
    glob ending in ``/`` matches directories only (where a variable path may lead)."""
    matched: dict[Path, frozenset[str]] = field(default_factory=dict)
    """What each directory of ``patterns`` held that matched, when it was scanned."""

    def digests(self) -> dict[str, str]:
        """``{name: digest}`` of every file, as a record keeps them."""
        return {name: state.digest for name, state in self.states.items()}


def looks_like_code(path: Path, mode: int, head: bytes) -> bool:
    """Whether a file holds code: executable, ``#!``, a code suffix, a build file, or a
    Python bytecode cache."""
    return (
        bool(mode & 0o111 and stat.S_ISREG(mode))
        or head.startswith(b"#!")
        or path.suffix.lower() in CODE_SUFFIXES
        or path.name in BUILD_FILES
        or path.parent.name == "__pycache__"
    )


def says_data(name: str) -> bool:
    """Whether a file's name says it is a hook's own record (:data:`DATA_SUFFIXES`, or under
    one of :data:`DATA_DIRS`): only such a file, holding no code, can become the hooks' data.
    A name that says nothing (``guard.conf``, ``env``, ``settings``) may be what a script
    sources or evaluates, so a change to it is a change, whoever made it."""
    path = PurePosixPath(name)
    if path.suffix.lower() in DATA_SUFFIXES:
        return True
    return any(part.lower() in DATA_DIRS for part in path.parts[:-1])


def holds_code(path: Path) -> bool:
    """:func:`looks_like_code` of the file at ``path`` (``False`` when it cannot be read)."""
    try:
        info = path.stat()
        head = b""
        if stat.S_ISREG(info.st_mode):
            with path.open("rb") as stream:
                head = stream.read(2)
    except OSError:
        return False
    return looks_like_code(path, info.st_mode, head)


def state_of(path: Path, *, keep: bool = False) -> tuple[FileState, bytes | None, OSError | None]:
    """The state of one file; with ``keep``, also the bytes hashed (``None`` when it is not a
    regular file that could be read, with the error why). A link is its target text plus the
    state of what it leads to; a special file is its kind, never opened for reading."""
    try:
        link = os.readlink(path) if path.is_symlink() else None
    except OSError:
        link = None
    prefix = f"link {link} -> " if link is not None else ""
    try:
        info = path.stat()
    except OSError as err:
        return FileState(f"{prefix}unreadable: {err.strerror or err}", True), None, err
    mark = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
    if not stat.S_ISREG(info.st_mode):
        kind = kind_of(info.st_mode)
        refused = NotRegularFile(f"{path}: {kind}, not a regular file; not read")
        return FileState(f"{prefix}not a regular file: {kind}", True, mark), None, refused
    if keep or info.st_size <= _MAX_SCANNED:
        try:
            data = read_regular(path, MAX_HOOKS_FILE_BYTES if keep else _MAX_SCANNED)
        except OSError as err:
            return FileState(f"{prefix}unreadable: {err}", True, mark), None, err
        code = looks_like_code(path, info.st_mode, data[:2]) or link is not None
        return FileState(prefix + hashlib.sha256(data).hexdigest(), code, mark), data, None
    sha = hashlib.sha256()  # large: hashed as a stream, never kept
    head = b""
    try:
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 16), b""):
                head = head or block[:2]
                sha.update(block)
    except OSError as err:
        return FileState(f"{prefix}unreadable: {err.strerror or err}", True, mark), None, err
    code = looks_like_code(path, info.st_mode, head) or link is not None
    return FileState(prefix + sha.hexdigest(), code, mark), None, None


class _Scan:
    def __init__(self, project: Path, keep: Iterable[Path]) -> None:
        self.surface = Surface(project)
        self.project = project
        kept = list(keep)
        self.keep = {os.path.realpath(p) for p in kept}
        self._keep_names = {Path(p).name for p in kept} | {Path(p).name for p in self.keep}
        self.queue: list[tuple[Path, tuple[Path, ...]]] = []
        self.scanned: set[str] = set()
        self.walked: set[str] = set()
        self.bases: list[Path] = [project]
        self._prefix = str(project).rstrip("/") + "/"
        self._python = False
        self._sites: list[Path] = []
        self._shadowed: set[Path] = set()
        self._home = False
        self._imports: set[str] = set()

    # -- adding files

    def _name(self, path: Path) -> str:
        if path.is_relative_to(self.project):
            return path.relative_to(self.project).as_posix()
        return path.as_posix()

    def name_of(self, path: Path) -> str:
        return self._name(path)

    def add_file(self, path: Path, *, hooks: bool = False, named: bool = False) -> None:
        """Add one file; ``hooks``: it is a hooks file; ``named``: a hooks file names it, so
        it counts as code and what it names is followed."""
        name = self._name(path)
        if hooks:
            self.surface.hooks.add(name)
        state = self.surface.states.get(name)
        if state is None:
            wanted = hooks or path.name in self._keep_names  # realpath only where it may matter
            real = os.path.realpath(path) if wanted else ""
            keep = hooks or real in self.keep
            if hooks or named:
                self._watch_links_above(path)
            state, data, error = state_of(path, keep=keep)
            if keep and data is not None:
                self.surface.contents[real] = data
            if keep and error is not None:
                self.surface.errors[real] = error
            self.surface.paths[name] = path
            self._check_count()
            self._watch_name(path)
            if path.is_symlink():
                self._add_target(path)
        if (hooks or named) and not state.code:
            state = FileState(state.digest, True)
        self.surface.states[name] = state
        if state.code and name not in self.scanned and path.is_file():
            self.scanned.add(name)
            self.queue.append((path, ()))

    def _watch_links_above(self, path: Path) -> None:
        """A directory of the project on the way to ``path`` that is a link (``.claude`` ->
        elsewhere): re-pointing it changes what runs, so its name is watched."""
        parent = path.parent
        while parent != self.project and parent.is_relative_to(self.project):
            if parent.is_symlink():
                self._watch_name(parent)
            parent = parent.parent

    def _add_target(self, link: Path) -> None:
        """A link's target outside the project is recorded under its absolute path, and the
        directories on the way are watched."""
        target = Path(os.path.realpath(link))
        if target.is_relative_to(self.project):
            if target.is_file():  # node_modules/.bin/tool -> ../tool/cli.js: watched too
                self.add_file(target, named=True)
            return
        name = target.as_posix()
        if name not in self.surface.states and target.is_file():
            self.surface.states[name], _, _ = state_of(target)
            self.surface.paths[name] = target
            self._watch_name(target)

    def _watch_name(self, path: Path) -> None:
        parent = path.parent
        if parent not in self.surface.dirs:
            self.surface.names.setdefault(parent, set()).add(path.name)

    def cover_dir(self, top: Path) -> None:
        """Every file under ``top`` (links to directories followed, each real one once)."""
        if top in self.surface.dirs or not top.is_dir():  # covered already (or nothing)
            return
        if top.is_symlink():
            self._watch_name(top)
        for root, dirs, files in os.walk(top, followlinks=True):
            real = os.path.realpath(root)
            if real in self.walked:
                dirs.clear()
                continue
            self.walked.add(real)
            here = Path(root)
            self.surface.dirs.add(here)
            self.surface.listing[here] = frozenset(dirs) | frozenset(files)
            dirs.sort()
            for sub in dirs:
                if (here / sub).is_symlink():
                    self._watch_name(here / sub)
            for file in sorted(files):
                self.add_file(here / file)

    def _check_count(self) -> None:
        if len(self.surface.states) > MAX_FILES:
            raise TooManyFiles(
                f"project {self.project}: its hook surface (hooks files, hook directories and "
                f"what their commands name) holds more than {MAX_FILES:,} files, more than a "
                "trust record covers; keep dependencies (node_modules, virtual environments) "
                "out of the directories hooks run from"
            )

    # -- what a file names

    def scan(self, path: Path, roots: Sequence[Path]) -> None:
        try:
            text = read_regular(path, _MAX_SCANNED).decode("utf-8", errors="replace")
        except OSError:
            return
        hooks = self._name(path) in self.surface.hooks
        if hooks:  # what its hooks run, not its permission patterns or other settings
            text = _commands_of(text)
        texts = [
            _PLUGIN_ROOT.sub(_relative(self.project, root).replace("\\", r"\\"), text)
            for root in roots
        ] or [text]
        first = text.split("\n", 1)[0]
        python = path.suffix in (".py", ".pyw") or (first.startswith("#!") and "python" in first)
        if first.startswith("#!"):
            self._interpreter(path, first[2:])
        for each in texts:
            tokens = _TOKEN.findall(_BRACED.sub(r"$\1", _PROJECT_VARIABLES.sub("", each)))
            if not self._python and any(_PYTHON.fullmatch(Path(t).name) for t in tokens):
                self._runs_python()
            self._named(path, tokens, hooks=hooks, python=python or hooks)
            if python or hooks:  # cwd is on sys.path for -c and -m: top-level modules
                for module in _PY_IMPORT.findall(each):
                    self._top_level(module.split(".")[0])
        if python and not self._python:
            self._runs_python()
        if python or hooks:
            dynamic = {*_DUNDER_IMPORT.findall(text), *_IMPORT_MODULE.findall(text)}
            for module in {*_PY_IMPORT.findall(text), *dynamic}:
                self._imported(module.split(".")[0])
            for module in dynamic:  # importlib.import_module('guard') from the working dir
                self._top_level(module.split(".")[0])
        if path.suffix.lower() in _JS_SUFFIXES or (first.startswith("#!") and "node" in first):
            for package in _js_packages(text):
                self._node_package(path.parent, package)

    def _interpreter(self, script: Path, line: str) -> None:
        """A ``#!`` line: the program it names, when it lies in the project, is code of the
        surface. A relative one is found from the working directory (the project, or a ``cwd``
        a hook named) and, to be safe, from the script's own directory."""
        words = line.strip().split(None, 1)
        if not words:
            return
        program = words[0]
        if _PYTHON.fullmatch(Path(program).name) or (
            Path(program).name == "env" and len(words) > 1 and "python" in words[1]
        ):
            self._runs_python()
        if program.startswith("/"):
            candidates = [Path(program)]
        else:
            candidates = [base / program for base in (*self.bases, script.parent)]
        for candidate in candidates:
            text = os.path.normpath(candidate)
            if text.startswith(self._prefix) and os.path.lexists(text):
                self.add_file(Path(text), named=True)
            elif text.startswith(self._prefix):  # a relative interpreter that may come later
                self.surface.absent.add(Path(text))
                self._watch_name(Path(text))

    def _runs_python(self) -> None:
        """Something of the surface runs Python: a virtual environment of the project is
        what ``python`` may resolve to, so what its interpreter runs at start-up is code of
        the surface (module docstring, item 7)."""
        self._python = True
        for base in self.bases:  # python -m and -c import from their working directory first
            self._shadowing(base)
        for venv in _virtual_environments(self.project):
            self.add_file(venv / "pyvenv.cfg", named=True)
            for directory in ("bin", "Scripts"):
                if (venv / directory).is_dir():
                    for entry in sorted((venv / directory).iterdir()):
                        if _PYTHON.fullmatch(entry.name) or entry.name.startswith("python"):
                            self.add_file(entry, named=True)
            for site in _site_packages(venv):
                self._site_startup(site)
                self._sites.append(site)
        for module in sorted(self._imports):
            self._in_sites(module)

    def _imported(self, module: str) -> None:
        """A module code of the surface imports by name: found in a virtual environment of
        the project, its package (or module file) is code of the surface."""
        if module in self._imports:
            return
        self._imports.add(module)
        if self._python:
            self._in_sites(module)

    def _in_sites(self, module: str) -> None:
        for site in self._sites:
            package = site / module
            if package.is_dir():
                self.cover_dir(package)
                return
            for entry in sorted(site.glob(f"{glob_escape(module)}.*")):
                if entry.is_file() and entry.suffix in (".py", ".so", ".pyd", ".pyc"):
                    self.add_file(entry, named=True)
                    return

    def _node_package(self, directory: Path, package: str) -> None:
        """A package code of the surface loads by name (``require('x')``, ``import ... from
        '@s/x'``): the one node finds (``node_modules/<name>`` in the script's directory or the
        nearest one above it in the project) is code of the surface, whole."""
        here = directory
        while str(here).startswith(self._prefix) or here == self.project:
            candidate = here / _NODE_MODULES / package
            if candidate.is_dir():
                self.cover_dir(candidate)
                if candidate.is_symlink():
                    self._watch_name(candidate)
                return
            if candidate.is_file():
                self.add_file(candidate, named=True)
                return
            if here == self.project:
                return
            here = here.parent

    def _shadowing(self, directory: Path) -> None:
        """The modules of a working directory Python may import from first, present or
        appearing later (:mod:`.shadowing`)."""
        if not str(directory).startswith(self._prefix) and directory != self.project:
            return
        if not directory.is_dir() or directory in self._shadowed:
            return
        self._shadowed.add(directory)
        globs = shadowing_globs()
        matched: set[str] = set()
        for entry in sorted(directory.iterdir()):
            if any(fnmatchcase(entry.name, glob) for glob in globs):
                matched.add(entry.name)
                if not entry.is_dir():
                    self.add_file(entry, named=True)
                elif (entry / "__init__.py").is_file():  # a package: what import runs first
                    self.add_file(entry / "__init__.py", named=True)
        self._add_patterns(directory, globs, matched)

    def _add_patterns(self, directory: Path, globs: Iterable[str], matched: Iterable[str]) -> None:
        """Entries of ``directory`` matching ``globs`` (a glob ending in ``/``: directories
        only) are surface, present (``matched``) or appearing later."""
        known = self.surface.patterns.get(directory, ())
        self.surface.patterns[directory] = (*known, *(g for g in globs if g not in known))
        before = self.surface.matched.get(directory, frozenset())
        self.surface.matched[directory] = before | frozenset(matched)

    def _site_startup(self, site: Path) -> None:
        matched: set[str] = set()
        for entry in sorted(site.iterdir()):
            if not any(fnmatchcase(entry.name, glob) for glob in _STARTUP_GLOBS):
                continue
            matched.add(entry.name)
            if entry.is_dir():
                self.cover_dir(entry)
                continue
            self.add_file(entry, named=True)
            if entry.suffix == ".pth":
                self._pth_imports(site, entry)
        self._add_patterns(site, _STARTUP_GLOBS, matched)

    def _pth_imports(self, site: Path, pth: Path) -> None:
        """A ``.pth`` line that starts with ``import`` runs; the modules it names (from the
        ``site-packages`` it lies in) are code of the surface."""
        try:
            text = read_regular(pth, _MAX_SCANNED).decode("utf-8", errors="replace")
        except OSError:
            return
        for line in text.splitlines():
            if not line.startswith(("import ", "import\t")):
                continue
            for module in {*_PY_IMPORT.findall(line), *_DUNDER_IMPORT.findall(line)}:
                top = module.split(".")[0]
                for entry in (site / top, site / f"{top}.py"):
                    if entry.is_dir():
                        self.cover_dir(entry)
                    elif entry.is_file():
                        self.add_file(entry, named=True)

    def _named(self, source: Path, tokens: Sequence[str], *, hooks: bool, python: bool) -> None:
        bases = [source.parent, *self.bases]
        module = False
        for token in tokens:
            word = Path(token).name
            dotted = python and "/" not in token and _DOTTED.fullmatch(token) is not None
            if module or dotted:
                self._top_level(token.split(".")[0])  # -m tools.guard, -m guard
            module = token == "-m"
            for tool_file in _TOOL_FILES.get(word, ()):
                candidate = self.project / tool_file
                if candidate.is_file():
                    self.add_file(candidate, named=True)
            bin_entry = self.project / _NODE_BIN / word
            if word and not word.startswith("-") and os.path.lexists(bin_entry):
                self.add_file(bin_entry, named=True)
            cleaned = _VARIABLE.sub("", token) if "$" in token else token
            if hooks and "$" not in token and os.path.normpath(cleaned) == str(self.project):
                self._project_as_home()  # HOME=/the/project: its dotfiles are read
            parts = [p for p in cleaned.split("/") if p not in ("", ".")]
            if not parts:
                continue
            # a/b/c, then b/c, then c: "$DIR/lib.sh", "$(dirname "$0")/lib.sh"
            tails = [parts[i:] for i in range(len(parts))] if "$" in token else [parts]
            # "$CLAUDE_PROJECT_DIR"/tools/x.py is /tools/x.py once the variable is gone: an
            # absolute path is tried as it is and from the project's directories
            roots = [Path("/"), *bases] if cleaned.startswith("/") else bases
            for tail in tails:
                name = Path(*tail)
                for base in roots:
                    self._reach(base / name, named=hooks, bare="/" not in token)
            if "$" in token:
                self._variable_path(token, bases, named=hooks)

    def _project_as_home(self) -> None:
        """A hooks file names the project directory itself (``env: {HOME: /the/project}``):
        a program it runs may read its start-up files from there (``.bashrc``, ``.profile``,
        ``.gitconfig``, ``.npmrc``), so every file at the project's top level whose name starts
        with a dot is code of the surface, present or appearing later."""
        if self._home:
            return
        self._home = True
        matched: set[str] = set()
        for entry in sorted(self.project.iterdir()):
            if entry.name.startswith("."):
                matched.add(entry.name)
                if not entry.is_dir():
                    self.add_file(entry, named=True)
        self._add_patterns(self.project, (".*",), matched)

    def _variable_path(self, token: str, bases: Sequence[Path], *, named: bool) -> None:
        """A path with a variable part (``"$DIR/$LIB/env.sh"``, ``${X:-conf}/env.sh``): each
        variable may be any one name, so every entry of the project the shape matches is
        surface (``*/env.sh`` from each base), and the last name is watched in every directory
        the rest matches, so one appearing later is a change. The last part must name
        something (``env.sh``, ``*.sh``), not be a variable alone."""
        shape = [_VARIABLE_PART.sub("*", part) for part in token.split("/")]
        shape = [part for part in shape if part not in ("", ".")]
        if not shape or set(shape[-1]) <= {"*"} or len(shape) > _MAX_SHAPE_DEPTH:
            return
        if "*" not in "".join(shape):
            return
        leading, last = shape[:-1], shape[-1]
        for base in bases:
            if not (str(base) + os.sep).startswith(self._prefix) and base != self.project:
                continue
            directories = [base]
            for part in leading:
                found: list[Path] = []
                for parent in directories:
                    matching = [d for d in _entries_matching(parent, part) if d.is_dir()]
                    here = [
                        d
                        for d in matching
                        if str(d).startswith(self._prefix)
                        and ("*" not in part or d.name not in _NOT_SHAPED)
                    ]
                    if "*" in part:  # a directory it could match, made later, is a change
                        self._add_patterns(parent, (part + "/",), (d.name for d in matching))
                    found += here
                directories = found[:_MAX_SHAPE_MATCHES]
            for directory in directories:
                for entry in _entries_matching(directory, last):
                    self._reach(entry, named=named, bare=False)
                if "*" not in last:  # one appearing later is a change
                    entry = directory / last
                    if not os.path.lexists(entry):
                        self.surface.absent.add(entry)
                        self._watch_name(entry)

    def _reach(self, candidate: Path, *, named: bool, bare: bool) -> None:
        text = os.path.normpath(candidate)
        if not text.startswith(self._prefix):  # outside the project, or the project itself
            return
        resolved = Path(text)
        if not os.path.lexists(text):
            if bare:  # a word, not a path: nothing to cover
                return
            # require('./lib/guard') names lib/guard.js: its directory is covered
            parent = os.path.dirname(text)
            if parent.startswith(self._prefix) and os.path.isdir(parent):
                self.cover_dir(Path(parent))
            return
        if os.path.isdir(text):
            if named and resolved not in self.bases:  # cd tools, PYTHONPATH=lib
                self.bases.append(resolved)
            self.cover_dir(resolved)
            return
        if resolved.parent == self.project and bare and not holds_code(resolved):
            return  # a pattern names it (Read(.env)); no command runs it
        self.add_file(resolved, named=named)
        if resolved.parent != self.project:
            self.cover_dir(resolved.parent)

    def _top_level(self, word: str) -> None:
        if not word or word.startswith("-"):
            return
        for entry in (self.project / word, self.project / f"{word}.py"):
            if entry.is_dir():
                self.cover_dir(entry)
            elif entry.is_file():
                self.add_file(entry, named=True)
            elif not os.path.lexists(entry):  # a module that appears later stands in: watched
                self.surface.absent.add(entry)
                self._watch_name(entry)

    def run(self) -> None:
        while self.queue:
            path, roots = self.queue.pop(0)
            self.scan(path, roots)


_RUN_KEYS: Final = frozenset(
    {"command", "commands", "cmd", "args", "cwd", "script", "run", "working_directory"}
    | {"bash", "powershell", "windows", "linux", "osx"}  # GitHub Copilot's and VS Code's
)
_ENV_KEYS: Final = frozenset({"env", "environment"})


def _commands_of(text: str) -> str:
    """The strings a hooks file's hooks run with (values of ``command``, ``args``, ``cwd``,
    ``env`` ... at any depth), one a line; the whole text when it does not parse (a broken file
    is an error of its own when it is loaded)."""
    try:
        data = json.loads(text)
    except ValueError:
        import yaml  # a hooks file that is not JSON: rare, and read once per change

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return text
    found: list[str] = []

    def strings(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            for item in value:
                strings(item)
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                lowered = str(key).lower()
                if lowered in _RUN_KEYS or lowered in _ENV_KEYS:
                    strings(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return "\n".join(found)


def _js_packages(text: str) -> set[str]:
    """The packages a JavaScript text loads by name: ``require('x')``, ``import('x')``,
    ``import ... from 'x'``, ``import 'x'`` (``@scope/x`` kept whole; relative paths,
    absolute paths and ``node:`` built-ins left out)."""
    found: set[str] = set()
    for specifier in _JS_SPECIFIER.findall(text):
        if specifier.startswith((".", "/", "node:", "#")) or ":" in specifier:
            continue
        parts = specifier.split("/")
        name = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
        if name and ".." not in name.split("/"):
            found.add(name)
    return found


def _entries_matching(directory: Path, glob: str) -> list[Path]:
    """The entries of ``directory`` whose name matches ``glob`` (``..`` taken as written)."""
    if glob == "..":
        return [directory.parent]
    if "*" not in glob:
        return [directory / glob] if os.path.lexists(directory / glob) else []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [directory / name for name in names if fnmatchcase(name, glob)][:_MAX_SHAPE_MATCHES]


def _relative(project: Path, path: Path) -> str:
    return path.relative_to(project).as_posix() if path != project else "."


def _hook_shell_files(dirs: Iterable[Path]) -> Iterator[Path]:
    for top in dirs:
        for name in ("hooks.json", "hooks.yaml"):
            if (top / name).is_file():
                yield top / name
        if top.is_dir():
            for child in sorted(top.iterdir()):
                if child.is_dir() and (child / "hooks.json").is_file():
                    yield child / "hooks.json"


def scan_surface(
    project_dir: str | os.PathLike[str],
    include: Iterable[str] = (),
    keep: Iterable[Path] = (),
) -> Surface:
    """The surface of ``project_dir`` with the ``include`` paths (project-relative), every
    file fingerprinted; the bytes of the files ``keep`` names are kept for parsing.

    :raises TooManyFiles: the surface holds more than :data:`MAX_FILES` files.
    """
    project = Path(project_dir).resolve()
    scan = _Scan(project, keep)
    for name in HOOKS_FILES:
        path = project / name
        if os.path.lexists(path):
            scan.add_file(path, hooks=True)
    for pattern in HOOKS_GLOBS:
        for path in sorted(project.glob(pattern)):
            scan.add_file(path, hooks=True)
    hook_dirs = [project / name for name in HOOK_DIRS]
    for path in _hook_shell_files(hook_dirs):
        scan.add_file(path, hooks=True)
    for top in hook_dirs:
        scan.cover_dir(top)
    included_files: list[Path] = []
    for name in sorted(set(include)):
        top = project / name
        if top.is_dir():
            before = set(scan.surface.states)
            scan.cover_dir(top)
            included_files += [
                scan.surface.paths[n] for n in scan.surface.states if n not in before
            ]
        elif os.path.lexists(top):
            scan.add_file(top)
            included_files.append(top)
    scan.run()
    # Every file of an included plugin may be a hooks file its manifest names, and
    # ${CLAUDE_PLUGIN_ROOT} may be any directory above it: each is tried.
    for path in included_files:
        if not path.is_file():
            continue
        try:
            if b"command" not in read_regular(path, _MAX_SCANNED):
                continue
        except OSError:
            continue
        scan.surface.hooks.add(scan.name_of(path))
        roots = [path.parent, *path.parent.parents]
        roots = [r for r in roots if r == project or r.is_relative_to(project)]
        scan.queue.append((path, tuple(roots)))
    scan.run()
    return scan.surface
