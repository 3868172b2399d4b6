"""Modules a bundle names that are not installed, said once, with the pip command for them.

A session whose bundle names modules that no installed entry point provides stops before its
first turn (:meth:`AgentSession.start <amplifier_hooks_cli.session.AgentSession.start>`). This
module turns the loader's failures into one sentence: the ids, and one ``pip install`` naming
what provides them. A distribution is known from the module's remote ``source`` (a pip
requirement already), or from the ``amplifier-module-*`` requirements of ``amplifier-hooks``
itself and its extras. When two or more missing modules are all in one extra, the command names
the extra (``amplifier-hooks[all]`` adds every reference hook module) instead of each
distribution. A module whose distribution is known from neither is named as such.
"""

from __future__ import annotations

import importlib.metadata
import re
import shlex
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from amplifier_core.loader import ModuleFailure

from .plan import _REMOTE

__all__ = [
    "DISTRIBUTION",
    "MissingModules",
    "known_distributions",
    "missing_modules",
    "module_extras",
]

DISTRIBUTION: Final = "amplifier-hooks"
"""The distribution whose requirements name the reference modules' distributions."""

_MODULE_PREFIX: Final = "amplifier-module-"
_NAME: Final = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_EXTRA: Final = re.compile(r"""\bextra\s*==\s*["']([^"']+)["']""")


def _module_requirements(distribution: str) -> Iterator[tuple[str, str | None]]:
    """``(amplifier-module-* name, extra or None)`` for each requirement of ``distribution``;
    nothing when it is not installed."""
    try:
        requirements = importlib.metadata.requires(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return
    for requirement in requirements:
        match = _NAME.match(requirement)
        if match is None:
            continue
        name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
        if name.startswith(_MODULE_PREFIX):
            extra = _EXTRA.search(requirement)
            yield name, extra.group(1) if extra is not None else None


def known_distributions(distribution: str = DISTRIBUTION) -> dict[str, str]:
    """Module id -> distribution, for every ``amplifier-module-<id>`` requirement of
    ``distribution`` (its extras included); empty when it is not installed."""
    found: dict[str, str] = {}
    for name, _extra in _module_requirements(distribution):
        found.setdefault(name.removeprefix(_MODULE_PREFIX), name)
    return found


def module_extras(distribution: str = DISTRIBUTION) -> dict[str, frozenset[str]]:
    """Extra -> the ``amplifier-module-*`` distributions it adds, for each extra of
    ``distribution`` that adds one (``all``: every reference hook module)."""
    found: dict[str, set[str]] = {}
    for name, extra in _module_requirements(distribution):
        if extra is not None:
            found.setdefault(extra, set()).add(name)
    return {extra: frozenset(names) for extra, names in found.items()}


@dataclass(frozen=True, slots=True)
class MissingModules:
    """The modules of a bundle no installed entry point provides, in the bundle's order."""

    ids: tuple[str, ...]
    requirements: tuple[str, ...]
    """What ``pip install`` needs for the ids whose distribution is known, without repeats."""
    unknown: tuple[str, ...]
    """The ids whose distribution is known neither from a source nor from amplifier-hooks."""

    def __bool__(self) -> bool:
        return bool(self.ids)

    @property
    def pip_command(self) -> str | None:
        """``pip install ...`` for every known requirement, or None when none is known."""
        if not self.requirements:
            return None
        return "pip install " + " ".join(shlex.quote(r) for r in self.requirements)

    def message(self) -> str:
        """One sentence: which modules are not installed and how to install them."""
        if len(self.ids) == 1:
            text = f"module {self.ids[0]} of the bundle is not installed"
        else:
            text = f"{len(self.ids)} modules of the bundle are not installed: {', '.join(self.ids)}"
        command = self.pip_command
        if command is not None:
            text += f"; install {'it' if len(self.ids) == 1 else 'them'} with `{command}`"
        if self.unknown:
            which = ", ".join(self.unknown)
            text += (
                f"; no distribution is known for {which}: install the one that provides "
                "its entry point in group 'amplifier.modules', or give the module a source"
            )
        return text


def missing_modules(
    failures: Iterable[ModuleFailure],
    plan: Mapping[str, Any],
    known: Mapping[str, str] | None = None,
    extras: Mapping[str, Collection[str]] | None = None,
) -> MissingModules:
    """The failures of ``failures`` that say a module of ``plan`` is not installed.

    Those are the modules that could not be resolved with no entry point found, named with no
    source or with a remote one; a local source that is wrong, a module left out by an allow or
    deny list, or one that fails to import or mount is another matter (its own message says
    what). ``known`` maps module ids to distributions (default: :func:`known_distributions`),
    ``extras`` names the distributions each extra of ``amplifier-hooks`` adds (default:
    :func:`module_extras`).
    """
    sources = {entry["module"]: entry.get("source") for entry in _entries(plan)}
    distributions = known_distributions() if known is None else known
    extras = module_extras() if extras is None else extras
    ids: list[str] = []
    requirements: dict[str, None] = {}
    unknown: list[str] = []
    for failure in failures:
        module_id = failure.module_id
        source = sources.get(module_id)
        remote = isinstance(source, str) and _REMOTE.match(source) is not None
        if failure.stage != "resolve" or failure.entry_point is not None:
            continue
        if module_id not in sources or (source is not None and not remote) or module_id in ids:
            continue
        ids.append(module_id)
        if remote:
            requirements[_pip_requirement(str(source))] = None
        elif module_id in distributions:
            requirements[distributions[module_id]] = None
        else:
            unknown.append(module_id)
    return MissingModules(tuple(ids), _by_extra(list(requirements), extras), tuple(unknown))


def _by_extra(requirements: list[str], extras: Mapping[str, Collection[str]]) -> tuple[str, ...]:
    """``requirements`` with two or more distributions that one extra adds replaced by that
    extra (the first such extra by name), where the first of them stood."""
    for extra, names in sorted(extras.items()):
        covered = [r for r in requirements if r in names]
        if len(covered) > 1:
            first = requirements.index(covered[0])
            rest = [r for r in requirements if r not in covered]
            return (*rest[:first], f"{DISTRIBUTION}[{extra}]", *rest[first:])
    return tuple(requirements)


def _entries(plan: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every ``{module, config, source}`` entry of a mount plan."""
    session = plan.get("session")
    if isinstance(session, Mapping):
        for value in session.values():
            if isinstance(value, Mapping) and isinstance(value.get("module"), str):
                yield value
    for kind in ("providers", "tools", "hooks"):
        for entry in plan.get(kind) or ():
            if isinstance(entry, Mapping) and isinstance(entry.get("module"), str):
                yield entry


def _pip_requirement(source: str) -> str:
    """A remote source as pip takes it (``git@host:repo`` is ``git+ssh://git@host/repo``)."""
    text = source.strip()
    if text.startswith("git@"):
        return "git+ssh://" + text.replace(":", "/", 1)
    if text.startswith(("ssh://", "git://")):
        return "git+" + text
    return text
