"""The managed policy in the module: its file read and validated, the sources its settings keep,
its hooks mounted once, first, and apart from the module's config."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.managed_file import POLICY_VARIABLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.loader import ModuleLoader
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.config import parse_config
from amplifier_module_hooks_declarative.discovery import find_sources, load_sources
from amplifier_module_hooks_declarative.document import HooksConfigError
from amplifier_module_hooks_declarative.managed import (
    ManagedPolicy,
    ManagedPolicyError,
    apply_policy,
    format_of,
    load_managed_policy,
    origins_of,
    parse_policy,
)
from amplifier_module_hooks_declarative.managed_mount import (
    MANAGED_CAPABILITY,
    MANAGED_PRIORITY,
    handlers_ahead,
    mount_managed,
)
from amplifier_module_hooks_declarative.source import Source

DENY_RM = """\
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: bash, args: {command: "rm -rf *"}}
      action: block
      message: refused by the administrator
"""


@pytest.fixture
def policy_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A policy root owns (the tests run as root, or as the owner named below), named by the
    variable: this machine has no system policy."""
    path = tmp_path / "etc" / "managed.yaml"
    path.parent.mkdir()
    path.write_text(DENY_RM, encoding="utf-8")
    path.chmod(0o644)
    monkeypatch.setenv(POLICY_VARIABLE, str(path))
    if os.geteuid() != 0:
        monkeypatch.setenv("AMPLIFIER_HOOKS_MANAGED_OWNER", str(os.geteuid()))
    return path


def _bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": "c1"}


# ----------------------------------------------------------------------- the file


def test_the_policy_key_is_validated_with_its_line() -> None:
    text = DENY_RM + "policy:\n  managed_hooks_only: yes please\n  allowed_sources: [users]\n"
    with pytest.raises(HooksConfigError) as caught:
        parse_policy(text, "managed m.yaml")
    rendered = str(caught.value)
    assert "managed m.yaml:8: policy.managed_hooks_only" in rendered
    assert "managed m.yaml:9: policy.allowed_sources[0]" in rendered


def test_an_unknown_format_is_named_with_the_known_ones() -> None:
    text = DENY_RM + "policy: {allowed_formats: [amplifier, claude]}\n"
    with pytest.raises(HooksConfigError, match=r"policy.allowed_formats\[1\]: unknown format"):
        parse_policy(text, "managed m.yaml")
    _hooks, settings = parse_policy(
        DENY_RM + "policy: {allowed_formats: [amplifier, claude-code, gemini]}\n", "m"
    )
    assert settings.allowed_formats == ["amplifier", "claude-code", "gemini"]


def test_a_broken_policy_is_refused_whatever_the_config(policy_file: Path) -> None:
    policy_file.write_text("hooks:\n  PreToolUse: 3\n", encoding="utf-8")
    with pytest.raises(ManagedPolicyError) as caught:
        load_managed_policy()
    assert f"managed {policy_file}:2: hooks.PreToolUse" in str(caught.value)
    assert "the session does not start" in str(caught.value)


def test_no_file_is_no_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(POLICY_VARIABLE, str(tmp_path / "none.yaml"))
    assert load_managed_policy() is None


# ----------------------------------------------------------------------- other sources


def test_every_source_the_module_finds_has_a_format_and_an_origin(tmp_path: Path) -> None:
    """Whatever kinds the registry's formats declare, a policy can name each source's format
    and origin (an unmapped kind would be left out by every list)."""
    project = tmp_path / "project"
    project.mkdir()
    settings = parse_config({"hooks": {}, "files": [str(tmp_path / "extra.yaml")]})
    found = find_sources(settings, project_dir=project, user_dir=tmp_path / "home")
    kinds = {source.kind for source in found}
    assert {"user", "project", "file", "config", "claude-settings"} <= kinds
    for source in found:
        assert format_of(source.kind) is not None, source
        assert origins_of(source), source


def _source(kind: str) -> Source:
    return Source(kind, kind, None)


def test_settings_choose_sources_by_format_and_origin() -> None:
    sources = [
        _source(k)
        for k in ("user", "claude-settings", "project-plugin", "plugin", "config", "cursor-hooks")
    ]
    _, settings = parse_policy(
        DENY_RM + "policy: {allowed_formats: [amplifier, claude-code]}\n", "m"
    )
    policy = ManagedPolicy(Path("/etc/m.yaml"), parse_policy(DENY_RM, "m")[0], settings)
    kept, left_out = apply_policy(sources, policy)
    assert [s.kind for s in kept] == [
        "user",
        "claude-settings",
        "project-plugin",
        "plugin",
        "config",
    ]
    [(source, why)] = left_out
    assert source.kind == "cursor-hooks"
    assert why == (
        "left out by the managed policy /etc/m.yaml: its format (cursor) is not in allowed_formats"
    )
    _, settings = parse_policy(DENY_RM + "policy: {allowed_sources: [plugin, user]}\n", "m")
    kept, left_out = apply_policy(sources, ManagedPolicy(policy.path, policy.document, settings))
    assert [s.kind for s in kept] == ["user", "plugin"]
    reasons = {source.kind: why for source, why in left_out}
    assert reasons["project-plugin"].endswith("its origin (project) is not in allowed_sources")
    assert reasons["config"].endswith("its origin (bundle) is not in allowed_sources")


