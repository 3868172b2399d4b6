"""The hash chain of an audit log: how a record is sealed into it, and how a log is checked.

Each record a trail writes carries ``chain`` (the trail's id), ``seq`` (its place in the trail,
from 0), ``prev`` (the ``hash`` of the record before it in the same trail; ``null`` for the
first) and, last on its line, ``hash``: the SHA-256 (hex) of the line as written up to that
field, closed by ``}`` (:func:`seal`). A trail's last record is ``chain_end``, naming how many
records it wrote.

:func:`verify_lines` checks a log: every line is JSON and sealed, each chain starts at
``seq`` 0, goes on one by one, each record names the hash of the one before it, and ends with
its ``chain_end``. A removed record breaks ``seq`` and ``prev`` at the next one; a reordered
pair does too; an edited record no longer matches its own ``hash`` (or, rewritten with a new
hash, the ``prev`` of the next record); records removed from the end leave the chain without
its ``chain_end``. Several trails may append to one file (a session and its child sessions):
each chain is checked on its own. What the chain does not prove is in ``docs/security.md``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["Break", "ChainReport", "seal", "verify_lines"]

_HASH_KEY: Final = ', "hash": "'
_HASH_LENGTH: Final = 64
_SUFFIX_LENGTH: Final = len(_HASH_KEY) + _HASH_LENGTH + 2  # the hash, '"' and '}'


def seal(body: str) -> tuple[str, str]:
    """``(line, hash)`` for ``body``, a JSON object's text: the hash is the SHA-256 of
    ``body``, written as the line's last field."""
    digest = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()
    return f'{body[:-1]}{_HASH_KEY}{digest}"}}', digest


def _unsealed(line: str) -> tuple[str, str] | None:
    """``(body, hash)`` of a sealed line, or ``None`` when it does not end with a hash."""
    if len(line) <= _SUFFIX_LENGTH or not line.endswith('"}'):
        return None
    cut = len(line) - _SUFFIX_LENGTH
    if line[cut : cut + len(_HASH_KEY)] != _HASH_KEY:
        return None
    digest = line[cut + len(_HASH_KEY) : -2]
    return line[:cut] + "}", digest


@dataclass(frozen=True, slots=True)
class Break:
    """Where a log's chain breaks: the 1-based ``line`` of the file, the ``chain`` (when the
    line names one) and what is wrong there."""

    line: int
    chain: str | None
    problem: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f" (chain {self.chain})" if self.chain else "")
        return f"{where}: {self.problem}"


@dataclass(slots=True)
class _Open:
    seq: int
    hash: str
    line: int
    ended: bool = False


@dataclass(slots=True)
class ChainReport:
    """What :func:`verify_lines` found: ``records`` read, ``chains`` (id -> records in it),
    ``breaks`` (tampering or damage), ``unsealed`` (chains that end without their
    ``chain_end``: the session still runs, ended abruptly, or its last records were removed)."""

    records: int = 0
    chains: dict[str, int] = field(default_factory=dict)
    breaks: list[Break] = field(default_factory=list)
    unsealed: list[str] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        """No break (unsealed chains aside)."""
        return not self.breaks

    def as_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "chains": dict(self.chains),
            "intact": self.intact,
            "sealed": not self.unsealed,
            "breaks": [
                {"line": b.line, "chain": b.chain, "problem": b.problem} for b in self.breaks
            ],
            "unsealed": list(self.unsealed),
        }


def _check(number: int, text: str, chains: dict[str, _Open], report: ChainReport) -> None:
    unsealed = _unsealed(text)
    if unsealed is None:
        report.breaks.append(Break(number, None, "not a chained audit record (no hash)"))
        return
    body, digest = unsealed
    try:
        record = json.loads(body)
    except json.JSONDecodeError as err:
        report.breaks.append(Break(number, None, f"not JSON ({err.msg}): the record was edited"))
        return
    chain, seq, prev = record.get("chain"), record.get("seq"), record.get("prev")
    if not isinstance(chain, str) or type(seq) is not int:
        report.breaks.append(Break(number, None, "no chain or seq field"))
        return
    report.records += 1
    report.chains[chain] = report.chains.get(chain, 0) + 1
    actual = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()
    if actual != digest:
        report.breaks.append(
            Break(number, chain, f"record seq {seq} does not match its hash: it was edited")
        )
    state = chains.get(chain)
    if state is None:
        if seq != 0 or prev is not None:
            report.breaks.append(
                Break(
                    number,
                    chain,
                    f"the chain starts at seq {seq}: record(s) before it were removed",
                )
            )
    elif state.ended:
        report.breaks.append(
            Break(number, chain, f"record seq {seq} follows the chain's chain_end record")
        )
    elif seq != state.seq + 1:
        what = (
            f"{seq - state.seq - 1} record(s) removed"
            if seq > state.seq + 1
            else "records reordered or repeated"
        )
        report.breaks.append(
            Break(
                number,
                chain,
                f"seq {seq} follows seq {state.seq} (line {state.line}): {what}",
            )
        )
    elif prev != state.hash:
        report.breaks.append(
            Break(
                number,
                chain,
                f"prev does not match the hash of seq {state.seq} (line {state.line}): "
                "that record was edited, or replaced",
            )
        )
    ended = record.get("type") == "chain_end"
    if ended and record.get("records") != seq:
        report.breaks.append(
            Break(number, chain, f"chain_end counts {record.get('records')} records, not {seq}")
        )
    chains[chain] = _Open(seq, digest, number, ended)


def verify_lines(lines: Iterable[str]) -> ChainReport:
    """Check the chains of an audit log's lines (see the module docstring); blank lines are
    skipped."""
    report = ChainReport()
    chains: dict[str, _Open] = {}
    for number, raw in enumerate(lines, 1):
        text = raw.rstrip("\r\n")
        if text.strip():
            _check(number, text, chains, report)
    report.unsealed = [chain for chain, state in chains.items() if not state.ended]
    return report
