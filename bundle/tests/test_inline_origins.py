"""A composed bundle's inline hooks keep the file and line that wrote each entry, though the
composition concatenates the lists of its files (and drops an entry they repeat)."""

from __future__ import annotations

from pathlib import Path

from amplifier_hooks_bundle import load_bundle

BASE = """\
bundle: {name: base, version: 1.0.0}
hooks:
  - module: hooks-declarative
    config:
      hooks:
        PreToolUse:
          - type: matcher
            match: {tool: bash}
            action: block
          - type: command
            command: shared
        Stop:
          - type: command
            command: stop-base
"""

TOP = """\
bundle: {{name: top, version: 1.0.0}}
includes:
  - bundle: {base}
hooks:
  - module: hooks-logging
  - module: hooks-declarative
    config:
      hooks:
        PreToolUse:
          - type: command
            command: shared
          - type: command
            command: top-only
"""


def _line(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_each_entry_names_the_file_and_line_that_wrote_it(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text(BASE, encoding="utf-8")
    top = tmp_path / "top.yaml"
    top_text = TOP.format(base=base)
    top.write_text(top_text, encoding="utf-8")
    bundle = load_bundle(top)
    index = [entry.module for entry in bundle.hooks].index("hooks-declarative")
    hooks = bundle.hooks[index].config["hooks"]
    assert [h.get("command") for h in hooks["PreToolUse"]] == [None, "shared", "top-only"]
    lines = bundle.inline_hook_lines[index]
    files = bundle.inline_hook_files[index]
    located = {
        path: (Path(files[path]).name, lines[path])
        for path in (
            "hooks.PreToolUse[0]",
            "hooks.PreToolUse[0].action",
            "hooks.PreToolUse[1]",
            "hooks.PreToolUse[2].command",
            "hooks.Stop[0]",
        )
    }
    assert located == {
        "hooks.PreToolUse[0]": ("base.yaml", _line(BASE, "- type: matcher")),
        "hooks.PreToolUse[0].action": ("base.yaml", _line(BASE, "action: block")),
        # written by both files: the later one, as the composition lets a later file win
        "hooks.PreToolUse[1]": ("top.yaml", _line(top_text, "command: shared") - 1),
        "hooks.PreToolUse[2].command": ("top.yaml", _line(top_text, "command: top-only")),
        "hooks.Stop[0]": ("base.yaml", _line(BASE, "command: stop-base") - 1),
    }


def test_a_bundle_read_from_one_file_names_no_other_file(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text(BASE, encoding="utf-8")
    bundle = load_bundle(base)
    assert bundle.inline_hook_files == {}
    assert bundle.inline_hook_lines[0]["hooks.Stop[0]"] == _line(BASE, "command: stop-base") - 1
