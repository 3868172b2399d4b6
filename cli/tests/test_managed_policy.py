"""The machine's managed policy holds against every user and project switch: each case is a
real ``amplifier-hooks run`` (the installed script, the scripted provider) whose model asks
for ``rm -rf victim``; the managed deny must stop it, so ``victim/keep.txt`` survives. A
policy file the user could change is refused and the session does not start."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_cli import DELETING_SCRIPT, LOADER_ENV, SCRIPT, no_traceback, write

MANAGED = """\
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: bash, args: {command: "rm -rf *"}}
      action: block
      message: recursive deletes are refused on this machine
"""

ALLOW_EVERYTHING = """\
        PreToolUse:
          - type: matcher
            match: {tool: bash}
            action: allow
"""

DENIED = "denied bash by managed"


def _env(tmp_path: Path, policy: Path | None, **more: str) -> dict[str, str]:
    dropped = ("COLUMNS", *LOADER_ENV, "AMPLIFIER_HOOKS_MANAGED_POLICY")
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env["AMPLIFIER_HOME"] = str(tmp_path / "home")
    env["COLUMNS"] = "300"
    if policy is not None:
        env["AMPLIFIER_HOOKS_MANAGED_POLICY"] = str(policy)
    env.update(more)
    return env


def _command(
    *args: str, env: dict[str, str], cwd: Path, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, str(SCRIPT), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )


def _run(tmp_path: Path, bundle: Path, policy: Path | None, **env: str) -> tuple[int, str]:
    workspace = tmp_path / "work"
    done = _command(
        "run",
        "--bundle",
        str(bundle),
        "--script",
        str(tmp_path / "script.yaml"),
        "--workspace",
        str(workspace),
        "--prompt",
        "tidy up",
        "--approve",
        env=_env(tmp_path, policy, **env),
        cwd=tmp_path,
    )
    text = done.stdout + done.stderr
    no_traceback(text)
    return done.returncode, " ".join(text.split())


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    """A workspace with ``victim/keep.txt``, the script, and the policy (root's, 0644)."""
    workspace = tmp_path / "work"
    write(workspace / "victim" / "keep.txt", "precious\n")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    write(tmp_path / "script.yaml", DELETING_SCRIPT)
    policy = write(tmp_path / "etc" / "managed.yaml", MANAGED)
    policy.chmod(0o644)
    return policy


def _intact(tmp_path: Path) -> bool:
    return (tmp_path / "work" / "victim" / "keep.txt").is_file()


def _bundle(tmp_path: Path, text: str, name: str = "bundle.yaml") -> Path:
    return write(tmp_path / name, text)


DECLARATIVE = """\
hooks:
  - module: hooks-declarative
{entry}    config:
{config}      hooks:
{allow}"""


def _declarative(entry: str = "", config: str = "") -> str:
    return DECLARATIVE.format(entry=entry, config=config, allow=ALLOW_EVERYTHING)


SWITCHES = {
    "none": _declarative(),
    "disabled-plugins": _declarative(
        config="      disabled_plugins: [managed, managed-policy, '*']\n"
    ),
    "strict-false": _declarative(config="      strict: false\n"),
    "observe-entry": _declarative(entry="    observe: true\n"),
    "observe-sources": _declarative(config="      observe_sources: ['*', 'managed*', '/*']\n"),
    "formats-off": _declarative(
        config=(
            "      include_user: false\n      include_project: false\n"
            "      claude_code: false\n      gemini: false\n      cursor: false\n"
            "      hook_shell: false\n"
        )
    ),
    "no-declarative-module": "hooks:\n  - module: hooks-logging\n",
    "no-hooks-at-all": "bundle:\n  name: bare\n",
    "same-priority-first": _declarative(config=f"      priority: {-(2**63)}\n"),
}


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_a_managed_deny_holds_against_every_switch(
    tmp_path: Path, setup: Path, switch: str
) -> None:
    bundle = _bundle(tmp_path, SWITCHES[switch])
    code, text = _run(tmp_path, bundle, setup)
    assert code == 0, text
    assert DENIED in text, text
    assert _intact(tmp_path), text


def test_a_project_bundle_composed_over_the_users_observes_and_cannot_lift_the_deny(
    tmp_path: Path, setup: Path
) -> None:
    """The project's bundle includes the user's and composes over it: the user's entry turned
    to observe mode, formats and strictness off, the loader's observe on every module. The
    policy still decides first."""
    _bundle(tmp_path, SWITCHES["none"], "user-bundle.yaml")
    project = (
        "includes:\n"
        f"  - bundle: {tmp_path / 'user-bundle.yaml'}\n"
        "hooks:\n"
        "  - module: hooks-declarative\n"
        "    observe: true\n"
        "    config:\n"
        "      strict: false\n"
        "      claude_code: false\n"
        "      observe_sources: ['*']\n"
        "      disabled_plugins: ['*']\n"
    )
    bundle = _bundle(tmp_path / "work", project, "bundle.yaml")
    code, text = _run(tmp_path, bundle, setup)
    assert code == 0, text
    assert DENIED in text, text
    assert _intact(tmp_path), text
    code, text = _run(tmp_path, bundle, None)  # the control: without the policy it deletes
    assert code == 0, text
    assert not _intact(tmp_path), text


def test_the_loaders_deny_list_does_not_reach_the_policy(tmp_path: Path, setup: Path) -> None:
    """Denying the module to the loader does not unmount the policy the session mounts."""
    bundle = _bundle(tmp_path, SWITCHES["no-declarative-module"])
    code, text = _run(tmp_path, bundle, setup, AMPLIFIER_MODULES_DENY="hooks-declarative")
    assert code == 0, text
    assert DENIED in text, text
    assert _intact(tmp_path), text


def test_without_the_policy_the_same_bundles_delete(tmp_path: Path, setup: Path) -> None:
    """The control: the switches do let the command run when no policy is in force."""
    bundle = _bundle(tmp_path, SWITCHES["observe-entry"])
    code, text = _run(tmp_path, bundle, None)
    assert code == 0, text
    assert DENIED not in text
    assert not _intact(tmp_path), text


def test_a_project_bundle_cannot_order_a_handler_before_the_managed_hooks(
    tmp_path: Path, setup: Path
) -> None:
    """A bundle kept in the project asks for a priority lower than the policy's: the session
    refuses to start rather than let anything decide before the policy."""
    text = _declarative(config=f"      priority: {-(2**63) - 1}\n")
    bundle = _bundle(tmp_path / "work", text, "bundle.yaml")
    code, out = _run(tmp_path, bundle, setup)
    assert code != 0, out
    assert "stopped before its first turn" in out
    assert "must run first" in out
    assert "hooks-declarative:tool:pre" in out
    assert _intact(tmp_path)


def _claude_project(tmp_path: Path) -> None:
    """A trusted project whose Claude Code settings run a hook that leaves a marker."""
    workspace = tmp_path / "work"
    command = f"touch {tmp_path / 'project-hook-ran'}"
    hooks = [{"hooks": [{"type": "command", "command": command}]}]
    settings = {"hooks": {"UserPromptSubmit": hooks}}
    write(workspace / ".claude" / "settings.json", json.dumps(settings))


def _user_hook(tmp_path: Path) -> None:
    command = f"touch {tmp_path / 'user-hook-ran'}"
    text = f"hooks:\n  UserPromptSubmit:\n    - type: command\n      command: {command}\n"
    write(tmp_path / "home" / "hooks.yaml", text)


@pytest.mark.parametrize(
    ("policy", "user_runs", "project_runs"),
    [
        ("", True, True),
        ("policy: {managed_hooks_only: true}\n", False, False),
        ("policy: {allowed_formats: [amplifier]}\n", True, False),
        ("policy: {allowed_sources: [project]}\n", False, True),
    ],
    ids=["no-restriction", "managed-only", "amplifier-format-only", "project-only"],
)
def test_policy_settings_choose_which_other_hooks_run(
    tmp_path: Path, setup: Path, policy: str, user_runs: bool, project_runs: bool
) -> None:
    setup.write_text(MANAGED + policy, encoding="utf-8")
    _claude_project(tmp_path)
    _user_hook(tmp_path)
    bundle = _bundle(tmp_path, "hooks:\n  - module: hooks-declarative\n")
    code, text = _run(tmp_path, bundle, setup, AMPLIFIER_TRUST_PROJECT=str(tmp_path / "work"))
    assert code == 0, text
    assert DENIED in text, text
    assert _intact(tmp_path), text
    assert (tmp_path / "user-hook-ran").exists() is user_runs, text
    assert (tmp_path / "project-hook-ran").exists() is project_runs, text
    if not (user_runs and project_runs):
        assert "left out by the managed policy" in text


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda p: os.chown(p, 12345, 0), "owned by uid 12345, not by an administrator"),
        (lambda p: p.chmod(0o664), "writable by its group"),
        (lambda p: p.chmod(0o646), "writable by everyone"),
        (lambda p: os.chown(p.parent, 12345, 0), "is owned by uid 12345"),
        (lambda p: p.parent.chmod(0o777), "writable by its group and everyone"),
    ],
    ids=["file-owner", "group-writable", "world-writable", "directory-owner", "directory-mode"],
)
def test_a_policy_file_others_can_change_stops_the_session(
    tmp_path: Path, setup: Path, change: object, why: str
) -> None:
    if os.geteuid() != 0:
        pytest.skip("changes owners: runs as root")
    change(setup)  # type: ignore[operator]
    bundle = _bundle(tmp_path, SWITCHES["strict-false"])
    code, text = _run(tmp_path, bundle, setup)
    assert code != 0, text
    assert "stopped before its first turn" in text
    assert "the managed policy is refused" in text, text
    assert why in text, text
    assert _intact(tmp_path)


