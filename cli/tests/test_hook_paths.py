"""Observe mode holds on every path that runs a hook (the paths are listed once, in
:mod:`amplifier_hooks_testsupport.hook_paths`): enforced, each path's guard denies the call;
observed, the call goes on and the guard's would-have decision is a ``hook:observed`` event."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_bundle import load_bundle
from amplifier_hooks_cli.main import main
from amplifier_hooks_testsupport.hook_paths import (
    BASH_CALL,
    DRIVERS,
    HOOK_PATHS,
    SCRIPT,
    HookPath,
)
from click.testing import CliRunner, Result

WIDE: dict[str, str | None] = {
    "COLUMNS": "200",
    **dict.fromkeys(
        ("AMPLIFIER_MODULES_ALLOW", "AMPLIFIER_MODULES_DENY", "AMPLIFIER_MODULES_STRICT")
    ),
}


@dataclass
class Seen:
    """What one drive of a path showed: whether the call was denied, the ``hook:observed``
    events, and what the command printed."""

    denied: bool
    observed: list[dict[str, Any]] = field(default_factory=list)
    output: str = ""


@dataclass
class Case:
    path: HookPath
    root: Path
    observe: bool

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def log(self) -> Path:
        return self.root / "log.jsonl"

    def bundle(self, *, guard: bool = True) -> Path:
        """The bundle: the scripted model, bash, hooks-logging and (with ``guard``) the
        path's guard, observed or enforced."""
        scratch = self.root / "declared"
        scratch.mkdir(exist_ok=True)
        self.workspace.mkdir(exist_ok=True)
        (self.root / "script.yaml").write_text(SCRIPT, encoding="utf-8")
        hooks = [_entry("hooks-logging", {"path": str(self.log)})]
        if guard:
            written = self.path.declaration.write(self.workspace, scratch)
            hooks += written.observed_entries if self.observe else written.entries
        bundle = {
            "bundle": {"name": "paths"},
            "providers": [_entry("provider-scripted", {"script": "script.yaml"})],
            "tools": [_entry("tool-bash")],
            "hooks": hooks,
        }
        path = self.root / ("bundle.yaml" if guard else "unguarded.yaml")
        path.write_text(json.dumps(bundle), encoding="utf-8")
        return path

    def logged(self, event: str) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        records = [json.loads(line) for line in self.log.read_text("utf-8").splitlines()]
        return [r["data"] for r in records if r["event"] == event]


def _entry(module: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    package = "amplifier_module_" + module.replace("-", "_")
    return {"module": module, "source": f"{package}:mount", "config": config or {}}


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env=WIDE, catch_exceptions=False)


def _kernel(case: Case) -> Seen:
    """The bundle's hooks mounted on a coordinator, the call emitted through its registry."""
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.loader import ModuleLoader

    bundle = load_bundle(case.bundle())

    async def drive() -> Seen:
        coordinator = ModuleCoordinator(config={"session": {"working_dir": str(case.workspace)}})
        coordinator.register_capability("session.working_dir", str(case.workspace))
        observed: list[dict[str, Any]] = []
        coordinator.hooks.register(
            "hook:observed", lambda _e, data: observed.append(dict(data)), name="paths"
        )
        loader = ModuleLoader(coordinator)
        await loader.mount_all(bundle.hooks, base_dir=bundle.base_dir)
        try:
            result = await coordinator.hooks.emit("tool:pre", dict(BASH_CALL))
        finally:
            await loader.cleanup()
        return Seen(result.action == "deny", observed)

    return asyncio.run(drive())


def _session(case: Case, *more: str) -> Seen:
    (case.workspace / "scratch").mkdir(parents=True, exist_ok=True)
    bundle = case.bundle()
    done = _invoke(
        "run", "--bundle", str(bundle), "--workspace", str(case.workspace), "--deny",
        "--prompt", "clean out scratch", *more,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return Seen((case.workspace / "scratch").exists(), case.logged("hook:observed"), done.output)


def _emit(case: Case) -> Seen:
    bundle = case.bundle()
    case.workspace.mkdir(parents=True, exist_ok=True)
    done = _invoke(
        "emit", "tool:pre", "--bundle", str(bundle), "--data", json.dumps(BASH_CALL),
        "--workspace", str(case.workspace),
    )  # fmt: skip
    assert done.exit_code in (0, 3), done.output  # 3: a hook denied the event
    result = done.output[done.output.rindex("result") :]
    assert ('"deny"' in result) == (done.exit_code == 3), done.output
    return Seen(done.exit_code == 3, case.logged("hook:observed"), done.output)


def _replay(case: Case) -> Seen:
    """A session recorded without the guard, replayed through the bundle holding it."""
    (case.workspace / "scratch").mkdir(parents=True, exist_ok=True)
    recorded = _invoke(
        "run", "--bundle", str(case.bundle(guard=False)), "--workspace", str(case.workspace),
        "--deny", "--prompt", "clean out scratch",
    )  # fmt: skip
    assert recorded.exit_code == 0, recorded.output
    log = case.log.rename(case.root / "recorded.jsonl")
    done = _invoke("replay", str(log), "--bundle", str(case.bundle()), "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    [call] = [e for e in report["events"] if e["event"] == "tool:pre"]
    [outcome] = call["bundles"].values()
    observed = [{**seen, "event": call["event"]} for seen in outcome["observed"]]
    return Seen(outcome["outcome"] == "deny", observed, done.output)


RUN: dict[str, Callable[[Case], Seen]] = {
    "kernel": _kernel,
    "run": _session,
    "run-trace": lambda case: _session(case, "--trace"),
    "emit": _emit,
    "replay": _replay,
}


def test_every_driver_of_the_path_list_is_implemented() -> None:
    assert set(RUN) == set(DRIVERS)


@pytest.fixture(autouse=True)
def _trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's own hooks files run (a CI checkout trusts its project)."""
    monkeypatch.setenv("AMPLIFIER_TRUST_PROJECT", "1")


@pytest.mark.parametrize("path", HOOK_PATHS, ids=lambda path: path.id)
def test_an_enforced_guard_denies_on_every_path(path: HookPath, tmp_path: Path) -> None:
    seen = RUN[path.driver](Case(path, tmp_path, observe=False))
    assert seen.denied, seen.output
    assert seen.observed == []


@pytest.mark.parametrize("path", HOOK_PATHS, ids=lambda path: path.id)
def test_an_observed_guard_decides_nothing_and_says_what_it_would_have(
    path: HookPath, tmp_path: Path
) -> None:
    seen = RUN[path.driver](Case(path, tmp_path, observe=True))
    assert not seen.denied, seen.output
    assert seen.observed, f"no hook:observed on {path.id}:\n{seen.output}"
    assert {o["decision"] for o in seen.observed} == {"deny"}
    assert {o["event"] for o in seen.observed} == {"tool:pre"}
    if path.driver == "run-trace":  # the trace says what the guard would have done
        assert "would have denied on tool:pre, not applied" in seen.output
