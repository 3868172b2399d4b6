"""A host with its own loop mounts modules on a coordinator with ``mount_modules``, as the
README shows: real module packages in directories (``source:``), never the machine's
installed entry points."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import amplifier_core
from amplifier_core import HookResult, ModuleLoadError, mount_modules

MODULE = textwrap.dedent(
    """
    import json
    from pathlib import Path

    from amplifier_core import HookResult

    LOG = Path({log!r})


    def _note(line):
        with LOG.open("a") as f:
            f.write(json.dumps(line) + "\\n")


    async def mount(coordinator, config):
        _note(["mount", {name!r}, config])

        async def handler(event, data):
            if "reason" in config:
                return HookResult(action="deny", reason=config["reason"])
            return None

        unregister = coordinator.hooks.register("tool:pre", handler, name={name!r})

        def cleanup():
            unregister()
            _note(["cleanup", {name!r}])

        return cleanup


    async def on_session_ready(coordinator):
        _note(["ready", {name!r}])
    """
)


def _module(root: Path, module_id: str, log: Path, *, broken: bool = False) -> Path:
    package = root / module_id / f"amplifier_module_{module_id.replace('-', '_')}"
    package.mkdir(parents=True)
    text = MODULE.format(log=str(log), name=module_id)
    if broken:
        text = text.replace('_note(["mount"', 'raise RuntimeError("no database"); _note(["mount"')
    (package / "__init__.py").write_text(text, encoding="utf-8")
    return package.parent


def _lines(log: Path) -> list[list[object]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_mount_modules_is_public() -> None:
    assert "mount_modules" in amplifier_core.__all__
    assert "mount_modules" in dir(amplifier_core)


async def test_a_host_mounts_two_hook_modules_and_emits(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    first = _module(tmp_path, "hooks-embed-first", log)
    second = _module(tmp_path, "hooks-embed-second", log)
    modules = [
        {"module": "hooks-embed-first", "source": str(first)},
        {"module": "hooks-embed-second", "source": str(second), "config": {"reason": "no"}},
    ]
    async with mount_modules(modules) as coordinator:
        assert coordinator.hooks.list_handlers("tool:pre") == {
            "tool:pre": ["hooks-embed-first", "hooks-embed-second"]
        }
        result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
        assert isinstance(result, HookResult)
        assert (result.action, result.reason) == ("deny", "no")
    assert _lines(log) == [
        ["mount", "hooks-embed-first", {}],
        ["mount", "hooks-embed-second", {"reason": "no"}],
        ["ready", "hooks-embed-first"],
        ["ready", "hooks-embed-second"],
        ["cleanup", "hooks-embed-second"],
        ["cleanup", "hooks-embed-first"],
    ]
    assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": []}


async def test_a_module_that_fails_stops_the_host_and_unmounts_the_others(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    good = _module(tmp_path, "hooks-embed-good", log)
    bad = _module(tmp_path, "hooks-embed-bad", log, broken=True)
    modules = [
        {"module": "hooks-embed-good", "source": str(good)},
        {"module": "hooks-embed-bad", "source": str(bad)},
    ]
    with pytest.raises(ModuleLoadError) as raised:
        async with mount_modules(modules):
            pytest.fail("the block must not run when a module failed")
    assert raised.value.module_id == "hooks-embed-bad"
    assert "RuntimeError: no database" in str(raised.value)
    assert _lines(log) == [["mount", "hooks-embed-good", {}], ["cleanup", "hooks-embed-good"]]


async def test_an_optional_module_that_fails_is_skipped_and_reported(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    good = _module(tmp_path, "hooks-embed-kept", log)
    bad = _module(tmp_path, "hooks-embed-optional", log, broken=True)
    modules = [
        {"module": "hooks-embed-optional", "source": str(bad), "optional": True},
        {"module": "hooks-embed-kept", "source": str(good)},
    ]
    async with mount_modules(modules) as coordinator:
        assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": ["hooks-embed-kept"]}
        failures = coordinator.loader.failures
        assert [f.module_id for f in failures] == ["hooks-embed-optional"]


async def test_a_wrong_entry_names_its_index() -> None:
    with pytest.raises(ValueError, match=r"modules\[1\]\.config \(hooks-x\): expected a mapping"):
        async with mount_modules(["hooks-y", {"module": "hooks-x", "config": "yes"}]):
            pass


async def test_a_denied_module_is_left_out_as_in_a_bundle_session(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    kept = _module(tmp_path, "hooks-embed-allowed", log)
    denied = _module(tmp_path, "hooks-embed-denied", log)
    modules = [
        {"module": "hooks-embed-denied", "source": str(denied)},
        {"module": "hooks-embed-allowed", "source": str(kept)},
    ]
    async with mount_modules(modules, deny="hooks-embed-den*") as coordinator:
        assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": ["hooks-embed-allowed"]}
        (failure,) = coordinator.loader.failures
        assert "denied by the deny list" in failure.message