def test_an_invalid_policy_stops_the_session_with_its_line(tmp_path: Path, setup: Path) -> None:
    setup.write_text(MANAGED + "policy:\n  managed_hooks_onyl: true\n", encoding="utf-8")
    code, text = _run(tmp_path, _bundle(tmp_path, SWITCHES["strict-false"]), setup)
    assert code != 0
    assert f"managed {setup}:8: policy.managed_hooks_onyl" in text, text
    assert _intact(tmp_path)


def test_the_administrator_named_by_the_variable_may_own_the_policy(
    tmp_path: Path, setup: Path
) -> None:
    """On a machine without a system policy, AMPLIFIER_HOOKS_MANAGED_OWNER adds an
    administrator: a file owned by ``nobody`` is refused, then accepted with nobody named."""
    if os.geteuid() != 0:
        pytest.skip("changes owners: runs as root")
    os.chown(setup, 65534, 65534)
    bundle = _bundle(tmp_path, SWITCHES["none"])
    code, text = _run(tmp_path, bundle, setup)
    assert code != 0, text
    assert "not by an administrator" in text, text
    code, text = _run(tmp_path, bundle, setup, AMPLIFIER_HOOKS_MANAGED_OWNER="65534")
    assert code == 0, text
    assert DENIED in text
    assert _intact(tmp_path)


