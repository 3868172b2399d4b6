"""The loader as amplifier-core 2.0.2's clients call it: ``await loader.discover()`` gives a
list of :class:`ModuleInfo`, a module the ``module-source-resolver`` maps to a directory is
validated before it mounts, a mount returning something that is not a cleanup is ignored at
debug level. Real distributions on disk, real module directories, a real session."""

from __future__ import annotations

import logging
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import AmplifierSession
from amplifier_core.hooks import HookRegistry
from amplifier_core.loader import ModuleLoader, ModuleValidationError, module_type_of
from amplifier_core.models import HookResult, ModuleInfo

# -- discover() ---------------------------------------------------------------------------


@pytest.fixture
def tag() -> str:
    return uuid.uuid4().hex[:10]


@pytest.fixture(autouse=True)
def _forget_test_packages() -> Any:
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(("amp_", "amplifier_module_t")):
            del sys.modules[name]


def _distribution(site: Path, group: str, ids: list[str], marker: Path) -> None:
    info = site / "amp_dist-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: amp-dist\nVersion: 4.5.6\n")
    lines = "".join(f"{module_id} = amp_pkg:mount\n" for module_id in ids)
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}")
    (site / "amp_pkg").mkdir()
    (site / "amp_pkg" / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('x')\n")


async def test_discover_lists_module_info_as_2_0_2_fills_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: str
) -> None:
    group = f"amplifier.modules.test-{tag}"
    marker = tmp_path / "imported"
    ids = ["hooks-logging", "provider-mock", "loop-basic", "context-simple", "tool-bash", "odd"]
    _distribution(tmp_path / "site", group, ids, marker)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delenv("AMPLIFIER_MODULES", raising=False)

    found = await ModuleLoader(group=group).discover()

    assert all(isinstance(info, ModuleInfo) for info in found)
    by_id = {info.id: info for info in found}
    assert sorted(by_id) == sorted(ids)
    logging_info = by_id["hooks-logging"]
    assert logging_info.model_dump() == {
        "id": "hooks-logging",
        "name": "Hooks Logging",
        "version": "1.0.0",
        "type": "hook",
        "mount_point": "hooks",
        "description": "Module: hooks-logging",
        "config_schema": None,
    }
    kinds = {i: (by_id[i].type, by_id[i].mount_point) for i in ids}
    assert kinds == {
        "hooks-logging": ("hook", "hooks"),
        "provider-mock": ("provider", "providers"),
        "loop-basic": ("orchestrator", "orchestrator"),
        "context-simple": ("context", "context"),
        "tool-bash": ("tool", "tools"),
        "odd": ("tool", "tools"),
    }
    assert not marker.exists(), "discover() imported a module"


async def test_discover_lists_module_directories_of_its_search_paths(
    tmp_path: Path, tag: str
) -> None:
    declared = tmp_path / "amplifier-module-thing" / f"amplifier_module_t{tag}"
    declared.mkdir(parents=True)
    (declared / "__init__.py").write_text(
        '__amplifier_module_type__ = "context"\nasync def mount(c, config): pass\n'
    )
    (tmp_path / "amplifier-module-hooks-x").mkdir()
    (tmp_path / "not-a-module").mkdir()

    found = await ModuleLoader(search_paths=[tmp_path], group=f"none-{tag}").discover()

    assert [(i.id, i.type, i.mount_point) for i in found] == [
        ("hooks-x", "hook", "hooks"),
        ("thing", "context", "context"),
    ]


def test_the_type_is_read_from_the_id_in_2_0_2_order() -> None:
    assert module_type_of("loop-streaming") == "orchestrator"
    assert module_type_of("orchestrator-x") == "orchestrator"
    assert module_type_of("provider-tool") == "provider"  # the first keyword in 2.0.2's order
    assert module_type_of("hooks-context-x") == "hook"
    assert module_type_of("Context-Simple") == "context"
    assert module_type_of("memory") == "tool"


def test_discover_specs_keeps_the_distribution_for_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: str
) -> None:
    group = f"amplifier.modules.test-{tag}"
    _distribution(tmp_path / "site", group, ["hooks-a"], tmp_path / "m")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))

    specs = ModuleLoader(group=group).discover_specs()

    assert (specs["hooks-a"].distribution, specs["hooks-a"].version) == ("amp-dist", "4.5.6")


# -- validation of a module the source resolver maps to a directory -------------------

NOT_A_PROVIDER = """
    class Half:
        name = "half"

        async def complete(self, request, **kwargs):
            return None

        def parse_tool_calls(self, response):
            return []


    async def mount(coordinator, config):
        await coordinator.mount("providers", Half(), name="half")
"""

A_TOOL = """
    class Echo:
        name = "echo"
        description = "says it back"
        input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

        async def execute(self, arguments):
            return arguments


    async def mount(coordinator, config):
        await coordinator.mount("tools", Echo(), name="echo")
        return {"mounted": ["echo"]}
"""


def _module_dir(root: Path, module_id: str, package: str, code: str) -> Path:
    where = root / f"amplifier-module-{module_id}"
    (where / package).mkdir(parents=True)
    (where / package / "__init__.py").write_text(textwrap.dedent(code))
    return where


class _Source:
    def __init__(self, path: Path) -> None:
        self.path = path

    def resolve(self) -> Path:
        return self.path

    def __str__(self) -> str:
        return str(self.path)


