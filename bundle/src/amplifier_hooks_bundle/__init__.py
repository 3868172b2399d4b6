"""amplifier_hooks_bundle: bundle files read into the modules a session mounts.

The application's side of a session, as amplifier-foundation is Amplifier's: a bundle YAML (or
Markdown with YAML front matter) validated with file, line and key path in every error, its
``includes:`` composed by Amplifier's merge rules (paths, ``git+`` URLs, downloads). The
kernel (``amplifier_core``) never reads a bundle; it mounts what it is given::

    from amplifier_hooks_bundle import load_bundle

    bundle = load_bundle("examples/demo-bundle.yaml")
    [entry.module for entry in bundle.hooks]
"""

from __future__ import annotations

from .bundle import (
    BUNDLE_FILE_NAMES,
    MODULE_SECTIONS,
    Bundle,
    BundleInfo,
    ModuleEntry,
    parse_bundle,
    read_bundle_file,
)
from .includes import CACHE_ENV, compose_bundle, include_cache_dir
from .load import load_bundle

__all__ = [
    "BUNDLE_FILE_NAMES",
    "CACHE_ENV",
    "MODULE_SECTIONS",
    "Bundle",
    "BundleInfo",
    "ModuleEntry",
    "compose_bundle",
    "include_cache_dir",
    "load_bundle",
    "parse_bundle",
    "read_bundle_file",
]
