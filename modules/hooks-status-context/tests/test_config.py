"""Every config key has its effect, and bad config is rejected with a clear message."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_status_context import (
    DEFAULT_CAPPED_PATHS,
    DEFAULT_HIDDEN_PATHS,
    DEFAULT_REFRESH_TOOLS,
    HANDLER_NAME,
    StatusContextConfig,
    StatusContextHook,
    mount,
    parse_config,
)


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory, new_repo_module: Any) -> Any:
    """A repository with one of each kind of status entry and six commits; tests only read it
    (looking never writes, see test_cache.py), so one serves the whole module."""
    repo = new_repo_module(tmp_path_factory.mktemp("busy") / "repo")
    repo.commit("first commit", "README.md", "src/app.py")
    for n in range(3):
        repo.git("commit", "-q", "--allow-empty", "-m", f"commit {n + 2}")
    repo.commit("modules", *(f"src/mod{n}.py" for n in range(4)))
    for n in range(4):
        repo.write(f"src/mod{n}.py", "changed again\n")
    for n in range(3):
        repo.write(f"new{n}.txt")
    repo.write("node_modules/left-pad/index.js")
    repo.write("generated/out.txt")
    repo.write("package-lock.json", "{}\n")
    repo.write("yarn.lock", "# lock\n")
    repo.write("server.log", "log\n")
    return repo


async def block(path: Path, **config: Any) -> str:
    return await StatusContextHook(parse_config({"working_dir": str(path), **config})).block()


def status_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Status ("))
    end = next(i for i, line in enumerate(lines) if line.startswith("Recent commits"))
    return lines[start + 1 : end]


def test_defaults() -> None:
    config = parse_config(None)
    assert config == StatusContextConfig()
    assert config.hidden_patterns() == DEFAULT_HIDDEN_PATHS
    assert config.capped_patterns() == DEFAULT_CAPPED_PATHS
    assert tuple(config.refresh_after_tools) == DEFAULT_REFRESH_TOOLS
    assert {"node_modules", ".venv", "venv", "dist", "build", "__pycache__", "target"} <= set(
        DEFAULT_HIDDEN_PATHS
    )
    assert "vendor" in DEFAULT_HIDDEN_PATHS
    assert "*.lock" in DEFAULT_CAPPED_PATHS


# ---------------------------------------------------------------- where the block looks


async def test_working_dir_capability_wins_over_config_and_cwd(
    repo: Any, tmp_path: Path, make_coordinator: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.chdir(tmp_path)
    with_capability = StatusContextHook(
        parse_config({"working_dir": str(other)}), make_coordinator(working_dir=repo.path)
    )
    assert f"Working directory: {repo.path}\n" in await with_capability.block()

    from_config = StatusContextHook(parse_config({"working_dir": "other"}), make_coordinator())
    text = await from_config.block()
    assert f"Working directory: {other}\n" in text  # relative to the current directory
    assert "Git repository: no" in text

    monkeypatch.chdir(repo.path / "src")
    from_cwd = StatusContextHook(parse_config({}), make_coordinator())
    text = await from_cwd.block()
    assert f"Working directory: {repo.path / 'src'}\n" in text
    assert f"Git repository: yes, root {repo.path}" in text


async def test_working_dir_capability_may_be_a_path_object(
    repo: Any, make_coordinator: Any
) -> None:
    coordinator = make_coordinator()
    coordinator.register_capability("session.working_dir", repo.path)
    hook = StatusContextHook(parse_config({}), coordinator)
    assert f"Working directory: {repo.path}\n" in await hook.block()


async def test_priority(repo: Any, make_coordinator: Any) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    await mount(coordinator, {"priority": -7})
    chain = coordinator.hooks.handlers_for("provider:request")
    assert [(h.name, h.priority) for h in chain] == [(HANDLER_NAME, -7)]
    tool_chain = coordinator.hooks.handlers_for("tool:post")
    assert [h.priority for h in tool_chain] == [-7]


@pytest.mark.parametrize("role", ["system", "user", "assistant"])
async def test_injection_role(repo: Any, make_coordinator: Any, role: str) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    await mount(coordinator, {"injection_role": role})
    result = await coordinator.hooks.emit("provider:request", {})
    assert result.action == "inject_context"
    assert result.context_injection_role == role
    assert result.ephemeral is True


async def test_max_bytes_and_the_session_limit(busy: Any, make_coordinator: Any) -> None:
    full = await block(busy.path)
    assert len(full.encode()) > 600
    small = await block(busy.path, max_bytes=600)
    assert len(small.encode()) <= 600
    assert small.endswith("</system-reminder>")

    coordinator = make_coordinator(working_dir=busy.path)
    coordinator.injection_size_limit = 700  # the kernel's per-injection limit is lower
    hook = StatusContextHook(parse_config({}), coordinator)
    assert len((await hook.block()).encode()) <= 700


async def test_include_platform(repo: Any) -> None:
    assert "\nPlatform: " in await block(repo.path)
    assert "Platform:" not in await block(repo.path, include_platform=False)


async def test_include_datetime_is_the_date_only(repo: Any) -> None:
    text = await block(repo.path)
    (line,) = [line for line in text.splitlines() if line.startswith("Today's date:")]
    assert re.fullmatch(r"Today's date: \d{4}-\d{2}-\d{2}", line)
    assert line.endswith(time.strftime("%Y-%m-%d"))
    assert "Today's date" not in await block(repo.path, include_datetime=False)


async def test_datetime_include_timezone(repo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        text = await block(repo.path, datetime_include_timezone=True)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert re.search(r"Today's date: \d{4}-\d{2}-\d{2} \(UTC, UTC\+00:00\)\n", text)


async def test_include_session(repo: Any, make_coordinator: Any) -> None:
    child = make_coordinator(working_dir=repo.path, session_id="child-1", parent_id="root-1")
    text = await StatusContextHook(parse_config({"include_session": True}), child).block()
    assert "Session: child-1 (a sub-session of root-1)\n" in text
    root = make_coordinator(working_dir=repo.path, session_id="root-1")
    text = await StatusContextHook(parse_config({"include_session": True}), root).block()
    assert "Session: root-1\n" in text
    assert "Session:" not in await StatusContextHook(parse_config({}), root).block()


# ---------------------------------------------------------------- git


async def test_include_git_off_runs_no_git(
    repo: Any, counting_git: Any, make_coordinator: Any
) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    await mount(coordinator, {"include_git": False, "git_path": str(counting_git.path)})
    result = await coordinator.hooks.emit("provider:request", {})
    assert result.context_injection is not None
    assert "Git" not in result.context_injection
    assert f"Working directory: {repo.path}" in result.context_injection
    assert counting_git.calls == []
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": []}


async def test_git_path(repo: Any, counting_git: Any) -> None:
    text = await block(repo.path, git_path=str(counting_git.path))
    assert "Current branch: main" in text
    assert len(counting_git.calls) == 4


async def test_git_timeout(repo: Any, tmp_path: Path, make_script: Any) -> None:
    slow = make_script(tmp_path / "slow-git", "exec sleep 5\n")
    text = await block(repo.path, git_path=str(slow), git_timeout=0.2)
    assert "Git: failed (git rev-parse: no answer within 0.2 s)" in text


async def test_git_include_branch(repo: Any) -> None:
    assert "Current branch: main" in await block(repo.path)
    text = await block(repo.path, git_include_branch=False)
    assert "Current branch" not in text
    assert "Status: clean" in text


async def test_git_include_main_branch(repo: Any) -> None:
    assert "Main branch: main" in await block(repo.path)
    assert "Main branch" not in await block(repo.path, git_include_main_branch=False)


async def test_git_include_status(busy: Any, counting_git: Any) -> None:
    text = await block(busy.path, git_include_status=False, git_path=str(counting_git.path))
    assert "Status" not in text
    assert "Current branch: main" in text
    (status_call,) = [call for call in counting_git.calls if " status " in call]
    assert "--untracked-files=no" in status_call
    quiet = await block(
        busy.path, git_include_status=False, git_include_branch=False, git_include_commits=0
    )
    assert "Current branch" not in quiet
    assert "Status" not in quiet


async def test_git_include_commits(busy: Any) -> None:
    text = await block(busy.path, git_include_commits=2)
    lines = text.splitlines()
    start = lines.index("Recent commits:")
    assert [line.split(" ", 1)[1] for line in lines[start + 1 : -1]] == ["modules", "commit 4"]
    assert len((await block(busy.path)).splitlines()) - len(lines) == 3  # default 5
    assert "Recent commits" not in await block(busy.path, git_include_commits=0)


async def test_git_status_include_untracked(busy: Any) -> None:
    assert "?? new0.txt" in await block(busy.path)
    text = await block(busy.path, git_status_include_untracked=False)
    assert "??" not in text
    assert " M src/mod0.py" in text


async def test_git_status_max_tracked(busy: Any) -> None:
    lines = status_lines(await block(busy.path, git_status_max_tracked=1))
    assert lines[:2] == [" M src/mod0.py", "... and 3 more changed files"]
    lines = status_lines(await block(busy.path, git_status_max_tracked=0))
    assert lines[0] == "... and 4 more changed files"


async def test_git_status_max_untracked(busy: Any) -> None:
    lines = status_lines(await block(busy.path, git_status_max_untracked=2))
    assert lines[4:7] == ["?? generated/", "?? new0.txt", "... and 2 more untracked files"]


async def test_git_status_max_lines(busy: Any) -> None:
    lines = status_lines(await block(busy.path, git_status_max_lines=3))
    assert len(lines) == 3
    assert lines[0] == " M src/mod0.py"
    assert lines[1] == "... and 10 more entries"  # 12 entries: 1 shown, 1 hidden
    assert lines[2].startswith("(1 entry in vendored or build folders not shown: node_modules")


async def test_git_status_enable_path_filtering(busy: Any) -> None:
    assert "?? node_modules/" not in status_lines(await block(busy.path))
    lines = status_lines(await block(busy.path, git_status_enable_path_filtering=False))
    assert "?? node_modules/" in lines
    assert "?? yarn.lock" in lines
    assert "?? server.log" in lines
    assert not any("vendored" in line for line in lines)


async def test_git_status_hidden_paths_replace_the_defaults(busy: Any) -> None:
    lines = status_lines(await block(busy.path, git_status_hidden_paths=["generated"]))
    assert "?? node_modules/" in lines
    assert "?? generated/" not in lines
    assert lines[-1] == "(1 entry in vendored or build folders not shown: generated)"


async def test_git_status_tier1_patterns_extend(busy: Any) -> None:
    lines = status_lines(await block(busy.path, git_status_tier1_patterns_extend=["generated/**"]))
    assert "?? generated/" not in lines
    assert "?? node_modules/" not in lines
    assert lines[-1] == (
        "(2 entries in vendored or build folders not shown: generated, node_modules)"
    )


async def test_git_status_capped_paths_replace_the_defaults(busy: Any) -> None:
    lines = status_lines(
        await block(busy.path, git_status_capped_paths=["new*.txt"], git_status_tier2_limit=1)
    )
    assert "?? new0.txt" in lines
    assert "?? new1.txt" not in lines
    assert "... and 2 more lock, log and editor files" in lines
    assert "?? yarn.lock" in lines
    assert "?? server.log" in lines


async def test_git_status_tier2_patterns_extend(busy: Any) -> None:
    lines = status_lines(
        await block(busy.path, git_status_tier2_patterns_extend=["*.txt"], git_status_tier2_limit=2)
    )
    assert lines[4:] == [
        "?? generated/",
        "?? new0.txt",
        "?? new1.txt",
        "... and 4 more lock, log and editor files",
        "(1 entry in vendored or build folders not shown: node_modules)",
    ]


async def test_git_status_tier2_limit(busy: Any) -> None:
    lines = status_lines(await block(busy.path))  # default 5: all four shown
    assert {"?? package-lock.json", "?? yarn.lock", "?? server.log"} <= set(lines)
    lines = status_lines(await block(busy.path, git_status_tier2_limit=1))
    assert "?? package-lock.json" in lines
    assert "?? yarn.lock" not in lines
    assert "... and 2 more lock, log and editor files" in lines


async def test_git_status_show_filter_summary(busy: Any) -> None:
    assert "vendored or build folders" in await block(busy.path)
    text = await block(busy.path, git_status_show_filter_summary=False)
    assert "vendored or build folders" not in text
    assert "node_modules" not in text


# ---------------------------------------------------------------- caching


async def test_cache(repo: Any, counting_git: Any) -> None:
    hook = StatusContextHook(
        parse_config(
            {"working_dir": str(repo.path), "git_path": str(counting_git.path), "cache": False}
        )
    )
    await hook.block()
    await hook.block()
    assert hook.snapshots_taken == 2
    assert len(counting_git.calls) == 8


async def test_refresh_interval(repo: Any) -> None:
    now = [0.0]
    hook = StatusContextHook(
        parse_config({"working_dir": str(repo.path), "refresh_interval": 5}),
        clock=lambda: now[0],
    )
    await hook.block()
    now[0] = 4.9
    await hook.block()
    now[0] = 5.0
    await hook.block()
    assert hook.snapshots_taken == 2


async def test_refresh_after_tools(repo: Any, make_coordinator: Any) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    await mount(coordinator, {"refresh_after_tools": ["deploy_*"]})
    first = await coordinator.hooks.emit("provider:request", {})
    repo.write("src/app.py", "edited in place\n")
    await coordinator.hooks.emit("tool:post", {"tool_name": "bash"})  # not listed any more
    second = await coordinator.hooks.emit("provider:request", {})
    assert second.context_injection == first.context_injection
    await coordinator.hooks.emit("tool:post", {"tool_name": "deploy_site"})
    third = await coordinator.hooks.emit("provider:request", {})
    assert third.context_injection is not None
    assert " M src/app.py" in third.context_injection

    none = make_coordinator(working_dir=repo.path)
    await mount(none, {"refresh_after_tools": []})
    assert none.hooks.list_handlers("tool:post") == {"tool:post": []}
    assert none.hooks.list_handlers("tool:error") == {"tool:error": []}


# ---------------------------------------------------------------- bad config


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"git_include_comits": 3},
            "git_include_comits: unknown key 'git_include_comits' (did you mean "
            "'git_include_commits'?); expected one of: working_dir, priority,",
        ),
        ({"git_timeout": 0}, "git_timeout: expected a number greater than 0, got int 0"),
        ({"git_timeout": "soon"}, "git_timeout: expected a number, got str 'soon'"),
        (
            {"git_include_commits": -1},
            "git_include_commits: expected a number at least 0, got int -1",
        ),
        (
            {"git_include_commits": 500},
            "git_include_commits: expected a number at most 50, got int 500",
        ),
        (
            {"git_status_max_lines": 0},
            "git_status_max_lines: expected a number at least 1, got int 0",
        ),
        (
            {"injection_role": "tool"},
            "injection_role: expected one of 'system', 'user' or 'assistant', got str 'tool'",
        ),
        ({"max_bytes": 100}, "max_bytes: expected a number at least 512, got int 100"),
        ({"refresh_interval": -1}, "refresh_interval: expected a number at least 0, got int -1"),
        ({"git_path": ""}, "git_path: expected a non-empty string, got str ''"),
        ({"working_dir": ""}, "working_dir: expected a non-empty string, got str ''"),
        (
            {"git_status_hidden_paths": "node_modules"},
            "git_status_hidden_paths: expected a list, got str 'node_modules'",
        ),
        ({"git_status_tier1_patterns_extend": [""]}, "entries must be non-empty patterns"),
        (
            {"refresh_after_tools": [" "]},
            "refresh_after_tools: refresh_after_tools entries must be non-empty patterns",
        ),
        ({"include_git": "perhaps"}, "include_git: expected true or false, got str 'perhaps'"),
        ({"priority": "high"}, "priority: expected an integer, got str 'high'"),
    ],
)
async def test_bad_config_is_rejected_clearly(
    make_coordinator: Any, config: dict[str, Any], message: str
) -> None:
    coordinator = make_coordinator()
    with pytest.raises(ValueError, match=r"^hooks-status-context: config: ") as caught:
        await mount(coordinator, config)
    assert message in str(caught.value)
    assert coordinator.hooks.list_handlers() == {}


async def test_config_that_is_not_a_mapping(make_coordinator: Any) -> None:
    with pytest.raises(ValueError) as caught:
        await mount(make_coordinator(), ["git_timeout", 1])  # type: ignore[arg-type]
    assert str(caught.value) == (
        "hooks-status-context: config: expected a mapping of keys, got a list"
    )


async def test_cleanup_unregisters_everything(repo: Any, make_coordinator: Any) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    cleanup = await mount(coordinator, {})
    assert coordinator.hooks.list_handlers() == {
        "provider:request": [HANDLER_NAME],
        "tool:post": [f"{HANDLER_NAME}.tool_post"],
        "tool:error": [f"{HANDLER_NAME}.tool_error"],
    }
    cleanup()
    cleanup()
    assert coordinator.hooks.list_handlers() == {}
    result = await coordinator.hooks.emit("provider:request", {})
    assert result.action == "continue"
