"""``includes:``: a bundle composed of other bundles, as Amplifier's bundles are.

Each entry names a bundle the way amplifier-foundation's bundles write it::

    includes:
      - bundle: ./behaviors/logging.yaml          # a path, relative to the including file
      - bundle: git+https://github.com/org/repo@v1#subdirectory=behaviors/x.yaml
      - bundle: my-bundle:behaviors/extra         # a path inside a bundle already loaded
      - bundle: my-bundle                         # a bundle already loaded, by its name
      - ./behaviors/short-form.yaml               # a plain string is the same as bundle:
      - bundle: https://example.com/bundles/x.yaml  # one file, downloaded
      - bundle: zip+https://example.com/b.zip#subdirectory=behaviors/x.yaml

A path may name a file or a directory holding ``bundle.yaml``/``bundle.md``; ``x``,
``x.yaml``, ``x.yml`` and ``x.md`` are tried, as foundation tries them. ``name:path`` and a
bare ``name`` look among the bundles loaded so far (the including bundle itself, every bundle
it included, and the root bundle of each git checkout). A ``git+`` URL (any scheme git
clones: ``https``, ``ssh``, ``file``) is cloned once into the cache directory
(``$AMPLIFIER_HOOKS_CACHE``, else ``$XDG_CACHE_HOME/amplifier-hooks``, else
``~/.cache/amplifier-hooks``), at ``@ref`` when one is given; a branch is fetched again on
each load when the network allows, a commit or tag is reused. URLs of one file and zip
archives are fetched by :mod:`amplifier_hooks_bundle.downloads`.

Composition follows foundation: the included bundles first, in order, each composed with its
own includes, then the including bundle over them (:mod:`amplifier_hooks_bundle.merge` has the
rules). A relative module ``source:`` (``./x``, ``../x``) is made absolute against the file
that wrote it.

Unlike foundation, which skips an include it cannot load with a warning, every failure is an
error naming the including file, the line and the key path: an include that cannot be found,
a git URL that cannot be cloned, an unknown bundle name, and a cycle (a bundle that includes
itself through its includes), as
``invalid bundle b.yaml:4: includes[0].bundle: include cycle: a.yaml -> b.yaml -> a.yaml``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.config_errors import describe_value, key_path
from amplifier_hooks_util.yaml_locations import YamlDocument
from pydantic import ValidationError

from amplifier_core.errors import BundleError, BundleProblem
from amplifier_core.module_sources import split_git_url

from .bundle import MODULE_SECTIONS, Bundle, read_bundle_file
from .downloads import DownloadError, download, unpack_zip
from .inline_origins import composed_inline_origins
from .merge import compose

__all__ = ["CACHE_ENV", "compose_bundle", "include_cache_dir"]

CACHE_ENV: Final = "AMPLIFIER_HOOKS_CACHE"
"""Environment variable naming the directory git includes are cloned into."""

_GIT_TIMEOUT: Final = 300.0
_CANDIDATES: Final = ("", ".yaml", ".yml", ".md")
_DIR_FILES: Final = ("bundle.yaml", "bundle.yml", "bundle.md")
_UNSUPPORTED: Final = ("hg+", "svn+", "bzr+")
_DOWNLOADS: Final = ("http://", "https://", "zip+")
_COMMIT: Final = re.compile(r"^[0-9a-f]{40}$")

log = logging.getLogger(__name__)

Loc = tuple[str | int, ...]


def include_cache_dir() -> Path:
    """Where git includes are cloned (see the module docstring)."""
    named = os.environ.get(CACHE_ENV)
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "amplifier-hooks"


def compose_bundle(bundle: Bundle, document: YamlDocument) -> Bundle:
    """``bundle`` (read from its file, with ``document``) composed with all it includes.

    :raises BundleError: see the module docstring.
    """
    state = _State()
    top = Path(bundle.source_name).resolve()
    parts = _expand(_File(bundle, document, top), state, chain=())
    data = compose(part.data for part in parts)
    if bundle.model_extra and "includes" in bundle.model_extra:
        data["includes"] = bundle.model_extra["includes"]
    try:
        composed = Bundle.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        problem = BundleProblem(
            f"the composed bundle is invalid: {first['msg']}",
            key_path=key_path(tuple(first["loc"])) or None,
        )
        raise BundleError(bundle.source_name, [problem]) from err
    composed._source_name = bundle.source_name
    composed._base_dir = bundle.base_dir
    composed._included = [str(part.path) for part in parts[:-1]]
    composed._origins = _origins(parts)
    composed._layers = [(str(part.path), part.data) for part in parts]
    origins = composed_inline_origins([(str(part.path), part.bundle) for part in parts], composed)
    composed._inline_lines = {index: found.lines for index, found in origins.items()}
    composed._inline_files = {index: found.files for index, found in origins.items()}
    return composed


# -- loading, depth first ---------------------------------------------------------------


@dataclass(slots=True)
class _File:
    """One bundle file as read: the validated bundle, its YAML and its resolved path."""

    bundle: Bundle
    document: YamlDocument
    path: Path
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class _State:
    """What one composition has seen: bundle names -> their directory or file."""

    names: dict[str, Path] = field(default_factory=dict)


def _expand(item: _File, state: _State, chain: tuple[Path, ...]) -> list[_File]:
    """``item``'s includes (each expanded), then ``item`` itself: the order of composition."""
    chain = (*chain, item.path)
    name = item.bundle.name
    if name and name not in state.names:
        state.names[name] = item.path
    item.data = _written(item)
    entries = (item.bundle.model_extra or {}).get("includes") or []
    if not isinstance(entries, list):
        raise _error(
            item, ("includes",), f"expected a list of includes, got {describe_value(entries)}"
        )
    parts: list[_File] = []
    for index, entry in enumerate(entries):
        spec, loc = _spec(item, entry, index)
        target = _resolve(item, spec, loc, state)
        if target in chain:
            cycle = " -> ".join(str(p) for p in (*chain[chain.index(target) :], target))
            raise _error(item, loc, f"include cycle: {cycle}")
        try:
            bundle, document = read_bundle_file(target)
        except BundleError as err:
            line = item.document.line_of(loc)
            raise BundleError(
                err.file,
                [
                    *err.problems,
                    BundleProblem(
                        f"this file is included from {item.path}{f':{line}' if line else ''}",
                    ),
                ],
            ) from err
        parts += _expand(_File(bundle, document, target), state, chain)
    parts.append(item)
    return parts