@pytest.fixture
def unprivileged() -> Iterator[tuple[tuple[str, ...], Path, Path]]:
    """A ``setpriv`` prefix running as ``nobody``, a directory nobody owns, and one root owns
    (mode 0755) for the policy."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to run as nobody")
    prefix = (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")
    probe = subprocess.run(
        [*prefix, str(SCRIPT), "--help"],
        cwd="/",
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    if probe.returncode != 0:  # a checkout under a 0700 directory (mktemp -d), say
        pytest.skip(
            "nobody cannot run this environment's amplifier-hooks (its checkout or virtual "
            f"environment is not readable by others): {probe.stderr.strip()[-200:]}"
        )
    place = Path(tempfile.mkdtemp(prefix="managed-nobody-"))
    etc = Path(tempfile.mkdtemp(prefix="managed-etc-"))
    for directory in (place, etc):
        directory.chmod(0o755)
    os.chown(place, 65534, 65534)
    try:
        yield prefix, place, etc
    finally:
        shutil.rmtree(place, ignore_errors=True)
        shutil.rmtree(etc, ignore_errors=True)


def test_a_policy_the_user_owns_is_refused_for_that_user(
    unprivileged: tuple[tuple[str, ...], Path, Path],
) -> None:
    """Run as ``nobody``: a policy file nobody owns (so nobody could rewrite it) is refused,
    by ``validate --managed`` and by ``run``; the same file owned by root is in force, and
    refused again in a directory nobody owns (nobody could replace it)."""
    prefix, place, etc = unprivileged
    policy = write(etc / "managed.yaml", MANAGED)
    policy.chmod(0o644)
    os.chown(policy, 65534, 65534)
    env = _env(place, policy, HOME=str(place))
    checked = _command("validate", "--managed", env=env, cwd=place, prefix=prefix)
    flat = " ".join((checked.stdout + checked.stderr).split())
    assert checked.returncode == 1, flat
    assert "owned by nobody (uid 65534), you, not by an administrator" in flat
    write(place / "script.yaml", DELETING_SCRIPT)
    write(place / "work" / "victim" / "keep.txt", "precious\n")
    for path in (place / "work", place / "work" / "victim", place / "work" / "victim" / "keep.txt"):
        os.chown(path, 65534, 65534)
    bundle = write(place / "bundle.yaml", SWITCHES["none"])
    args = ("run", "--bundle", str(bundle), "--script", str(place / "script.yaml"))
    args += ("--workspace", str(place / "work"), "--prompt", "tidy up", "--approve")
    refused = _command(*args, env=env, cwd=place, prefix=prefix)
    flat = " ".join((refused.stdout + refused.stderr).split())
    assert refused.returncode != 0, flat
    assert "the managed policy is refused" in flat
    assert "you, not by an administrator" in flat
    assert (place / "work" / "victim" / "keep.txt").is_file()
    os.chown(policy, 0, 0)
    held = _command(*args, env=env, cwd=place, prefix=prefix)
    flat = " ".join((held.stdout + held.stderr).split())
    assert held.returncode == 0, flat
    assert DENIED in flat
    assert (place / "work" / "victim" / "keep.txt").is_file()
    moved = policy.rename(place / "managed.yaml")
    env = _env(place, moved, HOME=str(place))
    again = _command(*args, env=env, cwd=place, prefix=prefix)
    flat = " ".join((again.stdout + again.stderr).split())
    assert again.returncode != 0, flat
    assert f"{place} is owned by nobody (uid 65534), not by an administrator" in flat
    assert (place / "work" / "victim" / "keep.txt").is_file()


def test_hooks_list_marks_the_managed_hooks(tmp_path: Path, setup: Path) -> None:
    setup.write_text(MANAGED + "policy: {allowed_sources: [user]}\n", encoding="utf-8")
    bundle = _bundle(tmp_path, SWITCHES["observe-entry"])
    env = _env(tmp_path, setup)
    listed = _command("hooks", "list", "--bundle", str(bundle), "--json", env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data[0]["managed"] is True
    assert data[0]["path"] == str(setup)
    assert data[0]["settings"]["allowed_sources"] == ["user"]
    [hook] = data[0]["hooks"]
    assert hook["managed"] is True
    assert hook["observed"] is False
    assert hook["label"] == f"managed {setup}:hooks.PreToolUse[0]"
    skipped = " ".join(item["reason"] for item in data[1]["skipped"])
    assert "left out by the managed policy" in skipped
    assert "allowed_sources" in skipped
    table = _command("hooks", "list", "--bundle", str(bundle), env=env, cwd=tmp_path)
    flat = " ".join(table.stdout.split())
    assert f"managed policy {setup}: its hooks run first" in flat
    rows = [line for line in table.stdout.splitlines() if "block when tool=bash" in line]
    assert rows, table.stdout
    assert rows[0].rstrip(" │").endswith("managed"), table.stdout


def test_validate_checks_the_managed_policy(tmp_path: Path, setup: Path) -> None:
    env = _env(tmp_path, setup)
    good = _command("validate", "--managed", env=env, cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    assert f"{setup}: ok: managed policy trusted by ownership, 1 hook(s)" in good.stdout
    bundle = _bundle(tmp_path, SWITCHES["none"])
    with_bundle = _command("validate", str(bundle), env=env, cwd=tmp_path)
    assert with_bundle.returncode == 0, with_bundle.stderr
    assert "its hooks run first" in with_bundle.stdout
    setup.chmod(0o666)
    bad = _command("validate", str(bundle), "--json", env=env, cwd=tmp_path)
    assert bad.returncode == 1
    problems = json.loads(bad.stdout)["problems"]
    assert any("the managed policy is refused" in p for p in problems), problems
    draft = write(tmp_path / "draft.yaml", "hooks:\n  PreToolUse: 3\n")
    draft.chmod(0o644)
    checked = _command("validate", "--managed", str(draft), "--json", env=env, cwd=tmp_path)
    assert checked.returncode == 1
    result = json.loads(checked.stdout)
    assert result["in_force"] is False
    assert f"managed {draft}:2: hooks.PreToolUse" in result["problems"][0]


def test_emit_runs_the_managed_hooks_first(tmp_path: Path, setup: Path) -> None:
    bundle = _bundle(tmp_path, SWITCHES["observe-entry"])
    data = json.dumps({"tool_name": "bash", "tool_input": {"command": "rm -rf build"}})
    args = ("emit", "tool:pre", "--bundle", str(bundle), "--data", data, "--json")
    done = _command(*args, env=_env(tmp_path, setup), cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    trace = json.loads(done.stdout)
    first = trace["handlers"][0]
    assert first["name"] == "managed-policy:tool:pre"
    assert first["action"] == "deny"
    assert trace["result"]["source"] == f"managed {setup}:hooks.PreToolUse[0]"


async def test_a_policy_without_hooks_declarative_stops_the_session(
    tmp_path: Path, setup: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the module that runs the policy cannot be imported, a policy file stops the
    session; without a file nothing is asked of the module."""
    from amplifier_hooks_cli.managed import ManagedPolicyRefused, mount_policy

    from amplifier_core.testing import create_test_coordinator

    monkeypatch.setitem(sys.modules, "amplifier_module_hooks_declarative", None)
    monkeypatch.setenv("AMPLIFIER_HOOKS_MANAGED_POLICY", str(setup))
    with pytest.raises(ManagedPolicyRefused, match="needs hooks-declarative to run its hooks"):
        await mount_policy(create_test_coordinator(), "session s stopped before its first turn")
    monkeypatch.setenv("AMPLIFIER_HOOKS_MANAGED_POLICY", str(tmp_path / "none.yaml"))
    assert await mount_policy(create_test_coordinator(), "session s") is None


