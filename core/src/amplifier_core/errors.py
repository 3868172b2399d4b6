"""Exception types of the kernel.

Every kernel error derives from :class:`AmplifierError` and carries, besides its message,
the facts a caller needs to act on it without parsing text: which module, which entry point,
which file and line, which key path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "AmplifierError",
    "BundleError",
    "BundleProblem",
    "LoadStage",
    "ModuleLoadError",
]

LoadStage = Literal["resolve", "import", "mount"]


class AmplifierError(Exception):
    """Base class of every error raised by the kernel."""


class ModuleLoadError(AmplifierError):
    """A module could not be resolved, imported or mounted (raised in strict mode).

    :param module_id: the module id, as written in the bundle (``hooks-logging``).
    :param stage: ``resolve`` (no entry point, denied, bad source), ``import`` (the module
        or its ``mount`` could not be loaded) or ``mount`` (``mount()`` raised).
    :param entry_point: ``name = value`` of the entry point, or a description of the
        source it came from; ``None`` when nothing was found.
    :param distribution: ``name version`` of the distribution that declares it, if any.
    :param error_type: the class name of the underlying exception, if any.
    :param location: ``file:line`` of the frame that failed, if known.
    """

    def __init__(
        self,
        message: str,
        *,
        module_id: str,
        stage: LoadStage,
        entry_point: str | None = None,
        distribution: str | None = None,
        error_type: str | None = None,
        location: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.module_id = module_id
        self.stage: LoadStage = stage
        self.entry_point = entry_point
        self.distribution = distribution
        self.error_type = error_type
        self.location = location


@dataclass(frozen=True, slots=True)
class BundleProblem:
    """One thing wrong with a bundle file, located as precisely as the file allows."""

    message: str
    key_path: str | None = None
    line: int | None = None
    column: int | None = None

    def render(self, file: str) -> str:
        """``file:line: key.path: message`` with whatever parts are known."""
        where = file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        if self.key_path:
            return f"{where}: {self.key_path}: {self.message}"
        return f"{where}: {self.message}"


class BundleError(AmplifierError, ValueError):
    """A bundle file is unreadable, is not valid YAML, or does not match the bundle schema.

    ``file``, ``line`` (1-based), ``column`` (1-based) and ``key_path`` (``hooks[2].config``)
    describe the first problem; ``problems`` lists every problem found, in file order.
    """

    def __init__(
        self,
        file: str,
        problems: Sequence[BundleProblem],
    ) -> None:
        if not problems:
            raise ValueError("BundleError needs at least one problem")
        self.file = file
        self.problems: tuple[BundleProblem, ...] = tuple(problems)
        first = self.problems[0]
        self.line = first.line
        self.column = first.column
        self.key_path = first.key_path
        if len(self.problems) == 1:
            message = f"invalid bundle {first.render(file)}"
        else:
            lines = "\n".join(f"  {p.render(file)}" for p in self.problems)
            message = f"invalid bundle {file}: {len(self.problems)} problems\n{lines}"
        self.message = message
        super().__init__(message)