def _written(item: _File) -> dict[str, Any]:
    """The bundle as its author wrote it, its relative sources made absolute."""
    data = item.bundle.model_dump(exclude_unset=True, exclude={"includes"})
    data.pop("includes", None)
    base = item.path.parent
    for section in MODULE_SECTIONS:
        for entry in data.get(section, ()):
            source = entry.get("source")
            if isinstance(source, str) and source.strip().startswith(("./", "../")):
                entry["source"] = str((base / source.strip()).resolve())
    return data


def _spec(item: _File, entry: Any, index: int) -> tuple[str, Loc]:
    if isinstance(entry, str) and entry.strip():
        return entry.strip(), ("includes", index)
    if isinstance(entry, Mapping):
        value = entry.get("bundle")
        if isinstance(value, str) and value.strip():
            return value.strip(), ("includes", index, "bundle")
        if value is None:
            raise _error(item, ("includes", index), "expected a 'bundle:' key naming the bundle")
        raise _error(
            item,
            ("includes", index, "bundle"),
            f"expected a path, URL or name, got {describe_value(value)}",
        )
    raise _error(
        item,
        ("includes", index),
        f"expected '- bundle: <path, URL or name>', got {describe_value(entry)}",
    )


def _resolve(item: _File, spec: str, loc: Loc, state: _State) -> Path:
    base = item.path.parent
    if spec.startswith("git+"):
        root, sub = _checkout(item, spec, loc)
        root_bundle = _find(root, "")
        if root_bundle is not None:
            _register_root(root_bundle, root, state)
        return _found(item, loc, root, sub or "", spec)
    if spec.startswith(_UNSUPPORTED):
        raise _error(
            item,
            loc,
            f"{spec!r}: only git+, http(s), zip+ URLs and paths are fetched; "
            "write it as git+https://host/repo@ref#subdirectory=path",
        )
    if spec.startswith(_DOWNLOADS):
        root, sub = _fetched(item, spec, loc)
        return _found(item, loc, root, sub, spec)
    if spec.startswith("file://"):
        path, _, fragment = spec.removeprefix("file://").partition("#")
        sub = fragment.removeprefix("subdirectory=") if fragment else ""
        return _found(item, loc, Path(path), sub, spec)
    if spec.startswith(("/", "./", "../", "~")):
        return _found(item, loc, (base / Path(spec).expanduser()), "", spec)
    if ":" in spec:
        name, _, rel = spec.partition(":")
        where = state.names.get(name)
        if where is None:
            raise _unknown_name(item, loc, name, state, spec)
        root = where.parent if where.is_file() else where
        return _found(item, loc, root, rel, spec)
    if spec in state.names:
        return state.names[spec]
    if "/" in spec and _find(base, spec) is not None:
        return _found(item, loc, base, spec, spec)
    raise _unknown_name(item, loc, spec, state, spec)


def _register_root(root_bundle: Path, root: Path, state: _State) -> None:
    """A git checkout's own root bundle gives its name to the checkout (foundation does so)."""
    try:
        bundle, _ = read_bundle_file(root_bundle)
    except BundleError:
        return
    if bundle.name and bundle.name not in state.names:
        state.names[bundle.name] = root


def _unknown_name(item: _File, loc: Loc, name: str, state: _State, spec: str) -> BundleError:
    known = ", ".join(sorted(state.names)) or "none"
    return _error(
        item,
        loc,
        f"{spec!r}: no bundle named {name!r} is loaded here (known: {known}); "
        "name a bundle by a path ('./behaviors/x.yaml') or a git URL "
        "('git+https://host/repo@ref#subdirectory=path'), or include it before this entry",
    )


