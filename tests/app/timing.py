"""Time amplifier-foundation's ``create_session`` and one turn, in process, on whichever kernel
this interpreter has: ``python tests/app/timing.py BUNDLE.yaml [--repeat N]``.

The bundle is loaded and prepared once (that is the application's work, not the kernel's); then,
after one warm-up run that imports the modules, ``repeat`` times:
``PreparedBundle.create_session()`` (an ``AmplifierSession`` with the module resolver mounted,
every module loaded, validated and mounted) and one ``execute`` of a prompt that makes
provider-mock call the ``read`` tool, then cleanup. Prints one JSON line with the
median and minimum of each, in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["main", "measure"]

PROMPT = "read the test file"


async def measure(bundle_path: Path, repeat: int) -> dict[str, Any]:
    from amplifier_foundation import load_bundle

    bundle = await load_bundle(bundle_path.as_uri())
    prepared = await bundle.prepare()
    create: list[float] = []
    turn: list[float] = []
    answer = ""
    for run in range(repeat + 1):  # the first run imports the modules: a warm-up, not counted
        started = time.perf_counter()
        session = await prepared.create_session(session_cwd=Path.cwd())
        created = time.perf_counter()
        try:
            answer = await session.execute(PROMPT)
            finished = time.perf_counter()
        finally:
            await session.cleanup()
        if run:
            create.append(created - started)
            turn.append(finished - created)
    return {
        "repeat": repeat,
        "create_session_ms": {
            "median": round(statistics.median(create) * 1000, 2),
            "min": round(min(create) * 1000, 2),
        },
        "turn_ms": {
            "median": round(statistics.median(turn) * 1000, 2),
            "min": round(min(turn) * 1000, 2),
        },
        "answer": answer,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)
    result = asyncio.run(measure(args.bundle.resolve(), args.repeat))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
