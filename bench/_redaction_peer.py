"""Run a peer redactor on the benchmark text and print its figures as one JSON object.

    <peer python> bench/_redaction_peer.py amplifier SIZE ROUNDS
    <peer python> bench/_redaction_peer.py detect-secrets CORPUS_JSON
    <peer python> bench/_redaction_peer.py detect-secrets-truth ROWS_JSON

``amplifier``: Amplifier's own hooks-redaction (installed beside amplifier-core 2.0.2 in the
peer environment): MB/s of its ``_mask_text`` with its default rules on the same mixed text as
``redaction.py``, and a ``provider:request`` emit through 2.0.2's ``HookRegistry`` with the
module mounted. ``detect-secrets``: each text of a JSON file ``{"lines": [...]}`` written to
a file of its own and scanned as detect-secrets scans a repository (default plugins and
filters); prints the secret values it reports for each. ``detect-secrets-truth``: for each row
``{"family", "text"}`` of a detect-secrets plugin test, the values that plugin itself reports.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _mixed_text import corpus, provider_request

__all__ = ["main"]


def _amplifier(size: int, rounds: int) -> dict[str, Any]:
    import importlib

    from amplifier_core.hooks import HookRegistry  # amplifier-core 2.0.2

    # Amplifier's module of the same import name as ours, in the peer environment.
    module = importlib.import_module("amplifier_module_hooks_redaction")
    mask = module._mask_text

    rules = ["secrets", "pii-basic"]  # the module's defaults
    figures: dict[str, Any] = {"module_file": module.__file__}
    for name, every in (("few matches", 100_000), ("many matches", 300)):
        text, _ = corpus(size, every, f"bench-{name}")
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            mask(text, rules)
            best = min(best, time.perf_counter() - start)
        figures[name] = {"mb_per_s": len(text.encode()) / 1e6 / best}

    class Coordinator:
        def __init__(self) -> None:
            self.hooks = HookRegistry()

    async def emits() -> tuple[float, float]:
        rng = random.Random("bench-request")
        cold: list[float] = []
        warm: list[float] = []
        for _ in range(rounds):
            coordinator = Coordinator()
            await module.mount(coordinator, {})
            data = provider_request(rng)
            start = time.perf_counter()
            await coordinator.hooks.emit("provider:request", data)
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(50):
                await coordinator.hooks.emit("provider:request", data)
            warm.append((time.perf_counter() - start) / 50)
        return min(cold) * 1e6, min(warm) * 1e6

    first, repeated = asyncio.run(emits())
    figures["provider_request_us"] = {"first": first, "repeated": repeated}
    return figures


def _detect_secrets(path: Path) -> dict[str, Any]:
    import tempfile

    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    lines = json.loads(path.read_text(encoding="utf-8"))["lines"]
    found: list[list[str]] = []
    with tempfile.TemporaryDirectory() as scratch, default_settings():
        files: list[str] = []
        for index, text in enumerate(lines):  # one file each, as a repository would hold it
            written = Path(scratch) / f"{index}.txt"
            written.write_text(text + "\n", encoding="utf-8")
            files.append(str(written))
        collection = SecretsCollection()
        for file in files:
            collection.scan_file(file)
        for file in files:
            found.append([s.secret_value or "" for s in collection[file]])
    return {"found": found}


_FILE_KINDS = ("x.py", "x.yaml", "x.js", "x.java", "x.go", "x.php", "x.cs", "x.swift", "x.m")
_FILE_KINDS_MORE = ("x.sh", "x.ini", "x.cfg", "x.conf", "x.tf", "x.json", "x.txt", "x.cls")
_PLUGIN_MODULES = {"aws_key": "aws", "mailchimp_key": "mailchimp", "stripe_key": "stripe"}


def _detect_secrets_truth(path: Path) -> dict[str, Any]:
    """Per row ``{"family", "text"}``: the secret values the family's own plugin reports in
    the text (tried as each file kind the plugin reads differently), or ``[]``."""
    import importlib
    import inspect

    from detect_secrets.plugins.base import BasePlugin
    from detect_secrets.settings import default_settings

    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    found: list[list[str]] = []
    with default_settings():
        plugins: dict[str, list[Any]] = {}
        for row in rows:
            family = row["family"]
            if family not in plugins:
                try:
                    module = importlib.import_module(
                        f"detect_secrets.plugins.{_PLUGIN_MODULES.get(family, family)}"
                    )
                except ImportError:
                    plugins[family] = []
                else:
                    plugins[family] = [
                        cls()
                        for _, cls in inspect.getmembers(module, inspect.isclass)
                        if issubclass(cls, BasePlugin)
                        and cls.__module__ == module.__name__
                        and not inspect.isabstract(cls)
                    ]
            values: list[str] = []
            for plugin in plugins[family]:
                for kind in (*_FILE_KINDS, *_FILE_KINDS_MORE):
                    try:
                        reported = plugin.analyze_line(filename=kind, line=row["text"])
                    except Exception:
                        continue
                    values = [s.secret_value for s in reported if s.secret_value]
                    if values:
                        break
                if values:
                    break
            found.append(values)
    return {"found": found}


def main(argv: list[str]) -> int:
    if argv[:1] == ["amplifier"] and len(argv) == 3:
        print(json.dumps(_amplifier(int(argv[1]), int(argv[2]))))
        return 0
    if argv[:1] == ["detect-secrets-truth"] and len(argv) == 2:
        print(json.dumps(_detect_secrets_truth(Path(argv[1]))))
        return 0
    if argv[:1] == ["detect-secrets"] and len(argv) == 2:
        print(json.dumps(_detect_secrets(Path(argv[1]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
