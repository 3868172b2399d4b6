"""amplifier-core 2.0.2's way of mounting: ``loader.load()`` gives mount functions and
``initialize_session`` mounts a whole plan with them; and the names that go with it."""

from __future__ import annotations

import asyncio
import itertools
import textwrap
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import events
from amplifier_core._session_exec import run_orchestrator
from amplifier_core._session_init import initialize_session
from amplifier_core.loader import ModuleLoader
from amplifier_core.module_sources import FileSystemModuleSource, ModuleNotFoundError
from amplifier_core.testing import MockCoordinator

_ids = itertools.count()


def _package(root: Path, module_id: str, body: str) -> Path:
    package = root / ("amplifier_module_" + module_id.replace("-", "_"))
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(body))
    return root


ECHO_CONFIG = """
async def mount(coordinator, config):
    coordinator.register_capability("seen." + config.get("tag", "none"), dict(config))
    return None

async def on_session_ready(coordinator):
    coordinator.register_capability("ready", True)
"""


async def test_load_binds_each_config_to_a_fresh_mount_function(tmp_path: Path) -> None:
    module_id = f"echo-{next(_ids)}"
    root = _package(tmp_path, module_id, ECHO_CONFIG)
    loader = ModuleLoader()
    first = await loader.load(module_id, {"tag": "a"}, source_hint=str(root))
    second = await loader.load(module_id, {"tag": "b"})  # the resolution is kept
    assert first is not second
    coordinator = MockCoordinator()
    assert await first(coordinator) is None
    assert await second(coordinator) is None
    assert coordinator.get_capability("seen.a") == {"tag": "a"}
    assert coordinator.get_capability("seen.b") == {"tag": "b"}
    ready = getattr(first, "__on_session_ready__", None)
    assert ready is not None
    assert ready[0] == module_id
    assert loader.get_on_session_ready_queue() == []  # session initialisation queues it


async def test_an_unknown_module_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="Module 'no-such-module' not found"):
        await ModuleLoader().load("no-such-module")


def test_a_loader_without_coordinator_says_so_when_asked_to_mount() -> None:
    loader = ModuleLoader()
    with pytest.raises(RuntimeError, match="no coordinator"):
        _ = loader.coordinator
    assert loader._find_package_dir("x", Path("/nonexistent/for/sure")) is None


PROVIDER = """
class Provider:
    def __init__(self, config):
        self.config = config

async def mount(coordinator, config):
    await coordinator.mount("providers", Provider(config), name="{name}")
"""

ORCHESTRATOR = """
class Loop:
    async def execute(self, prompt, context, providers, tools, hooks, coordinator=None):
        return f"{prompt} via {sorted(providers)}"

async def mount(coordinator, config):
    await coordinator.mount("orchestrator", Loop())
"""

CONTEXT = """
class Memory:
    async def add_message(self, message):
        pass

async def mount(coordinator, config):
    await coordinator.mount("context", Memory())
"""

BROKEN_TOOL = """
async def mount(coordinator, config):
    raise RuntimeError("no API key")
"""


async def test_initialize_session_mounts_a_plan_with_instances(tmp_path: Path) -> None:
    n = next(_ids)
    ids = {k: f"{k}-{n}" for k in ("loop", "context", "provider-fake", "tool")}
    for key, body in (
        ("loop", ORCHESTRATOR),
        ("context", CONTEXT),
        ("provider-fake", PROVIDER.replace("{name}", f"fake-{n}")),
        ("tool", BROKEN_TOOL),
    ):
        _package(tmp_path / key, ids[key], body)
    source = {key: str(tmp_path / key) for key in ids}
    plan = {
        "session": {
            "orchestrator": {"module": ids["loop"], "source": source["loop"]},
            "context": {"module": ids["context"], "source": source["context"]},
        },
        "providers": [
            {"module": ids["provider-fake"], "source": source["provider-fake"]},
            {
                "module": ids["provider-fake"],
                "instance_id": "second",
                "config": {"model": "b"},
                "source": source["provider-fake"],
            },
        ],
        "tools": [{"module": ids["tool"], "source": source["tool"]}],
    }
    coordinator = MockCoordinator()
    failed: list[dict[str, Any]] = []

    async def on_failure(event: str, data: dict[str, Any]) -> None:
        failed.append(data)

    coordinator.hooks.register(events.MODULE_LOAD_FAILED, on_failure)
    await initialize_session(plan, coordinator, "s1", None)
    providers = coordinator.get("providers")
    assert sorted(providers) == sorted([f"fake-{n}", "second"])
    assert providers["second"].config == {"model": "b"}
    assert [f["module_id"] for f in failed] == [ids["tool"]]
    assert "no API key" in str(failed[0])
    answer = await run_orchestrator(coordinator, "hi")
    assert answer == f"hi via {sorted([f'fake-{n}', 'second'])}"


