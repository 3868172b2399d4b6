"""Formats and hook types as plugins: a distribution outside the module, found through its
entry points, brings a sixth format and a new hook type, and hooks run through them with no
edit to the dispatcher.

The distribution is docs/plugins.md's worked example, its code and entry points taken from the
page as printed. It is a real one: a package and its ``.dist-info`` (``METADATA`` and
``entry_points.txt``, what ``pip install`` writes) in a directory put on ``sys.path``, read by
``importlib.metadata`` as any installed distribution is; the registry is told to read the
entry points again (:func:`refresh_plugins`) once it is there and once it is gone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.config import parse_config
from amplifier_module_hooks_declarative.protocols import protocol_names
from amplifier_module_hooks_declarative.registry import (
    BUILTIN,
    FORMATS_GROUP,
    RUNNERS_GROUP,
    PluginError,
    plugins,
    refresh_plugins,
)
from amplifier_module_hooks_declarative.survey import survey_sources

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

DOC = Path(__file__).resolve().parents[3] / "docs" / "plugins.md"
"""The page whose worked examples the tests install and run, as it prints them."""


def _block(language: str, holding: str) -> str:
    """The one ```{language} block of docs/plugins.md that holds ``holding``."""
    blocks = re.findall(
        rf"^```{language}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S
    )
    found = [block for block in blocks if holding in block]
    assert len(found) == 1, f"docs/plugins.md: one ```{language} block with {holding!r}"
    return str(found[0])


QUILL = _block("python", "FORMAT = HookFormat(")
"""docs/plugins.md's ``quill_hooks/__init__.py``: the Quill format."""
NOTIFY = _block("python", "NOTIFY = RunnerType(")
"""docs/plugins.md's ``quill_hooks/notify.py``: the ``notify`` hook type."""
NOTIFY_HOOKS = _block("text", "type: notify")
"""docs/plugins.md's hooks file with a ``notify`` hook."""


def _entry_points(*holding: str) -> str:
    """The ``entry_points.txt`` of the docs' ``pyproject.toml`` blocks holding ``holding``."""
    lines: list[str] = []
    for part in holding:
        declared = tomllib.loads(_block("toml", part))["project"]["entry-points"]
        for group, points in declared.items():
            lines += [f"[{group}]", *(f"{name} = {value}" for name, value in points.items()), ""]
    return "\n".join(lines)


ENTRY_POINTS = _entry_points('quill = "quill_hooks"', 'notify = "quill_hooks.notify:NOTIFY"')


def _distribution(root: Path, entry_points: str, package: dict[str, str]) -> Path:
    """A distribution ``quill-hooks`` 1.0 in ``root``, as an installer lays it out."""
    source = root / "quill_hooks"
    source.mkdir(parents=True)
    for name, text in package.items():
        (source / name).write_text(textwrap.dedent(text), encoding="utf-8")
    info = root / "quill_hooks-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: quill-hooks\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return root


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The ``quill-hooks`` distribution installed for the test, its home directory the
    test's own."""
    root = _distribution(
        tmp_path / "site", ENTRY_POINTS, {"__init__.py": QUILL, "notify.py": NOTIFY}
    )
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    refresh_plugins()
    yield tmp_path
    refresh_plugins()
    for name in [n for n in sys.modules if n.startswith("quill_hooks")]:
        del sys.modules[name]