class _Resolver:
    """What amplifier-foundation mounts at ``module-source-resolver``: id -> directory."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths

    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> Any:
        from amplifier_core.module_sources import ModuleNotFoundError

        if module_id not in self.paths:
            raise ModuleNotFoundError(f"Module '{module_id}' not found in prepared bundle")
        return _Source(self.paths[module_id])


async def _session(tmp_path: Path, tag: str, hooks: HookRegistry | None = None) -> Any:
    context = _module_dir(
        tmp_path,
        "context-t",
        f"amplifier_module_t{tag}_ctx",
        """
        class Ctx:
            async def add_message(self, message): pass
            async def get_messages_for_request(self, request=None, provider=None): return []
            async def get_messages(self): return []
            async def set_messages(self, messages): pass
            async def clear(self): pass

        async def mount(coordinator, config):
            await coordinator.mount("context", Ctx())
        """,
    )
    loop = _module_dir(
        tmp_path,
        "loop-t",
        f"amplifier_module_t{tag}_loop",
        """
        class Loop:
            async def execute(self, prompt, context, providers, tools, hooks, **kwargs):
                return "done"

        async def mount(coordinator, config):
            await coordinator.mount("orchestrator", Loop())
        """,
    )
    provider = _module_dir(tmp_path, "provider-t", f"amplifier_module_t{tag}_prov", NOT_A_PROVIDER)
    tool = _module_dir(tmp_path, "tool-t", f"amplifier_module_t{tag}_tool", A_TOOL)
    plan = {
        "session": {"orchestrator": "loop-t", "context": "context-t"},
        "providers": [{"module": "provider-t", "source": "git+https://example.invalid/p"}],
        "tools": [{"module": "tool-t", "source": "git+https://example.invalid/t"}],
    }
    session = AmplifierSession(plan)
    resolver = _Resolver(
        {"loop-t": loop, "context-t": context, "provider-t": provider, "tool-t": tool}
    )
    await session.coordinator.mount("module-source-resolver", resolver)
    return session


async def test_a_module_from_a_resolved_directory_is_validated_before_it_mounts(
    tmp_path: Path, tag: str
) -> None:
    session = await _session(tmp_path, tag)
    failures: list[dict[str, Any]] = []

    async def record(event: str, data: dict[str, Any]) -> HookResult:
        failures.append(data)
        return HookResult()

    session.coordinator.hooks.register("module:load_failed", record, name="recorder")
    await session.initialize()
    try:
        assert session.coordinator.get("providers") == {}
        assert sorted(session.coordinator.get("tools")) == ["echo"]
        [failure] = failures
        assert failure["module_id"] == "provider-t"
        assert failure["error_type"] == "ModuleValidationError"
        assert failure["error"] == (
            "Module 'provider-t' failed validation: FAILED: 3/4 checks passed (1 errors, "
            "0 warnings). Errors: protocol_compliance: Provider 'half' does not implement "
            "Provider interface (missing name, get_info, list_models, complete, or "
            "parse_tool_calls)"
        )
    finally:
        await session.cleanup()


async def test_load_refuses_an_invalid_resolved_module_with_module_validation_error(
    tmp_path: Path, tag: str
) -> None:
    session = await _session(tmp_path, tag)
    loader = ModuleLoader(session.coordinator)

    with pytest.raises(ModuleValidationError, match="Module 'provider-t' failed validation") as e:
        await loader.load("provider-t", {}, source_hint="git+https://example.invalid/p")

    assert e.value.reason_code == "validation_failed"
    mount = await loader.load("tool-t", {}, source_hint="git+https://example.invalid/t")
    assert await mount(session.coordinator) == {"mounted": ["echo"]}
    assert "echo" in session.coordinator.get("tools")


async def test_a_module_the_resolver_does_not_know_comes_from_its_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: str
) -> None:
    group = f"amplifier.modules.test-{tag}"
    site = tmp_path / "site"
    info = site / "amp_known-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: amp-known\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\nhooks-known = amp_known_{tag}:mount\n")
    (site / f"amp_known_{tag}.py").write_text(
        "async def mount(coordinator, config):\n    coordinator.known = dict(config)\n"
    )
    monkeypatch.syspath_prepend(str(site))
    session = await _session(tmp_path, tag)
    loader = ModuleLoader(session.coordinator, group=group)

    mounted = await loader.mount("hooks-known", {"a": 1})

    assert mounted is not None
    assert mounted.spec.distribution == "amp-known"
    assert session.coordinator.known == {"a": 1}
    await loader.cleanup()


async def test_a_mount_returning_a_non_callable_is_ignored_at_debug_level(
    tmp_path: Path, tag: str, caplog: pytest.LogCaptureFixture
) -> None:
    session = await _session(tmp_path, tag)
    with caplog.at_level(logging.DEBUG, logger="amplifier_core.loader"):
        await session.initialize()
    try:
        said = [r for r in caplog.records if "not a cleanup callable" in r.getMessage()]
        assert [(r.levelno, r.getMessage()) for r in said] == [
            (
                logging.DEBUG,
                "mount() of module 'tool-t' returned a dict, not a cleanup callable; it is ignored",
            )
        ]
    finally:
        await session.cleanup()
