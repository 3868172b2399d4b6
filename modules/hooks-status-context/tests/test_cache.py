"""The cached snapshot: identical bytes and no git while nothing changes; a new snapshot after
each kind of change the change detection watches, after writing tools, and after the TTL."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_status_context import StatusContextHook, mount, parse_config


def hook_for(repo: Any, git: Any, **config: Any) -> StatusContextHook:
    return StatusContextHook(
        parse_config({"working_dir": str(repo.path), "git_path": str(git.path), **config})
    )


async def test_no_change_gives_identical_bytes_without_running_git(
    repo: Any, counting_git: Any, make_coordinator: Any
) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    await mount(coordinator, {"git_path": str(counting_git.path)})
    first = await coordinator.hooks.emit("provider:request", {"messages": []})
    after_first = list(counting_git.calls)
    second = await coordinator.hooks.emit("provider:request", {"messages": []})
    third = await coordinator.hooks.emit("provider:request", {"messages": []})

    assert first.context_injection is not None
    assert first.context_injection.encode() == second.context_injection.encode()
    assert second.context_injection == third.context_injection
    commands = [call.split()[5] for call in after_first]  # after the fixed options
    assert commands[0] == "rev-parse"
    assert sorted(commands[1:]) == ["for-each-ref", "log", "status"]
    assert all(
        call.startswith("--no-optional-locks -c core.fsmonitor=false") for call in after_first
    )
    assert counting_git.calls == after_first, "the cached requests ran git"


async def test_looking_does_not_rewrite_the_index(repo: Any, counting_git: Any) -> None:
    index = repo.path / ".git" / "index"
    tracked = repo.path / "src" / "app.py"
    later = time.time() + 5
    os.utime(tracked, (later, later))  # stat data differs from the index: plain status rewrites
    before = index.stat().st_mtime_ns
    hook = hook_for(repo, counting_git)
    await hook.block()
    assert index.stat().st_mtime_ns == before
    await hook.block()
    assert hook.snapshots_taken == 1


async def calls_after(hook: StatusContextHook, git: Any) -> tuple[str, int]:
    before = len(git.calls)
    text = await hook.block()
    return text, len(git.calls) - before


async def test_each_watched_change_takes_a_new_snapshot(repo: Any, counting_git: Any) -> None:
    hook = hook_for(repo, counting_git)
    text, ran = await calls_after(hook, counting_git)
    assert ran == 4
    assert "Status: clean" in text

    repo.write("src/new_module.py", "x = 1\n")  # a new file below the top: not seen yet
    text, ran = await calls_after(hook, counting_git)
    assert ran == 0
    assert "Status: clean" in text

    repo.git("add", "src/new_module.py")  # .git/index changes
    text, ran = await calls_after(hook, counting_git)
    assert ran > 0
    assert "A  src/new_module.py" in text

    repo.git("commit", "-q", "-m", "third commit")  # HEAD's reflog and the branch ref change
    text, ran = await calls_after(hook, counting_git)
    assert ran > 0
    assert "third commit" in text
    assert "Status: clean" in text

    repo.git("checkout", "-q", "-b", "topic")  # .git/HEAD changes
    text, ran = await calls_after(hook, counting_git)
    assert ran > 0
    assert "Current branch: topic" in text

    repo.write("TODO.md", "- a\n")  # a new entry in the working directory itself
    text, ran = await calls_after(hook, counting_git)
    assert ran > 0
    assert "?? TODO.md" in text

    text_again, ran = await calls_after(hook, counting_git)
    assert ran == 0
    assert text_again == text
    assert hook.snapshots_taken == 5


async def test_an_edit_below_the_top_needs_a_writing_tool(repo: Any, counting_git: Any) -> None:
    hook = hook_for(repo, counting_git)
    await hook.block()
    repo.write("src/app.py", "edited in place\n")
    text, ran = await calls_after(hook, counting_git)
    assert ran == 0
    assert "Status: clean" in text

    await hook.on_tool_event("tool:post", {"tool_name": "read_file", "tool_input": {}})
    text, ran = await calls_after(hook, counting_git)
    assert ran == 0, "a tool that only reads must not refresh"

    await hook.on_tool_event("tool:post", {"tool_name": "bash", "tool_input": {}})
    text, ran = await calls_after(hook, counting_git)
    assert ran > 0
    assert " M src/app.py" in text

    repo.write("src/util.py", "edited too\n")
    await hook.on_tool_event("tool:error", {"tool": "Edit_File"})  # legacy key, any case
    text, ran = await calls_after(hook, counting_git)
    assert ran > 0
    assert " M src/util.py" in text


async def test_refresh_interval_takes_a_new_snapshot_without_a_change(
    repo: Any, counting_git: Any
) -> None:
    now = [1000.0]

    def hook_at(interval: float | None) -> StatusContextHook:
        config = {"working_dir": str(repo.path), "git_path": str(counting_git.path)}
        return StatusContextHook(
            parse_config({**config, "refresh_interval": interval}), clock=lambda: now[0]
        )

    every_minute, never, always = hook_at(60), hook_at(None), hook_at(0)
    for hook in (every_minute, never, always):
        await hook.block()
    now[0] += 59.9
    for hook in (every_minute, never, always):
        await hook.block()
    assert [h.snapshots_taken for h in (every_minute, never, always)] == [1, 1, 2]
    now[0] += 0.1
    for hook in (every_minute, never, always):
        await hook.block()
    assert [h.snapshots_taken for h in (every_minute, never, always)] == [2, 1, 3]
    now[0] += 1_000_000
    await never.block()
    assert never.snapshots_taken == 1


async def test_cache_off_runs_git_for_every_request(repo: Any, counting_git: Any) -> None:
    hook = hook_for(repo, counting_git, cache=False)
    first, ran_first = await calls_after(hook, counting_git)
    second, ran_second = await calls_after(hook, counting_git)
    assert ran_first == ran_second == 4
    assert first == second


async def test_a_new_date_renders_again_without_git(
    repo: Any, counting_git: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = hook_for(repo, counting_git)
    today = await hook.block()
    monkeypatch.setattr(hook, "today", lambda: "2099-12-31")
    tomorrow, ran = await calls_after(hook, counting_git)
    assert ran == 0
    assert "Today's date: 2099-12-31" in tomorrow
    assert tomorrow.replace("2099-12-31", time.strftime("%Y-%m-%d")) == today


async def test_concurrent_requests_share_one_snapshot(repo: Any, counting_git: Any) -> None:
    hook = hook_for(repo, counting_git)
    texts = await asyncio.gather(*(hook.block() for _ in range(5)))
    assert len(set(texts)) == 1
    assert hook.snapshots_taken == 1
    assert len(counting_git.calls) == 4


async def test_another_working_directory_takes_a_new_snapshot(
    repo: Any, counting_git: Any, tmp_path: Path, make_coordinator: Any
) -> None:
    coordinator = make_coordinator(working_dir=repo.path)
    hook = StatusContextHook(parse_config({"git_path": str(counting_git.path)}), coordinator)
    assert f"Working directory: {repo.path}\n" in await hook.block()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    coordinator.register_capability("session.working_dir", str(elsewhere))
    text = await hook.block()
    assert f"Working directory: {elsewhere}\n" in text
    assert "Git repository: no" in text
    assert hook.snapshots_taken == 2


async def test_outside_a_repository_the_snapshot_is_cached_too(
    tmp_path: Path, counting_git: Any
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    hook = StatusContextHook(
        parse_config({"working_dir": str(plain), "git_path": str(counting_git.path)})
    )
    await hook.block()
    await hook.block()
    assert len(counting_git.calls) == 1
    (plain / "file.txt").write_text("x")  # the directory changed: look again
    await hook.block()
    assert len(counting_git.calls) == 2


async def test_a_write_during_a_snapshot_or_a_cancelled_one_leaves_it_stale(
    repo: Any, tmp_path: Path, make_script: Any
) -> None:
    slow_flag = tmp_path / "slow"
    calls = tmp_path / "calls.log"
    git = make_script(
        tmp_path / "bin" / "git",
        f'echo "$*" >> "{calls}"\n'
        f'[ -e "{slow_flag}" ] && sleep 0.3\n'
        f'exec "{shutil.which("git")}" "$@"\n',
    )
    hook = StatusContextHook(parse_config({"working_dir": str(repo.path), "git_path": str(git)}))
    await hook.block()
    assert hook.snapshots_taken == 1

    slow_flag.touch()
    await hook.on_tool_event("tool:post", {"tool_name": "bash"})
    running = asyncio.create_task(hook.block())
    await asyncio.sleep(0.1)  # git is running for the new snapshot
    await hook.on_tool_event("tool:post", {"tool_name": "edit_file"})
    await running
    assert hook.snapshots_taken == 2
    slow_flag.unlink()
    await hook.block()
    assert hook.snapshots_taken == 3, "the write seen while git ran was forgotten"
    await hook.block()
    assert hook.snapshots_taken == 3

    slow_flag.touch()
    await hook.on_tool_event("tool:post", {"tool_name": "bash"})
    cancelled = asyncio.create_task(hook.block())
    await asyncio.sleep(0.1)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    slow_flag.unlink()
    repo.write("src/app.py", "edited\n")
    text = await hook.block()
    assert hook.snapshots_taken == 4, "a cancelled snapshot left the old one looking fresh"
    assert " M src/app.py" in text
