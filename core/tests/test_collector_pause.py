"""The cyclic garbage collector is paused while the loader imports a module, and only then.

A real module package on disk, imported and mounted by the real loader, records whether the
collector was on while it was imported and while it was mounted; pauses opened and closed in
any order (as on several threads) end with the collector as it was before the first.
"""

from __future__ import annotations

import gc
import sys
import textwrap
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amplifier_core.collector_pause import collector_paused
from amplifier_core.hooks import HookRegistry
from amplifier_core.loader import ModuleLoader

_PROBE = """
    import gc

    ON_AT_IMPORT = gc.isenabled()
    ON_AT_MOUNT = []

    async def mount(coordinator, config):
        ON_AT_MOUNT.append(gc.isenabled())
        if config.get("fail"):
            raise RuntimeError("refused")
"""

_BROKEN = """
    import gc

    ON_AT_IMPORT = gc.isenabled()
    raise ImportError("this module cannot be imported")
"""


class _Coordinator:
    def __init__(self) -> None:
        self.hooks = HookRegistry()
        self.config: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _package(tmp_path: Path, code: str) -> tuple[str, Path]:
    module_id = f"gcprobe-{uuid.uuid4().hex[:10]}"
    package = "amplifier_module_" + module_id.replace("-", "_")
    where = tmp_path / module_id
    (where / package).mkdir(parents=True)
    (where / package / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return module_id, where


async def test_a_module_is_imported_with_the_collector_paused_and_mounted_without(
    tmp_path: Path,
) -> None:
    module_id, where = _package(tmp_path, _PROBE)
    loader = ModuleLoader(_Coordinator())
    mounted = await loader.mount(module_id, {}, source=str(where))
    assert mounted is not None
    try:
        assert mounted.module.ON_AT_IMPORT is False
        assert mounted.module.ON_AT_MOUNT == [True]
        assert gc.isenabled()
    finally:
        await loader.cleanup()
        sys.modules.pop(mounted.module.__name__, None)


async def test_a_collector_turned_off_by_the_host_stays_off(tmp_path: Path) -> None:
    module_id, where = _package(tmp_path, _PROBE)
    loader = ModuleLoader(_Coordinator())
    gc.disable()
    mounted = await loader.mount(module_id, {}, source=str(where))
    assert mounted is not None
    try:
        assert not gc.isenabled()
        assert mounted.module.ON_AT_MOUNT == [False]
    finally:
        await loader.cleanup()
        sys.modules.pop(mounted.module.__name__, None)


async def test_an_import_that_fails_turns_the_collector_on_again(tmp_path: Path) -> None:
    module_id, where = _package(tmp_path, _BROKEN)
    loader = ModuleLoader(_Coordinator())
    assert await loader.mount(module_id, {}, source=str(where)) is None
    assert loader.failures[0].stage == "import"
    assert "this module cannot be imported" in loader.failures[0].cause
    assert gc.isenabled()


@given(
    was_on=st.booleans(),
    order=st.integers(min_value=1, max_value=6).flatmap(lambda n: st.permutations(list(range(n)))),
)
def test_pauses_ended_in_any_order_leave_the_collector_as_it_was(
    was_on: bool, order: list[int]
) -> None:
    if was_on:
        gc.enable()
    else:
        gc.disable()
    try:
        pauses: list[AbstractContextManager[None]] = [collector_paused() for _ in order]
        for pause in pauses:
            pause.__enter__()
            assert not gc.isenabled()
        for count, index in enumerate(order, start=1):
            pauses[index].__exit__(None, None, None)
            assert gc.isenabled() is (was_on and count == len(order))
    finally:
        gc.enable()
