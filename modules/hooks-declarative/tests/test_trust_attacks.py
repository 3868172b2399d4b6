"""Trust, attacked: after ``amplifier-hooks trust``, a change to anything a trusted project's
hook executes, imports, sources or reads as code makes that hook refuse before its next run,
whether the change lands before the session starts or between two tool calls (a ``git pull``).
Each case is a project with a hook, the route by which the hook reaches a file, and the change
an attacker makes; each asserts that the changed code never ran (no marker file)."""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from amplifier_module_hooks_declarative import HooksConfigError
from amplifier_module_hooks_declarative.trust import trust_project, trust_status

from .support import answer_after, mounted
from .support import bash_call as bash


@dataclass(frozen=True)
class Route:
    """A hook ``command`` and the project ``files`` it reaches; the attack writes ``evil`` (a
    shell command, a Python line, ...) into ``target`` (``{marker}`` is the marker's path)."""

    command: str
    files: dict[str, str]
    target: str
    evil: str
    executable: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    links: dict[str, str] = field(default_factory=dict)


PY_EVIL = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"
SH_EVIL = "touch {marker}\n"

ROUTES: dict[str, Route] = {
    "sibling-module-of-a-script": Route(
        "python3 scripts/guard.py",
        {"scripts/guard.py": "import helper\n", "scripts/helper.py": "OK = 1\n"},
        "scripts/helper.py",
        PY_EVIL,
    ),
    "script-under-the-project-dir-variable": Route(
        'python3 "$CLAUDE_PROJECT_DIR"/tools/guard.py',
        {"tools/guard.py": "import helper\n", "tools/helper.py": "OK = 1\n"},
        "tools/helper.py",
        PY_EVIL,
    ),
    "python-m-importing-another-file": Route(
        "python3 -m tools.guard",
        {
            "tools/__init__.py": "",
            "tools/guard.py": "from tools import util\n",
            "tools/util.py": "OK = 1\n",
        },
        "tools/util.py",
        PY_EVIL,
    ),
    "python-c-import": Route(
        "python3 -c 'import guard'", {"guard.py": "OK = 1\n"}, "guard.py", PY_EVIL
    ),
    "sourced-shell-library": Route(
        "bash scripts/guard.sh",
        {"scripts/guard.sh": '. "$(dirname "$0")/lib/common"\n', "scripts/lib/common": "true\n"},
        "scripts/lib/common",
        SH_EVIL,
    ),
    "cat-into-sh": Route(
        "cat scripts/guard | sh", {"scripts/guard": "true\n"}, "scripts/guard", SH_EVIL
    ),
    "eval-of-cat": Route(
        'sh -c \'eval "$(cat "$0")"\' scripts/guard',
        {"scripts/guard": "true\n"},
        "scripts/guard",
        SH_EVIL,
    ),
    "awk-f": Route(
        "awk -f scripts/guard.awk /dev/null",
        {"scripts/guard.awk": "BEGIN { }\n"},
        "scripts/guard.awk",
        'BEGIN {{ system("touch {marker}") }}\n',
        needs=("awk",),
    ),
    "sed-f-with-e": Route(
        "echo x | sed -n -f scripts/guard.sed",
        {"scripts/guard.sed": "p\n"},
        "scripts/guard.sed",
        "1e touch {marker}\n",
        needs=("sed",),
    ),
    "tclsh": Route(
        "tclsh scripts/guard.tcl",
        {"scripts/guard.tcl": "set ok 1\n"},
        "scripts/guard.tcl",
        'exec touch "{marker}"\n',
        needs=("tclsh",),
    ),
    "make": Route(
        "make -s guard",
        {"Makefile": "guard:\n\t@true\n"},
        "Makefile",
        "guard:\n\t@touch {marker}\n",
        needs=("make",),
    ),
    "make-f-recipe-script": Route(
        "make -s -f build/hooks.mk guard",
        {"build/hooks.mk": "guard:\n\t@sh tools/check.sh\n", "tools/check.sh": "true\n"},
        "tools/check.sh",
        SH_EVIL,
        needs=("make",),
    ),
    "npm-run": Route(
        "npm run -s guard",
        {
            "package.json": json.dumps({"name": "p", "scripts": {"guard": "node tools/g.js"}}),
            "tools/g.js": "process.exit(0)\n",
        },
        "tools/g.js",
        "require('fs').writeFileSync({marker!r}, 'ran')\n",
        needs=("npm", "node"),
    ),
    "node-require": Route(
        "node scripts/guard.js",
        {"scripts/guard.js": "require('../lib/check')\n", "lib/check.js": "module.exports=1\n"},
        "lib/check.js",
        "require('fs').writeFileSync({marker!r}, 'ran')\n",
        needs=("node",),
    ),
    "npx-no-install": Route(
        "npx --no-install guardtool",
        {
            "package.json": json.dumps({"name": "p", "version": "1.0.0"}),
            "node_modules/guardtool/package.json": json.dumps(
                {"name": "guardtool", "version": "1.0.0", "bin": {"guardtool": "cli.js"}}
            ),
            "node_modules/guardtool/cli.js": "#!/usr/bin/env node\nprocess.exit(0)\n",
        },
        "node_modules/guardtool/cli.js",
        "#!/usr/bin/env node\nrequire('fs').writeFileSync({marker!r}, 'ran')\n",
        executable=("node_modules/guardtool/cli.js",),
        needs=("npx", "node"),
        links={"node_modules/.bin/guardtool": "../guardtool/cli.js"},
    ),
}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    return path