async def test_a_sixth_format_and_a_new_hook_type_run_from_another_distribution(
    installed: Path,
) -> None:
    home, user_dir, project = installed / "home", installed / "amplifier", installed / "project"
    for directory in (home / ".quill", user_dir, project):
        directory.mkdir(parents=True)
    seen, notes = installed / "seen.json", installed / "notes.txt"
    script = (
        f'cat > {seen}; printf \'%s\' "$QUILL_PROJECT" > {seen}.env; echo "deny:no force pushes"'
    )
    hooks = {"hooks": {"PreToolUse": [{"type": "command", "command": script}]}}
    (home / ".quill" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    (user_dir / "hooks.yaml").write_text(
        NOTIFY_HOOKS.replace("/tmp/tool-calls.log", json.dumps(str(notes))), encoding="utf-8"
    )
    coordinator = create_test_coordinator()
    config: dict[str, Any] = {"user_dir": str(user_dir), "project_dir": str(project)}
    cleanup = await mount(coordinator, config)
    try:
        result = await coordinator.hooks.emit(
            "tool:pre", {"tool_name": "Bash", "tool_input": {"command": "git push -f"}}
        )
    finally:
        await cleanup()
    assert notes.read_text() == "tool:pre Bash checked\n"  # the user's file runs first
    assert json.loads(seen.read_text()) == {
        "agent_action": "PreToolUse",
        "tool": "Bash",
        "input": {"command": "git push -f"},
    }
    assert seen.with_name("seen.json.env").read_text() == str(project)
    assert result.action == "deny"
    assert "no force pushes" in (result.reason or "")


def test_the_registry_lists_the_other_distributions_plugins_after_its_own(
    installed: Path,
) -> None:
    formats = plugins(FORMATS_GROUP)
    assert [p.name for p in formats] == [*(name for name, _ in BUILTIN[FORMATS_GROUP]), "quill"]
    assert formats[-1].distribution == "quill-hooks"
    assert protocol_names()[-1] == "quill"
    assert [p.name for p in plugins(RUNNERS_GROUP)][-1] == "notify"
    (installed / "home" / ".quill").mkdir(parents=True)
    hooks = {"hooks": {"Stop": [{"type": "command", "command": "true"}]}}
    (installed / "home" / ".quill" / "hooks.json").write_text(json.dumps(hooks))
    settings = parse_config({"project_dir": str(installed)})
    survey = survey_sources(settings, project_dir=installed, user_dir=installed / "amplifier")
    assert [(h.source, h.kind, h.event, h.detail) for h in survey.hooks] == [
        ("~/.quill/hooks.json", "user-quill", "prompt:complete", "true")
    ]


def test_a_format_switched_off_is_not_imported(installed: Path) -> None:
    from amplifier_module_hooks_declarative.format_plugins import hook_formats

    sys.modules.pop("amplifier_module_hooks_declarative.formats.cursor", None)
    names = [f.name for f in hook_formats(parse_config({"cursor": False}))]
    assert "cursor" not in names
    assert "quill" in names
    assert "amplifier_module_hooks_declarative.formats.cursor" not in sys.modules


async def test_a_broken_format_stops_the_mount_naming_its_entry_point_and_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _distribution(
        tmp_path / "site",
        "[amplifier_hooks.formats]\nquill = quill_hooks\n",
        {"__init__.py": "raise RuntimeError('half installed')\n"},
    )
    monkeypatch.syspath_prepend(str(root))
    refresh_plugins()
    try:
        coordinator = create_test_coordinator()
        with pytest.raises(PluginError) as caught:
            await mount(coordinator, {"project_dir": str(tmp_path), "user_dir": str(tmp_path)})
    finally:
        refresh_plugins()
        sys.modules.pop("quill_hooks", None)
    message = str(caught.value)
    for part in ("'quill'", "'quill-hooks'", "amplifier_hooks.formats", "half installed"):
        assert part in message
    assert not coordinator.hooks.handlers_for("tool:pre")


async def test_a_hook_type_that_is_not_a_runner_plugin_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _distribution(
        tmp_path / "site",
        "[amplifier_hooks.runners]\nnotify = quill_hooks:NOTIFY\n",
        {"__init__.py": "NOTIFY = 'not a plugin'\n"},
    )
    monkeypatch.syspath_prepend(str(root))
    refresh_plugins()
    config = {"hooks": {"PreToolUse": [{"type": "notify"}]}, "project_dir": str(tmp_path)}
    try:
        with pytest.raises(PluginError, match=r"'notify'.*'quill-hooks'.*not a runner plugin"):
            await mount(create_test_coordinator(), {**config, "user_dir": str(tmp_path)})
    finally:
        refresh_plugins()
        sys.modules.pop("quill_hooks", None)


def test_the_pyproject_declares_the_builtin_plugins_in_their_order() -> None:
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["entry-points"]
    for group, builtin in BUILTIN.items():
        assert list(declared[group].items()) == list(builtin)


IMPORTS = """
import asyncio, json, sys
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount

async def main():
    coordinator = create_test_coordinator()
    config = {"project_dir": sys.argv[1], "user_dir": sys.argv[1]}
    cleanup = await mount(coordinator, config)
    await cleanup()

asyncio.run(main())
print(json.dumps(sorted(n for n in sys.modules if n.startswith(sys.argv[2]))))
"""


def test_a_mount_imports_only_the_formats_whose_files_it_reads(tmp_path: Path) -> None:
    package = "amplifier_module_hooks_declarative."
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "hooks.json").write_text('{"version": 1, "hooks": {}}')
    env = {**os.environ, "HOME": str(home)}
    env.pop("AMPLIFIER_HOME", None)
    done = subprocess.run(
        [sys.executable, "-c", IMPORTS, str(tmp_path), package],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert f"{package}formats.cursor.reader" in loaded  # its file is there
    for absent in (
        "formats.gemini.reader",
        "formats.gemini.extensions",
        "formats.gemini.protocol",
        "runners.command",
    ):
        assert package + absent not in loaded
