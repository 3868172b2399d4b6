"""ModuleLoader: real entry-point metadata on disk, real imports, a real HookRegistry.

Every test writes its own tiny distributions (a ``*.dist-info`` directory with METADATA and
entry_points.txt, plus the package source) under ``tmp_path`` and puts that directory on
``sys.path``. Package names and entry-point groups are unique per test, so nothing installed
on the machine is ever seen or imported.
"""

from __future__ import annotations

import logging
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.errors import ModuleLoadError
from amplifier_core.hooks import HookRegistry
from amplifier_core.loader import DEFAULT_GROUP, ModuleLoader
from amplifier_core.models import HookResult
from amplifier_core.testing import create_test_coordinator

# -- a stand-in coordinator and an on-disk distribution builder -------------------------


class Coordinator:
    """The smallest thing a module's mount() needs: hooks, config and a trace to write to."""

    def __init__(self) -> None:
        self.hooks = HookRegistry()
        self.config: dict[str, Any] = {}
        self.trace: list[Any] = []


class Dists:
    """Writes real distributions into one ``sys.path`` directory, with unique names."""

    def __init__(self, root: Path, tag: str) -> None:
        self.root = root
        self.tag = tag
        self.group = f"amplifier.modules.test-{tag}"

    def pkg(self, name: str) -> str:
        return f"amp_{self.tag}_{name}"

    def add(
        self,
        dist: str,
        modules: dict[str, str],
        sources: dict[str, str],
        *,
        version: str = "1.2.3",
        group: str | None = None,
    ) -> None:
        """``modules``: entry-point name -> value; ``sources``: relative path -> code."""
        info = self.root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
        )
        lines = "".join(f"{name} = {value}\n" for name, value in modules.items())
        (info / "entry_points.txt").write_text(
            f"[{group or self.group}]\n{lines}", encoding="utf-8"
        )
        for rel, code in sources.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(code), encoding="utf-8")

    def module(self, module_id: str, code: str, *, dist: str | None = None) -> str:
        """One distribution with one module whose package is ``amp_<tag>_<id>``."""
        package = self.pkg(module_id.replace("-", "_"))
        self.add(
            dist or f"dist-{module_id}",
            {module_id: f"{package}:mount"},
            {f"{package}/__init__.py": code},
        )
        return package


@pytest.fixture
def dists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Dists:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    for name in ("AMPLIFIER_MODULES_STRICT", "AMPLIFIER_MODULES_ALLOW", "AMPLIFIER_MODULES_DENY"):
        monkeypatch.delenv(name, raising=False)
    return Dists(site, uuid.uuid4().hex[:10])


@pytest.fixture(autouse=True)
def _forget_test_packages() -> Any:
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("amp_"):
            del sys.modules[name]


@pytest.fixture
def coordinator() -> Coordinator:
    return Coordinator()


@pytest.fixture
def load_failures(coordinator: Coordinator) -> list[dict[str, Any]]:
    """Data of every ``module:load_failed`` seen by a real registered handler."""
    seen: list[dict[str, Any]] = []

    async def record(event: str, data: dict[str, Any]) -> HookResult:
        seen.append(data)
        return HookResult()

    coordinator.hooks.register("module:load_failed", record, name="test-recorder")
    return seen


def loader_for(coordinator: Coordinator, dists: Dists, **kwargs: Any) -> ModuleLoader:
    return ModuleLoader(coordinator, group=dists.group, **kwargs)


ASYNC_MODULE = """
    from amplifier_core.models import HookResult

    async def mount(coordinator, config):
        coordinator.trace.append(("mount", __name__, dict(config)))

        async def on_tool_pre(event, data):
            return HookResult(action="deny", reason="blocked by " + __name__)

        unregister = coordinator.hooks.register("tool:pre", on_tool_pre, name=__name__)

        async def cleanup():
            unregister()
            coordinator.trace.append(("cleanup", __name__))

        return cleanup
"""

SYNC_MODULE = """
    def mount(coordinator, config):
        coordinator.trace.append(("mount", __name__, dict(config)))

        def cleanup():
            coordinator.trace.append(("cleanup", __name__))

        return cleanup
"""