def build(project: Path, route: Route) -> None:
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": route.command}]}
            ]
        }
    }
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    for name, text in route.files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    for name in route.executable:
        (project / name).chmod(0o755)
    for name, target in route.links.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).symlink_to(target)


def attack(project: Path, route: Route, marker: Path) -> None:
    target = project / route.target
    target.write_text(route.evil.format(marker=str(marker)))


def skip_without(route: Route) -> None:
    for tool in route.needs:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.mark.parametrize("name", sorted(ROUTES))
async def test_a_change_between_two_tool_calls_makes_the_hook_refuse(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    route = ROUTES[name]
    skip_without(route)
    project = tmp_path / "project"
    build(project, route)
    trust_project(project)
    marker = tmp_path / "marker"
    coordinator, cleanup = await mounted(project)
    try:
        first = await coordinator.hooks.emit("tool:pre", bash("git status"))
        assert first.action == "continue", first
        attack(project, route, marker)  # a git pull between two tool calls
        with caplog.at_level(logging.WARNING):
            second = await coordinator.hooks.emit("tool:pre", bash("git status"))
    finally:
        await cleanup()
    assert not marker.exists(), f"{name}: the changed code ran"
    assert second.action == "deny"
    assert route.target in (second.reason or "")
    assert "amplifier-hooks trust" in (second.reason or "")
    assert ".claude/settings.json:hooks.PreToolUse[0].hooks[0]" in (second.reason or "")
    assert not trust_status(project).trusted


@pytest.mark.parametrize("name", sorted(ROUTES))
async def test_a_change_before_the_session_stops_it_before_the_first_turn(
    tmp_path: Path, name: str
) -> None:
    route = ROUTES[name]
    skip_without(route)
    project = tmp_path / "project"
    build(project, route)
    trust_project(project)
    marker = tmp_path / "marker"
    attack(project, route, marker)
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project)
    message = str(caught.value)
    assert route.target in message
    assert "amplifier-hooks trust" in message
    assert "strict: false" in message
    assert not marker.exists()


def _link_out(project: Path, outside: Path) -> Path:
    build(
        project,
        Route("scripts/guard.sh", {}, "", ""),
    )
    (project / "scripts").mkdir()
    script = outside / "guard.sh"
    script.write_text("#!/bin/sh\ntrue\n")
    script.chmod(0o755)
    (project / "scripts" / "guard.sh").symlink_to(script)
    return script