def test_the_policys_hooks_leave_receipts_naming_its_file_and_line(
    tmp_path: Path, setup: Path
) -> None:
    """A session that keeps receipts gets one for each run of the policy's hooks, as for any
    other declarative hook: the policy file and the entry's line, the definition's digest,
    the decision; the handler that runs them is named as a dispatcher. The chain holds."""
    from amplifier_core.audit_chain import verify_lines

    log = tmp_path / "audit.jsonl"
    bundle = _bundle(tmp_path, f"session:\n  audit_log: {log}\n" + SWITCHES["none"])
    code, text = _run(tmp_path, bundle, setup)
    assert code == 0, text
    assert DENIED in text, text
    lines = log.read_text(encoding="utf-8").splitlines()
    runs = [r for r in map(json.loads, lines) if r["type"] == "hook_run"]
    entry = 1 + MANAGED.splitlines().index("    - type: matcher")
    managed = [r for r in runs if r["kind"] == "declarative" and r["hook"].startswith("managed ")]
    assert [(r["source"], r["decision"], r["outcome"], r["tool"]) for r in managed] == [
        (f"{setup}:{entry}", "block", "ok", "bash")
    ], runs
    assert len(managed[0]["definition_sha256"]) == 64
    assert managed[0]["event"] == "tool:pre"
    dispatchers = {r["hook"] for r in runs if r["kind"] == "dispatcher"}
    assert "managed-policy:tool:pre" in dispatchers, runs
    report = verify_lines(lines)
    assert (report.intact, report.unsealed) == (True, []), report