# -- discovery ------------------------------------------------------------------------


def test_discover_reads_installed_metadata_without_importing(
    dists: Dists, coordinator: Coordinator
) -> None:
    marker = dists.root / "imported.txt"
    package = dists.pkg("both")
    dists.add(
        "amplifier-module-both",
        {"hooks-one": f"{package}.one:mount", "hooks-two": f"{package}.two:mount"},
        {
            f"{package}/__init__.py": f"open({str(marker)!r}, 'a').write('imported')\n",
            f"{package}/one.py": "def mount(coordinator, config): pass\n",
            f"{package}/two.py": "def mount(coordinator, config): pass\n",
        },
        version="0.4.1",
        group=DEFAULT_GROUP,
    )

    specs = ModuleLoader(coordinator).discover_specs()

    one = specs["hooks-one"]
    assert (one.id, one.value, one.distribution, one.version) == (
        "hooks-one",
        f"{package}.one:mount",
        "amplifier-module-both",
        "0.4.1",
    )
    assert one.entry_point == f"hooks-one = {package}.one:mount"
    assert specs["hooks-two"].module_name == f"{package}.two"
    assert package not in sys.modules
    assert not marker.exists()


def test_discover_only_sees_its_own_group(dists: Dists, coordinator: Coordinator) -> None:
    dists.module("hooks-mine", SYNC_MODULE)
    dists.add(
        "other",
        {"hooks-elsewhere": "x:mount"},
        {},
        group=f"{dists.group}-other",
    )

    assert set(loader_for(coordinator, dists).discover_specs()) == {"hooks-mine"}


# -- mounting -------------------------------------------------------------------------


async def test_mount_imports_lazily_and_keeps_an_async_cleanup(
    dists: Dists, coordinator: Coordinator
) -> None:
    first = dists.module("hooks-first", ASYNC_MODULE)
    second = dists.module("hooks-second", ASYNC_MODULE)
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount("hooks-first", {"level": "debug"})

    assert mounted is not None
    assert mounted.id == "hooks-first"
    assert mounted.spec.distribution == "dist-hooks-first"
    assert mounted.config == {"level": "debug"}
    assert first in sys.modules
    assert second not in sys.modules
    assert coordinator.trace == [("mount", first, {"level": "debug"})]
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash"})
    assert result.action == "deny"
    assert result.reason == f"blocked by {first}"

    await loader.cleanup()

    assert coordinator.trace[-1] == ("cleanup", first)
    assert not any(coordinator.hooks.list_handlers("tool:pre").values())
    assert loader.mounted == ()
    assert loader.failures == []