@pytest.mark.parametrize("how", ["target-changed", "link-re-pointed"])
async def test_a_script_linked_out_of_the_project_is_watched_where_it_leads(
    tmp_path: Path, outside: Path, how: str
) -> None:
    project = tmp_path / "project"
    script = _link_out(project, outside)
    trust_project(project)
    marker = tmp_path / "marker"

    def change() -> None:
        if how == "target-changed":
            script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        else:
            evil = outside / "evil.sh"
            evil.write_text(f"#!/bin/sh\ntouch {marker}\n")
            evil.chmod(0o755)
            link = project / "scripts" / "guard.sh"
            temporary = project / "scripts" / ".guard.sh.new"
            temporary.symlink_to(evil)
            os.replace(temporary, link)

    second = await answer_after(project, change)
    assert not marker.exists()
    assert second.action == "deny"
    assert "amplifier-hooks trust" in (second.reason or "")


async def test_a_hook_that_logs_into_its_own_directory_stays_trusted_over_two_sessions(
    tmp_path: Path,
) -> None:
    """Two Cursor guards write their audit log inside ``.cursor/hooks/``: the log is the hook's
    own data, so the guard still denies in the second session; a change to the guard's code
    still revokes trust."""
    project = tmp_path / "project"
    hooks = project / ".cursor" / "hooks"
    hooks.mkdir(parents=True)
    entry = {"command": ".cursor/hooks/guard.sh"}
    (project / ".cursor" / "hooks.json").write_text(
        json.dumps({"version": 1, "hooks": {"beforeShellExecution": [entry]}})
    )
    guard = hooks / "guard.sh"
    guard.write_text(
        "#!/bin/sh\n"
        'here="$(dirname "$0")"\n'
        "input=$(cat)\n"
        'echo "$input" >> "$here/audit.log"\n'
        'mkdir -p "$here/cache" && echo seen > "$here/cache/state.json"\n'
        'case "$input" in\n'
        '  *"push --force"*) echo \'{"permission": "deny", "user_message": "no force push"}\' ;;\n'
        '  *) echo \'{"permission": "allow"}\' ;;\n'
        "esac\n"
    )
    guard.chmod(0o755)
    trust_project(project)
    push = bash("git push --force origin main")
    for session in (1, 2, 3):
        coordinator, cleanup = await mounted(project)
        try:
            result = await coordinator.hooks.emit("tool:pre", push)
            allowed = await coordinator.hooks.emit("tool:pre", bash("ls"))
        finally:
            await cleanup()
        assert result.action == "deny", f"session {session}: {result}"
        assert allowed.action != "deny", f"session {session}: {allowed}"
        assert trust_status(project).trusted, f"after session {session}"
    assert (hooks / "audit.log").read_text().count("push --force") == 3
    marker = tmp_path / "marker"
    guard.write_text(f'#!/bin/sh\ntouch {marker}\necho \'{{"permission": "allow"}}\'\n')
    with pytest.raises(HooksConfigError, match=r"\.cursor/hooks/guard\.sh"):
        await mounted(project)
    assert not marker.exists()


async def test_data_that_turns_into_code_revokes_trust(tmp_path: Path) -> None:
    """A log the hook wrote is its data only while it holds no code: made executable (or given
    a #! line) it counts again."""
    project = tmp_path / "project"
    hooks = project / ".cursor" / "hooks"
    hooks.mkdir(parents=True)
    (project / ".cursor" / "hooks.json").write_text(
        json.dumps(
            {"version": 1, "hooks": {"beforeShellExecution": [{"command": ".cursor/hooks/g.sh"}]}}
        )
    )
    script = hooks / "g.sh"
    script.write_text(
        '#!/bin/sh\necho x >> "$(dirname "$0")/run.log"\necho \'{"permission": "allow"}\'\n'
    )
    script.chmod(0o755)
    trust_project(project)
    coordinator, cleanup = await mounted(project)
    try:
        await coordinator.hooks.emit("tool:pre", bash("ls"))
        assert trust_status(project).trusted
        (hooks / "run.log").chmod(0o755)
        second = await coordinator.hooks.emit("tool:pre", bash("ls"))
    finally:
        await cleanup()
    assert second.action == "deny"
    assert ".cursor/hooks/run.log" in (second.reason or "")