def _found(item: _File, loc: Loc, root: Path, sub: str, spec: str) -> Path:
    found = _find(root, sub)
    if found is None:
        where = root / sub if sub else root
        raise _error(item, loc, f"{spec!r}: no bundle at {where} (tried {_tried(where)})")
    return found


def _find(root: Path, sub: str) -> Path | None:
    base = (root / sub) if sub else root
    for candidate in _candidates(base):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _candidates(base: Path) -> list[Path]:
    """``x``, ``x.yaml``, ``x.yml``, ``x.md`` (no suffix added to a name that has one of
    them), then ``x/bundle.yaml``, ``x/bundle.yml``, ``x/bundle.md``."""
    suffixes = [""] if base.suffix in _CANDIDATES[1:] else list(_CANDIDATES)
    return [base.with_name(base.name + s) for s in suffixes] + [base / n for n in _DIR_FILES]


def _tried(where: Path) -> str:
    return ", ".join(str(c.relative_to(where.parent)) for c in _candidates(where))


def _error(item: _File, loc: Loc, message: str) -> BundleError:
    line = item.document.line_of(loc)
    return BundleError(
        str(item.path), [BundleProblem(message, key_path=key_path(loc) or None, line=line)]
    )


def _origins(parts: list[_File]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for part in parts:
        for section in MODULE_SECTIONS:
            for index, entry in enumerate(getattr(part.bundle, section)):
                line = part.document.line_of((section, index))
                where = f"{part.path}{f':{line}' if line else ''}"
                found.setdefault(f"{section}.{entry.module}", []).append(where)
    return found


# -- downloads ---------------------------------------------------------------------------


def _fetched(item: _File, spec: str, loc: Loc) -> tuple[Path, str]:
    """A downloaded file (its directory and name), or an unpacked archive and the
    ``#subdirectory=`` inside it."""
    url, _, fragment = spec.partition("#")
    sub = ""
    for part in fragment.split("&"):
        if part.startswith("subdirectory="):
            sub = part.removeprefix("subdirectory=").strip("/")
    cache = include_cache_dir()
    try:
        if not url.startswith("zip+"):
            if sub:
                raise DownloadError("#subdirectory= needs an archive: write zip+https://...")
            found = download(url, cache)
            return found.parent, found.name
        inner = url.removeprefix("zip+")
        if inner.startswith("file://"):
            archive = Path(inner.removeprefix("file://"))
            if not archive.is_file():
                raise DownloadError(f"no archive at {archive}")
        elif inner.startswith(("http://", "https://")):
            archive = download(inner, cache)
        else:
            raise DownloadError("a zip+ URL is zip+https://, zip+http:// or zip+file://")
        return unpack_zip(archive, cache), sub
    except DownloadError as err:
        raise _error(item, loc, f"{spec!r}: {err}") from err


# -- git ---------------------------------------------------------------------------------


def _checkout(item: _File, spec: str, loc: Loc) -> tuple[Path, str | None]:
    """The checkout of ``spec``'s repository at its ref, and the subdirectory it names."""
    url, ref, sub = split_git_url(spec)
    key = hashlib.sha256(f"{url}@{ref or ''}".encode()).hexdigest()[:16]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", url.rstrip("/").rsplit("/", 1)[-1]) or "repo"
    target = include_cache_dir() / "bundles" / f"{slug}-{key}"
    if target.is_dir():
        if ref is None or not _COMMIT.match(ref):
            _refresh(target, ref)
        return target, sub
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{slug}-", dir=target.parent))
    try:
        _git(item, loc, spec, "clone", "--quiet", "--no-checkout", url, str(scratch))
        _git(item, loc, spec, "-C", str(scratch), "checkout", "--quiet", "--detach", ref or "HEAD")
        try:
            scratch.rename(target)
        except OSError:  # another process cloned it meanwhile: theirs is as good
            shutil.rmtree(scratch, ignore_errors=True)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return target, sub


def _refresh(target: Path, ref: str | None) -> None:
    """Bring a cached checkout of a branch up to date; keep the cached one if git cannot."""
    steps = [
        ["fetch", "--quiet", "--tags", "--force", "origin"],
        ["checkout", "--quiet", "--detach", f"origin/{ref}" if ref else "origin/HEAD"],
    ]
    for step in steps:
        done = _run_git(["-C", str(target), *step])
        if done is not None and done.returncode != 0 and step[0] == "checkout" and ref:
            done = _run_git(["-C", str(target), "checkout", "--quiet", "--detach", ref])
        if done is None or done.returncode != 0:
            log.warning("could not update the cached checkout %s; using it as it is", target)
            return


def _git(item: _File, loc: Loc, spec: str, *args: str) -> None:
    done = _run_git(list(args))
    if done is None:
        raise _error(item, loc, f"{spec!r}: git is not installed or did not answer")
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        cause = said[-1] if said else f"exit status {done.returncode}"
        raise _error(
            item, loc, f"{spec!r}: git {args[0] if args[0] != '-C' else args[2]} failed: {cause}"
        )


def _run_git(args: list[str]) -> subprocess.CompletedProcess[str] | None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", *args],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
