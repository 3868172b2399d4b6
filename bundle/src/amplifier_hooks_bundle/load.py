"""Loading a bundle: its file read and validated (:mod:`.bundle`), then composed with every
bundle it includes (:mod:`.includes`)."""

from __future__ import annotations

import os

from .bundle import Bundle, read_bundle_file
from .includes import compose_bundle

__all__ = ["load_bundle"]


def load_bundle(path: str | os.PathLike[str], *, includes: bool = True) -> Bundle:
    """Read and validate a bundle file (or a directory holding ``bundle.yaml``/``.md``).

    A bundle with ``includes:`` comes back composed with every bundle it includes, nested,
    by Amplifier's merge rules (see :mod:`amplifier_hooks_bundle.includes`); ``includes=False``
    reads the one file and keeps ``includes`` as written.

    :raises BundleError: the file is missing or unreadable, is not valid YAML, or does not
        match the schema; an include cannot be found or includes its includer back. The error
        names the file, line and key path.
    """
    bundle, document = read_bundle_file(path)
    if includes and bundle.model_extra and bundle.model_extra.get("includes"):
        return compose_bundle(bundle, document)
    return bundle
