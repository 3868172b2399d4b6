"""The module sources a bundle names (its includes followed), for ``amplifier-hooks install``.

A module entry's ``source:`` is a git URL (``git+https://host/repo@ref#subdirectory=path``)
or a local directory (see :func:`amplifier_core.module_sources.parse_source`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from amplifier_hooks_bundle import Bundle

from amplifier_core.module_sources import SourceRef, parse_source

__all__ = ["PROJECT_FILES", "NamedSource", "bundle_sources"]

PROJECT_FILES = ("pyproject.toml", "setup.py")
"""A local source directory holding one of these is a project pip can install."""


@dataclass(frozen=True, slots=True)
class NamedSource:
    """One module entry's source: which module, in which section, and the source read."""

    module: str
    section: str
    source: SourceRef

    @property
    def pip_installable(self) -> bool:
        """A git URL, or a directory holding a project (a bare module directory is imported
        from where it is, as the loader does, and has nothing to install)."""
        ref = self.source
        if ref.kind == "git":
            return True
        return ref.path is not None and any((ref.path / n).is_file() for n in PROJECT_FILES)


def bundle_sources(bundle: Bundle) -> list[NamedSource]:
    """Every module source of ``bundle`` in mount order (session modules first), each
    requirement once."""
    entries: list[tuple[str, Any]] = []
    for kind in ("orchestrator", "context"):
        value = getattr(bundle.session, kind)
        if isinstance(value, dict):
            entries.append(("session", value))
    for section, entry in bundle.module_entries():
        entries.append((section, entry.model_dump()))
    found: list[NamedSource] = []
    seen: set[str] = set()
    for section, entry in entries:
        text = entry.get("source")
        module = entry.get("module")
        if not isinstance(text, str) or not text.strip() or not isinstance(module, str):
            continue
        ref = parse_source(text, bundle.base_dir)
        if not ref.installable or ref.pip_requirement() in seen:
            continue
        seen.add(ref.pip_requirement())
        found.append(NamedSource(module, section, ref))
    return found