async def test_sync_mount_with_sync_cleanup(dists: Dists, coordinator: Coordinator) -> None:
    package = dists.module("hooks-sync", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount("hooks-sync")
    await loader.cleanup()

    assert mounted is not None
    assert coordinator.trace == [("mount", package, {}), ("cleanup", package)]


async def test_mount_returning_none_has_no_cleanup(dists: Dists, coordinator: Coordinator) -> None:
    dists.module("hooks-none", "async def mount(coordinator, config):\n    return None\n")
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount("hooks-none")
    await loader.cleanup()

    assert mounted is not None
    assert mounted.cleanup is None
    assert loader.failures == []


async def test_cleanup_runs_in_reverse_order_and_survives_a_failing_cleanup(
    dists: Dists, coordinator: Coordinator
) -> None:
    failing = """
        async def mount(coordinator, config):
            coordinator.trace.append(("mount", __name__))

            async def cleanup():
                raise RuntimeError("cleanup exploded")

            return cleanup
    """
    a = dists.module("hooks-a", ASYNC_MODULE)
    dists.module("hooks-b", failing)
    c = dists.module("hooks-c", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    await loader.mount_all([{"module": "hooks-a"}, {"module": "hooks-b"}, {"module": "hooks-c"}])
    await loader.cleanup()

    cleanups = [step for step in coordinator.trace if step[0] == "cleanup"]
    assert cleanups == [("cleanup", c), ("cleanup", a)]
    assert [(f.module_id, f.stage, f.error_type) for f in loader.failures] == [
        ("hooks-b", "cleanup", "RuntimeError")
    ]
    assert "cleanup exploded" in loader.failures[0].message


async def test_mount_all_follows_bundle_order(dists: Dists, coordinator: Coordinator) -> None:
    packages = {name: dists.module(name, SYNC_MODULE) for name in ("hooks-x", "hooks-y", "hooks-z")}
    entries = [
        {"module": "hooks-z", "config": {"n": 1}},
        {"module": "hooks-x"},
        {"module": "hooks-y", "config": {"n": 3}},
    ]
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount_all(entries)

    assert [m.id for m in mounted] == ["hooks-z", "hooks-x", "hooks-y"]
    assert coordinator.trace == [
        ("mount", packages["hooks-z"], {"n": 1}),
        ("mount", packages["hooks-x"], {}),
        ("mount", packages["hooks-y"], {"n": 3}),
    ]


async def test_mount_of_an_already_mounted_module_is_a_resolve_failure(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    dists.module("hooks-once", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-once") is not None
    assert await loader.mount("hooks-once") is None

    assert load_failures[0]["stage"] == "resolve"
    assert "already mounted" in load_failures[0]["error"]
    assert len(coordinator.trace) == 1


# -- the failure policy, case by case -------------------------------------------------


async def test_missing_module_is_reported_once_and_the_session_goes_on(
    dists: Dists,
    coordinator: Coordinator,
    load_failures: list[dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    dists.module("hooks-logging", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    with caplog.at_level(logging.ERROR, logger="amplifier_core.loader"):
        mounted = await loader.mount_all([{"module": "hooks-loging"}, {"module": "hooks-logging"}])

    assert [m.id for m in mounted] == ["hooks-logging"]
    assert len(load_failures) == 1
    data = load_failures[0]
    assert data["module_id"] == "hooks-loging"
    assert data["stage"] == "resolve"
    assert data["entry_point"] is None
    assert f"no entry point named 'hooks-loging' in group '{dists.group}'" in data["error"]
    assert "did you mean 'hooks-logging'?" in data["error"]
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert errors[0] == loader.failures[0].message
    assert "module 'hooks-loging' could not be resolved" in errors[0]


async def test_broken_import_names_module_entry_point_distribution_and_line(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module(
        "hooks-broken",
        "import os\nimport amp_missing_dependency_for_test\n\ndef mount(c, cfg): pass\n",
        dist="amplifier-module-hooks-broken",
    )
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-broken") is None

    failure = loader.failures[0]
    init = dists.root / package / "__init__.py"
    assert failure.stage == "import"
    assert failure.error_type == "ModuleNotFoundError"
    assert failure.location == f"{init}:2"
    assert failure.entry_point == f"hooks-broken = {package}:mount"
    assert failure.distribution == "amplifier-module-hooks-broken 1.2.3"
    for part in (
        "module 'hooks-broken' failed to import",
        "ModuleNotFoundError: No module named 'amp_missing_dependency_for_test'",
        f"at {init}:2",
        f"entry point 'hooks-broken = {package}:mount'",
        "distribution amplifier-module-hooks-broken 1.2.3",
    ):
        assert part in failure.message
    assert len(load_failures) == 1
    expected = failure.event_data()
    assert {key: load_failures[0][key] for key in expected} == expected
    assert load_failures[0]["error_type"] == "ModuleNotFoundError"


async def test_syntax_error_reports_file_and_line(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module("hooks-syntax", "x = 1\n\ndef mount(coordinator, config)\n    pass\n")
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-syntax") is None

    data = load_failures[0]
    assert (data["stage"], data["error_type"]) == ("import", "SyntaxError")
    assert data["location"] == f"{dists.root / package / '__init__.py'}:3"
    assert data["location"] in data["message"]


async def test_exception_at_import_time_is_an_import_failure(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module(
        "hooks-raises", "CONFIG = {}\nTIMEOUT = CONFIG['timeout']\n\ndef mount(c, cfg): pass\n"
    )
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-raises") is None

    data = load_failures[0]
    assert (data["stage"], data["error_type"]) == ("import", "KeyError")
    assert data["error"] == "KeyError: 'timeout'"
    assert data["location"] == f"{dists.root / package / '__init__.py'}:2"


async def test_module_without_mount_is_an_import_failure(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module("hooks-nomount", "def setup(coordinator, config): pass\n")
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-nomount") is None

    data = load_failures[0]
    assert (data["stage"], data["error_type"]) == ("import", "AttributeError")
    assert f"{package!r} has no attribute 'mount'" in data["error"]
    assert "async def mount(coordinator, config)" in data["error"]


async def test_mount_that_is_not_callable_is_an_import_failure(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    dists.module("hooks-notcallable", "mount = {'not': 'a function'}\n")
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-notcallable") is None

    assert (load_failures[0]["stage"], load_failures[0]["error_type"]) == ("import", "TypeError")
    assert "is a dict, not a callable" in load_failures[0]["error"]


async def test_mount_raising_is_a_mount_failure_with_its_frame(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module(
        "hooks-badconfig",
        """\
        async def mount(coordinator, config):
            limit = config["limit"]
            if limit < 0:
                raise ValueError(f"limit must be >= 0, got {limit}")
        """,
    )
    dists.module("hooks-fine", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount_all(
        [{"module": "hooks-badconfig", "config": {"limit": -1}}, {"module": "hooks-fine"}]
    )

    assert [m.id for m in mounted] == ["hooks-fine"]
    data = load_failures[0]
    assert (data["module_id"], data["stage"]) == ("hooks-badconfig", "mount")
    assert data["error"] == "ValueError: limit must be >= 0, got -1"
    assert data["location"] == f"{dists.root / package / '__init__.py'}:4"
    assert data["entry_point"] == f"hooks-badconfig = {package}:mount"
    assert data["distribution"] == "dist-hooks-badconfig 1.2.3"


async def test_a_failing_load_failed_handler_does_not_break_loading(
    dists: Dists, coordinator: Coordinator
) -> None:
    def broken_listener(event: str, data: dict[str, Any]) -> HookResult:
        raise RuntimeError("listener bug")

    coordinator.hooks.register("module:load_failed", broken_listener)
    dists.module("hooks-ok", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount_all([{"module": "hooks-absent"}, {"module": "hooks-ok"}])

    assert [m.id for m in mounted] == ["hooks-ok"]
    assert [f.module_id for f in loader.failures] == ["hooks-absent"]


# -- strict mode ----------------------------------------------------------------------


async def test_strict_mode_raises_chained_from_the_original(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module(
        "hooks-strict", "async def mount(c, cfg):\n    raise OSError('no disk')\n"
    )
    loader = loader_for(coordinator, dists, strict=True)

    with pytest.raises(ModuleLoadError) as caught:
        await loader.mount("hooks-strict")

    err = caught.value
    assert isinstance(err.__cause__, OSError)
    assert str(err.__cause__) == "no disk"
    assert (err.module_id, err.stage, err.error_type) == ("hooks-strict", "mount", "OSError")
    assert err.entry_point == f"hooks-strict = {package}:mount"
    assert err.distribution == "dist-hooks-strict 1.2.3"
    assert "module 'hooks-strict' failed to mount: OSError: no disk" in str(err)
    assert load_failures[0]["module_id"] == "hooks-strict"


@pytest.mark.parametrize("value", ["1", "true", "YES"])
async def test_strict_mode_from_environment(
    dists: Dists, coordinator: Coordinator, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("AMPLIFIER_MODULES_STRICT", value)
    loader = loader_for(coordinator, dists)

    with pytest.raises(ModuleLoadError, match="no entry point named 'hooks-gone'") as caught:
        await loader.mount("hooks-gone")

    assert caught.value.stage == "resolve"
    assert caught.value.__cause__ is None


async def test_strict_false_overrides_environment(
    dists: Dists, coordinator: Coordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AMPLIFIER_MODULES_STRICT", "1")
    loader = loader_for(coordinator, dists, strict=False)

    assert await loader.mount("hooks-gone") is None
    assert loader.failures[0].stage == "resolve"


# -- allow and deny lists -------------------------------------------------------------


async def test_deny_env_filters_modules_before_import(
    dists: Dists,
    coordinator: Coordinator,
    load_failures: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    denied = dists.module("hooks-shell", SYNC_MODULE)
    kept = dists.module("hooks-log", SYNC_MODULE)
    monkeypatch.setenv("AMPLIFIER_MODULES_DENY", " hooks-sh* , other ")
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount_all([{"module": "hooks-shell"}, {"module": "hooks-log"}])

    assert [m.id for m in mounted] == ["hooks-log"]
    assert denied not in sys.modules
    assert kept in sys.modules
    data = load_failures[0]
    assert (data["module_id"], data["stage"]) == ("hooks-shell", "resolve")
    assert data["error"] == "denied by AMPLIFIER_MODULES_DENY (pattern 'hooks-sh*')"
    assert data["entry_point"] == f"hooks-shell = {denied}:mount"


async def test_allow_env_lets_only_listed_modules_through(
    dists: Dists,
    coordinator: Coordinator,
    load_failures: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("hooks-a", "hooks-b", "tool-c"):
        dists.module(name, SYNC_MODULE)
    monkeypatch.setenv("AMPLIFIER_MODULES_ALLOW", "hooks-*")
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount_all([{"module": n} for n in ("hooks-a", "tool-c", "hooks-b")])

    assert [m.id for m in mounted] == ["hooks-a", "hooks-b"]
    assert [d["module_id"] for d in load_failures] == ["tool-c"]
    assert load_failures[0]["error"].startswith("not in AMPLIFIER_MODULES_ALLOW")
    assert loader.is_allowed("hooks-zzz")
    assert not loader.is_allowed("tool-zzz")


async def test_deny_wins_over_allow(
    dists: Dists, coordinator: Coordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    dists.module("hooks-both", SYNC_MODULE)
    monkeypatch.setenv("AMPLIFIER_MODULES_ALLOW", "hooks-both")
    monkeypatch.setenv("AMPLIFIER_MODULES_DENY", "hooks-both")
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-both") is None
    assert loader.failures[0].cause.startswith("denied by AMPLIFIER_MODULES_DENY")


async def test_constructor_lists_override_environment(
    dists: Dists, coordinator: Coordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    dists.module("hooks-envdenied", SYNC_MODULE)
    dists.module("hooks-argdenied", SYNC_MODULE)
    monkeypatch.setenv("AMPLIFIER_MODULES_DENY", "hooks-envdenied")
    loader = loader_for(coordinator, dists, deny=["hooks-arg*"])

    assert await loader.mount("hooks-envdenied") is not None
    assert await loader.mount("hooks-argdenied") is None
    assert loader.failures[0].cause == "denied by the deny list (pattern 'hooks-arg*')"


# -- sources --------------------------------------------------------------------------


def _module_tree(base: Path, module_id: str, code: str, *, src_layout: bool) -> Path:
    package = "amplifier_module_" + module_id.replace("-", "_")
    where = base / module_id
    pkg_dir = (where / "src" if src_layout else where) / package
    pkg_dir.mkdir(parents=True)
    (pkg_dir / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return where


@pytest.mark.parametrize("src_layout", [True, False])
async def test_source_directory_is_imported_from_its_src_or_itself(
    tmp_path: Path, dists: Dists, coordinator: Coordinator, src_layout: bool
) -> None:
    module_id = f"amp-{dists.tag}-local"
    where = _module_tree(tmp_path, module_id, SYNC_MODULE, src_layout=src_layout)
    package = "amplifier_module_" + module_id.replace("-", "_")
    root = str(where / "src" if src_layout else where)
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount(module_id, {"k": 1}, source=str(where))

    assert mounted is not None
    assert mounted.spec.source == str(where)
    assert mounted.spec.path == root
    assert coordinator.trace == [("mount", package, {"k": 1})]
    assert root in sys.path
    await loader.cleanup()
    assert root not in sys.path
    assert coordinator.trace[-1] == ("cleanup", package)
    sys.modules.pop(package, None)


async def test_relative_source_resolves_against_the_bundle_directory(
    tmp_path: Path, dists: Dists, coordinator: Coordinator
) -> None:
    module_id = f"amp-{dists.tag}-rel"
    _module_tree(tmp_path / "modules", module_id, SYNC_MODULE, src_layout=True)
    entries = [{"module": module_id, "source": f"./modules/{module_id}"}]
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount_all(entries, base_dir=tmp_path)

    assert [m.id for m in mounted] == [module_id]
    await loader.cleanup()
    sys.modules.pop("amplifier_module_" + module_id.replace("-", "_"), None)


async def test_source_reference_package_module_attr(dists: Dists, coordinator: Coordinator) -> None:
    package = dists.pkg("ref")
    dists.add(
        "unused", {}, {f"{package}/hooks.py": "def install(c, cfg):\n    c.trace.append('ref')\n"}
    )
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount("hooks-ref", source=f"{package}.hooks:install")

    assert mounted is not None
    assert mounted.spec.value == f"{package}.hooks:install"
    assert coordinator.trace == ["ref"]


@pytest.mark.parametrize(
    ("source", "pip_target"),
    [
        (
            "git+https://github.com/org/amplifier-module-x@main",
            "git+https://github.com/org/amplifier-module-x@main",
        ),
        ("https://example.com/x.tar.gz", "https://example.com/x.tar.gz"),
        ("git@github.com:org/x.git", "git+ssh://git@github.com/org/x.git"),
    ],
)
async def test_remote_source_says_install_it_with_pip(
    dists: Dists,
    coordinator: Coordinator,
    load_failures: list[dict[str, Any]],
    source: str,
    pip_target: str,
) -> None:
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-remote", source=source) is None

    data = load_failures[0]
    assert data["stage"] == "resolve"
    assert "is remote" in data["error"]
    assert f"install it with pip: pip install {pip_target}" in data["error"]
    assert repr(source) in data["message"]


async def test_remote_source_uses_the_installed_entry_point_when_there_is_one(
    dists: Dists, coordinator: Coordinator, load_failures: list[dict[str, Any]]
) -> None:
    package = dists.module("hooks-installed", SYNC_MODULE)
    loader = loader_for(coordinator, dists)

    mounted = await loader.mount(
        "hooks-installed", source="git+https://github.com/org/amplifier-module-hooks-installed@main"
    )

    assert mounted is not None
    assert mounted.spec.distribution == "dist-hooks-installed"
    assert coordinator.trace == [("mount", package, {})]
    assert load_failures == []


async def test_source_directory_that_does_not_exist_or_lacks_the_package(
    tmp_path: Path, dists: Dists, coordinator: Coordinator
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    loader = loader_for(coordinator, dists)

    assert await loader.mount("hooks-x", source=str(tmp_path / "nowhere")) is None
    assert await loader.mount("hooks-x", source=str(empty)) is None

    first, second = loader.failures
    assert "does not exist" in first.cause
    assert "no package 'amplifier_module_hooks_x'" in second.cause
    assert str(empty / "src") in second.cause


# -- on_session_ready -----------------------------------------------------------------


async def test_on_session_ready_runs_after_everything_is_mounted(
    dists: Dists, coordinator: Coordinator
) -> None:
    ready = """
        async def mount(coordinator, config):
            coordinator.trace.append(("mount", __name__))

        async def on_session_ready(coordinator):
            coordinator.trace.append(("ready", __name__, len(coordinator.trace)))
    """
    a = dists.module("hooks-ra", ready)
    b = dists.module("hooks-rb", ready)
    loader = loader_for(coordinator, dists)

    await loader.mount_all([{"module": "hooks-ra"}, {"module": "hooks-rb"}])
    await loader.session_ready()
    await loader.session_ready()

    assert coordinator.trace == [("mount", a), ("mount", b), ("ready", a, 2), ("ready", b, 3)]


async def test_on_session_ready_in_the_entry_point_module(
    dists: Dists, coordinator: Coordinator
) -> None:
    package = dists.pkg("nested")
    dists.add(
        "nested",
        {"hooks-nested": f"{package}.impl:mount"},
        {
            f"{package}/__init__.py": "",
            f"{package}/impl.py": (
                "def mount(c, cfg): pass\n"
                "def on_session_ready(c):\n    c.trace.append('sync ready')\n"
            ),
        },
    )
    loader = loader_for(coordinator, dists)

    await loader.mount("hooks-nested")
    await loader.session_ready()

    assert coordinator.trace == ["sync ready"]


async def test_failing_on_session_ready_is_emitted_and_the_next_one_runs(
    dists: Dists, coordinator: Coordinator
) -> None:
    seen: list[dict[str, Any]] = []
    coordinator.hooks.register(
        "module:on_session_ready_failed", lambda event, data: seen.append(data)
    )
    broken = dists.module(
        "hooks-rbroken",
        """
        async def mount(coordinator, config):
            pass

        async def on_session_ready(coordinator):
            raise LookupError("capability 'todo' is missing")
        """,
    )
    dists.module(
        "hooks-rfine",
        "def mount(c, cfg): pass\nasync def on_session_ready(c):\n    c.trace.append('fine')\n",
    )
    loader = loader_for(coordinator, dists, strict=True)

    await loader.mount_all([{"module": "hooks-rbroken"}, {"module": "hooks-rfine"}])
    await loader.session_ready()

    assert coordinator.trace == ["fine"]
    assert len(seen) == 1
    data = seen[0]
    assert data["module_id"] == "hooks-rbroken"
    assert data["stage"] == "on_session_ready"
    assert data["error"] == "LookupError: capability 'todo' is missing"
    assert data["location"] == f"{dists.root / broken / '__init__.py'}:6"
    assert "on_session_ready() failed" in data["message"]
    assert loader.failures[0].stage == "on_session_ready"


# -- unmount --------------------------------------------------------------------------


async def test_unmount_runs_one_cleanup(dists: Dists, coordinator: Coordinator) -> None:
    a = dists.module("hooks-ua", SYNC_MODULE)
    b = dists.module("hooks-ub", SYNC_MODULE)
    loader = loader_for(coordinator, dists)
    await loader.mount_all([{"module": "hooks-ua"}, {"module": "hooks-ub"}])

    assert await loader.unmount("hooks-ua") is True
    assert await loader.unmount("hooks-ua") is False
    assert [m.id for m in loader.mounted] == ["hooks-ub"]
    await loader.cleanup()

    assert [s for s in coordinator.trace if s[0] == "cleanup"] == [("cleanup", a), ("cleanup", b)]


async def test_mapping_entry_without_module_is_a_clear_error(
    dists: Dists, coordinator: Coordinator
) -> None:
    loader = loader_for(coordinator, dists)
    with pytest.raises(ValueError, match=r"module entry #0 has no 'module' id"):
        await loader.mount_all([{"config": {}}])


async def test_config_schema_is_found_beside_mount_without_mounting(tmp_path: Path) -> None:
    package = tmp_path / "src" / "amplifier_module_hooks_schemad"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from pydantic import BaseModel\n"
        "class Config(BaseModel):\n    level: int = 1\n"
        "config_schema = Config\n"
        "MOUNTED = []\n"
        "def mount(coordinator, config):\n    MOUNTED.append(config)\n"
    )
    coordinator = create_test_coordinator()
    loader = ModuleLoader(coordinator)
    schema = loader.config_schema("hooks-schemad", str(tmp_path))
    assert schema is not None
    assert schema.__name__ == "Config"
    assert sys.modules["amplifier_module_hooks_schemad"].MOUNTED == []  # imported, not mounted
    await loader.cleanup()


def test_config_schema_of_a_module_that_cannot_load_names_the_cause(tmp_path: Path) -> None:
    loader = ModuleLoader(create_test_coordinator())
    with pytest.raises(ModuleLoadError, match=r"module 'hooks-nowhere': .*does not exist"):
        loader.config_schema("hooks-nowhere", str(tmp_path / "missing"))
