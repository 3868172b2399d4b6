"""Included bundles named by URL: one file over ``http(s)://``, or a zip archive
(``zip+https://``, ``zip+http://``, ``zip+file://``), as amplifier-foundation accepts them.

A download is kept in the include cache
(:func:`amplifier_hooks_bundle.includes.include_cache_dir`) under a name made from the URL; it
is downloaded again on each load and the cached copy is used when the download fails. An
archive is unpacked into its own directory, refusing any member that would land outside it
(an absolute name, ``..``, a link).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath
from typing import Final
from urllib.parse import urlsplit

__all__ = ["DownloadError", "download", "unpack_zip"]

_TIMEOUT: Final = 60.0
_MAX_BYTES: Final = 64 * 1024 * 1024
"""The most one download or one unpacked archive may hold."""


class DownloadError(Exception):
    """The URL cannot be fetched (and nothing is cached), or the archive is unsafe."""


def download(url: str, cache: Path) -> Path:
    """The file at ``url``, fetched into ``cache`` (or the cached copy when fetching fails).

    :raises DownloadError: nothing could be fetched and nothing is cached.
    """
    name = PurePosixPath(urlsplit(url).path).name or "download"
    key = hashlib.sha256(url.encode()).hexdigest()[:16]
    target = cache / "downloads" / f"{key}-{name}"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT) as response:
            data = response.read(_MAX_BYTES + 1)
    except (OSError, ValueError) as err:
        if target.is_file():
            return target
        raise DownloadError(f"cannot download {url}: {err}") from err
    if len(data) > _MAX_BYTES:
        raise DownloadError(f"{url} is larger than {_MAX_BYTES} bytes")
    scratch = Path(tempfile.mkstemp(dir=target.parent, prefix=".part-")[1])
    scratch.write_bytes(data)
    scratch.replace(target)
    return target


def unpack_zip(archive: Path, cache: Path) -> Path:
    """``archive`` unpacked into its own directory under ``cache``; that directory.

    :raises DownloadError: the file is not a zip archive, or a member would land outside the
        directory or make it larger than the limit.
    """
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    target = cache / "archives" / f"{archive.stem}-{digest}"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=".unpack-"))
    try:
        try:
            with zipfile.ZipFile(archive) as zipped:
                _extract(zipped, scratch)
        except zipfile.BadZipFile as err:
            raise DownloadError(f"{archive.name} is not a zip archive: {err}") from err
        try:
            scratch.rename(target)
        except OSError:  # unpacked meanwhile by another process
            shutil.rmtree(scratch, ignore_errors=True)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return target


def _extract(zipped: zipfile.ZipFile, into: Path) -> None:
    total = 0
    root = into.resolve()
    for member in zipped.infolist():
        name = PurePosixPath(member.filename)
        if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
            raise DownloadError(f"unsafe member {member.filename!r} in the archive")
        if (member.external_attr >> 16) & 0o170000 == 0o120000:
            raise DownloadError(f"the archive member {member.filename!r} is a link")
        destination = (root / name).resolve()
        if not destination.is_relative_to(root):
            raise DownloadError(f"unsafe member {member.filename!r} in the archive")
        total += member.file_size
        if total > _MAX_BYTES:
            raise DownloadError(f"the archive unpacks to more than {_MAX_BYTES} bytes")
        if member.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        with zipped.open(member) as source, destination.open("wb") as sink:
            shutil.copyfileobj(source, sink)
