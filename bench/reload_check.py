"""What watching the hook files for changes costs per event: one fingerprint of the files a
mount read (hooks-declarative ``reload.py``), taken before every event its hooks handle.

    python bench/reload_check.py [--plugins 20] [--rounds 15] [--per-round 1000]

Builds a marketplace of N plugins (each a ``.claude-plugin/plugin.json`` and a
``hooks/hooks.json``) in a temporary directory, finds its sources as a mount does, and times
the fingerprint of their paths and directories. Prints the number of ``stat`` calls and the
median, minimum and maximum microseconds per fingerprint over the rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from amplifier_module_hooks_declarative import parse_config
from amplifier_module_hooks_declarative.discovery import find_sources
from amplifier_module_hooks_declarative.reload import fingerprint, watched_keys


def marketplace(root: Path, plugins: int) -> Path:
    entries = []
    for index in range(plugins):
        plugin = root / "plugins" / f"p{index}"
        (plugin / ".claude-plugin").mkdir(parents=True)
        (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": f"p{index}"}))
        (plugin / "hooks").mkdir()
        hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}
        (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
        entries.append({"name": f"p{index}", "source": f"./plugins/p{index}"})
    (root / ".claude-plugin").mkdir()
    manifest = {"name": "bench", "plugins": entries}
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps(manifest))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugins", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--per-round", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = marketplace(Path(tmp) / "market", args.plugins)
        project = Path(tmp) / "project"
        project.mkdir()
        settings = parse_config({"include_user": False, "plugins": [str(root)]})
        sources = find_sources(settings, project_dir=project, user_dir=project)
        keys = watched_keys([s.path for s in sources if s.path is not None])
        rounds = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            for _ in range(args.per_round):
                fingerprint(keys)
            rounds.append((time.perf_counter() - started) / args.per_round * 1e6)
    print(
        f"{args.plugins} plugins, {len(keys)} stat calls per event: median "
        f"{statistics.median(rounds):.1f} us, min {min(rounds):.1f}, max {max(rounds):.1f} "
        f"({args.rounds} rounds of {args.per_round})"
    )


if __name__ == "__main__":
    main()