def test_managed_hooks_only_leaves_out_the_users_file(
    tmp_path: Path, policy_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    policy_file.write_text(DENY_RM + "policy: {managed_hooks_only: true}\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    (home / "hooks.yaml").write_text(
        "hooks:\n  PreToolUse:\n    - {type: matcher, match: {tool: bash}, action: allow}\n",
        encoding="utf-8",
    )
    settings = parse_config({"strict": False, "include_project": False})
    loaded = load_sources(settings, project_dir=tmp_path, user_dir=home)
    assert loaded.documents == []
    assert "left out by the managed policy" in caplog.text
    assert "managed_hooks_only" in caplog.text


# ----------------------------------------------------------------------- mounted


async def test_the_module_mounts_the_policy_first_and_once(policy_file: Path) -> None:
    coordinator = create_test_coordinator()
    config = {
        "include_user": False,
        "include_project": False,
        "observe_sources": ["*", "managed*"],
        "hooks": {
            "PreToolUse": [{"type": "matcher", "match": {"tool": "bash"}, "action": "allow"}]
        },
    }
    first = await mount(coordinator, config)
    second = await mount(coordinator, config)
    registered = [
        (info.name, info.priority)
        for info in coordinator.hooks.registrations()
        if info.event == "tool:pre"
    ]
    assert registered.count(("managed-policy:tool:pre", MANAGED_PRIORITY)) == 1
    assert coordinator.get_capability(MANAGED_CAPABILITY).path == policy_file
    result = await coordinator.hooks.emit("tool:pre", _bash("rm -rf build"))
    assert result.action == "deny"
    assert "refused by the administrator" in (result.reason or "")
    allowed = await coordinator.hooks.emit("tool:pre", _bash("ls"))
    assert allowed.action != "deny"
    await second()
    await first()
    assert not [i for i in coordinator.hooks.registrations() if i.name.startswith("managed")]


async def test_a_handler_ordered_before_the_policy_is_named(policy_file: Path) -> None:
    coordinator = create_test_coordinator()
    cleanup = await mount(coordinator, {"include_user": False, "include_project": False})

    async def early(event: str, data: dict[str, Any]) -> None:
        return None

    coordinator.hooks.register("prompt:submit", early, priority=MANAGED_PRIORITY - 1, name="a")
    assert handlers_ahead(coordinator) == []  # an event the policy has no hook for
    coordinator.hooks.register("tool:*", early, priority=MANAGED_PRIORITY - 1, name="b")
    coordinator.hooks.register("tool:pre", early, priority=MANAGED_PRIORITY, name="c")
    assert handlers_ahead(coordinator) == [f"b (tool:*, priority {MANAGED_PRIORITY - 1})"]
    await cleanup()


async def test_a_refused_policy_fails_the_mount_even_with_strict_false(
    policy_file: Path,
) -> None:
    os.chmod(policy_file, 0o666)
    coordinator = create_test_coordinator()
    with pytest.raises(ManagedPolicyError, match="writable by its group and everyone"):
        await mount(coordinator, {"strict": False, "include_user": False})
    assert not list(coordinator.hooks.registrations())


# ----------------------------------------------------------------------- generated switches

SWITCHES = st.fixed_dictionaries(
    {},
    optional={
        "strict": st.booleans(),
        "include_user": st.booleans(),
        "include_project": st.booleans(),
        "claude_code": st.booleans(),
        "gemini": st.booleans(),
        "cursor": st.booleans(),
        "hook_shell": st.booleans(),
        "observe_sources": st.lists(
            st.sampled_from(["*", "managed*", "config", "/*", "managed /*"]), max_size=3
        ),
        "disabled_plugins": st.lists(
            st.sampled_from(["*", "managed", "managed-policy", "guard@team"]), max_size=2
        ),
        "priority": st.integers(min_value=MANAGED_PRIORITY, max_value=2**63),
        "environment": st.sampled_from(["inherit", "minimal"]),
    },
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(config=SWITCHES, observe=st.booleans())
async def test_no_combination_of_switches_lifts_a_managed_deny(
    policy_file: Path, tmp_path: Path, config: dict[str, Any], observe: bool
) -> None:
    """The kernel's loader mounts the module (in observe mode or not) with a generated
    config over an inline hook that allows everything, after the application mounted the
    policy: ``rm -rf`` is denied by the policy every time, ``ls`` never is."""
    coordinator = ModuleCoordinator(config={"session": {"working_dir": str(tmp_path)}})
    coordinator.register_capability("session.working_dir", str(tmp_path))
    managed = await mount_managed(coordinator)
    assert managed is not None
    allow = [{"type": "matcher", "match": {"tool": "bash"}, "action": "allow"}]
    entry = {
        "module": "hooks-declarative",
        "observe": observe,
        "config": {"user_dir": str(tmp_path / "home"), **config, "hooks": {"PreToolUse": allow}},
    }
    loader = ModuleLoader(coordinator)
    loader.strict = True
    try:
        await loader.mount_all([entry])
        assert handlers_ahead(coordinator) == []
        denied = await coordinator.hooks.emit("tool:pre", _bash("rm -rf victim"))
        assert denied.action == "deny"
        assert denied.source == f"managed {policy_file}:hooks.PreToolUse[0]"
        allowed = await coordinator.hooks.emit("tool:pre", _bash("ls"))
        assert allowed.action != "deny"
    finally:
        await loader.cleanup()
        await managed()