async def test_two_unnamed_instances_of_one_provider_are_refused() -> None:
    plan = {"providers": [{"module": "provider-x"}, {"module": "provider-x"}]}
    coordinator = MockCoordinator()

    class Loader:
        async def load(self, *args: Any, **kwargs: Any) -> Any:
            async def mount(coordinator: Any) -> None:
                return None

            return mount

        def get_on_session_ready_queue(self) -> list[Any]:
            return []

        def clear_on_session_ready_queue(self) -> None:
            return None

    coordinator.loader = Loader()
    with pytest.raises(ValueError, match="require explicit 'instance_id'"):
        await initialize_session(plan, coordinator, "s1", None)


async def test_a_missing_orchestrator_stops_initialisation() -> None:
    plan = {"session": {"orchestrator": "no-such-loop", "context": "no-such-context"}}
    with pytest.raises(RuntimeError, match="Cannot initialize without orchestrator"):
        await initialize_session(plan, MockCoordinator(), "s1", None)


def test_filesystem_source() -> None:
    source = FileSystemModuleSource(paths=["/nonexistent", "/"], mentions={"@a": "/a"})
    assert source.get_module_paths() == ["/nonexistent", "/"]
    assert source.get_mention_mappings() == {"@a": "/a"}
    assert source.resolve() == Path("/")
    with pytest.raises(ModuleNotFoundError):
        FileSystemModuleSource(paths=["/nonexistent"]).resolve()
    assert asyncio.iscoroutinefunction(run_orchestrator)


async def test_a_session_drives_a_loader_that_only_offers_load() -> None:
    """An application's own loader, written for 2.0.2, mounts the plan through load()."""
    from amplifier_core.session import AmplifierSession

    mounted: list[str] = []

    class AppLoader:
        async def load(
            self,
            module_id: str,
            config: Any = None,
            source_hint: Any = None,
            coordinator: Any = None,
        ) -> Any:
            async def mount(target: Any) -> None:
                mounted.append(module_id)
                if module_id == "loop":
                    await target.mount("orchestrator", object())
                elif module_id == "memory":
                    await target.mount("context", object())

            return mount

        def get_on_session_ready_queue(self) -> list[Any]:
            return []

        def clear_on_session_ready_queue(self) -> None:
            return None

    plan = {"session": {"orchestrator": "loop", "context": "memory"}, "tools": [{"module": "t"}]}
    session = AmplifierSession(plan, loader=AppLoader())  # type: ignore[arg-type]
    assert not session.initialized
    await session.initialize()
    await session.initialize()  # once
    assert session.initialized
    assert mounted == ["loop", "memory", "t"]


async def test_an_importable_package_mounts_without_an_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_id = f"plain-{next(_ids)}"
    root = _package(tmp_path, module_id, ECHO_CONFIG)
    monkeypatch.syspath_prepend(str(root))
    coordinator = MockCoordinator()
    loader = ModuleLoader(coordinator)
    assert await loader.mount(module_id, {"tag": "p"}) is not None
    assert coordinator.get_capability("seen.p") == {"tag": "p"}
    with pytest.raises(ValueError, match="denied"):
        await ModuleLoader(deny=[module_id]).load(module_id)