async def test_configuration_a_hook_reads_still_revokes_trust(tmp_path: Path) -> None:
    """A policy file the guard reads but never writes: an edit outside the hook's runs is a
    change, not the hook's data."""
    project = tmp_path / "project"
    hooks = project / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"hooks": [{"type": "command", "command": "sh .claude/hooks/g.sh"}]}
                    ]
                }
            }
        )
    )
    (hooks / "g.sh").write_text('grep -q "$(cat)" .claude/hooks/policy.json && exit 2; exit 0\n')
    (hooks / "policy.json").write_text('{"deny": ["rm"]}\n')
    trust_project(project)
    (hooks / "policy.json").write_text('{"deny": []}\n')
    with pytest.raises(HooksConfigError, match=r"\.claude/hooks/policy\.json"):
        await mounted(project)


async def test_a_module_that_shadows_what_a_hook_imports_makes_it_refuse(tmp_path: Path) -> None:
    """``python3 -m tools.guard`` puts the project first on sys.path: a json.py that appears at
    its top level would run in place of the standard library's."""
    route = ROUTES["python-m-importing-another-file"]
    project = tmp_path / "project"
    build(project, route)
    (project / "tools" / "guard.py").write_text("import json\nfrom tools import util\n")
    trust_project(project)
    marker = tmp_path / "marker"
    second = await answer_after(
        project, lambda: (project / "json.py").write_text(PY_EVIL.format(marker=str(marker)))
    )
    assert not marker.exists()
    assert second.action == "deny"
    assert "json.py" in (second.reason or "")


async def test_a_re_pointed_hooks_directory_link_makes_the_hooks_refuse(
    tmp_path: Path, outside: Path
) -> None:
    """``.claude`` is a link to a directory of hooks; pointing it elsewhere changes what runs."""
    project = tmp_path / "project"
    project.mkdir()
    good = outside / "good"
    (good / "hooks").mkdir(parents=True)
    command = {"type": "command", "command": "sh .claude/hooks/guard.sh"}
    settings = json.dumps({"hooks": {"PreToolUse": [{"hooks": [command]}]}})
    (good / "settings.json").write_text(settings)
    (good / "hooks" / "guard.sh").write_text("true\n")
    marker = tmp_path / "marker"
    evil = outside / "evil"
    (evil / "hooks").mkdir(parents=True)
    (evil / "settings.json").write_text(settings)
    (evil / "hooks" / "guard.sh").write_text(SH_EVIL.format(marker=marker))
    (project / ".claude").symlink_to(good)
    trust_project(project)

    def change() -> None:
        temporary = project / ".claude.new"
        temporary.symlink_to(evil)
        os.replace(temporary, project / ".claude")

    second = await answer_after(project, change)
    assert not marker.exists()
    assert second.action == "deny"
    assert "amplifier-hooks trust" in (second.reason or "")


def test_hooks_list_says_a_changed_trusted_project_stops_the_session(tmp_path: Path) -> None:
    from amplifier_module_hooks_declarative import parse_config, survey_sources

    route = ROUTES["sibling-module-of-a-script"]
    project = tmp_path / "project"
    build(project, route)
    trust_project(project)
    attack(project, route, tmp_path / "marker")
    survey = survey_sources(
        parse_config({"include_user": False}), project_dir=project, user_dir=tmp_path / "home"
    )
    [skipped] = survey.skipped
    assert skipped.what == ".claude/settings.json"
    assert skipped.fatal
    assert "scripts/helper.py" in skipped.reason
    lenient = survey_sources(
        parse_config({"include_user": False, "strict": False}),
        project_dir=project,
        user_dir=tmp_path / "home",
    )
    assert not lenient.skipped[0].fatal
