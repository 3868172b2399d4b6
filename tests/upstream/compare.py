"""Compare Amplifier's kernel suite on amplifier-core 2.0.2 and on ours.

    python tests/upstream/compare.py REFERENCE.json OURS.json [--differences differences.txt]

Every test that passes on amplifier-core 2.0.2 must pass on ours, unless ``differences.txt``
lists it with the reason we do not match it. Exit 1 on any other test that does not pass, and
name each; a listed test that now passes is reported so the list can shrink.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

__all__ = ["main", "read_differences"]

DIFFERENCES = Path(__file__).with_name("differences.txt")


def read_differences(path: Path) -> dict[str, str]:
    """``{"file::test": reason}``: each test line takes the reason of the ``## `` line above."""
    listed: dict[str, str] = {}
    reason = ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line.startswith("## "):
            reason = line[3:].strip()
        elif line and not line.startswith("#"):
            if not reason:
                raise SystemExit(f"{path}:{number}: {line} has no '## reason' line above it")
            listed[line] = reason
    return listed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", type=Path)
    parser.add_argument("ours", type=Path)
    parser.add_argument("--differences", type=Path, default=DIFFERENCES)
    args = parser.parse_args(argv)
    reference: dict[str, str] = json.loads(args.reference.read_text(encoding="utf-8"))
    ours: dict[str, str] = json.loads(args.ours.read_text(encoding="utf-8"))
    listed = read_differences(args.differences)

    contract = sorted(test for test, outcome in reference.items() if outcome == "passed")
    passing = [test for test in contract if ours.get(test) == "passed"]
    missing = [test for test in contract if ours.get(test) != "passed"]
    unlisted = [test for test in missing if test not in listed]
    stale = sorted(test for test in listed if ours.get(test) == "passed")
    reasons = Counter(listed[test] for test in missing if test in listed)

    print(
        f"Amplifier's kernel suite: {len(passing)} of the {len(contract)} tests that pass on "
        f"amplifier-core 2.0.2 pass on ours; {len(missing) - len(unlisted)} are listed in "
        f"{args.differences.name}:"
    )
    for reason, count in reasons.most_common():
        print(f"  {count:4d}  {reason}")
    for test in stale:
        print(f"now passes, remove it from {args.differences.name}: {test}")
    for test in unlisted:
        print(f"FAILS on ours ({ours.get(test, 'not run')}), passes on 2.0.2: {test}")
    return 1 if unlisted else 0


if __name__ == "__main__":
    sys.exit(main())
