"""Modules a bundle names that are not installed: one message, their ids, one pip command."""

from __future__ import annotations

import asyncio
import importlib.metadata
import re
import tomllib
from pathlib import Path

from amplifier_hooks_cli.missing import (
    MissingModules,
    known_distributions,
    missing_modules,
    module_extras,
)

from amplifier_core.loader import ModuleLoader

ROOT = Path(__file__).resolve().parents[2]
EMPTY_GROUP = "amplifier.modules.test-missing-none"
"""An entry-point group nothing provides: the loader never reads the machine's modules."""


def test_every_reference_hook_module_is_known_and_in_the_all_extra() -> None:
    known = known_distributions()
    extra = {
        r.split(";")[0].strip()
        for r in importlib.metadata.requires("amplifier-hooks") or []
        if re.search(r"extra\s*==\s*[\"']all[\"']", r)
    }
    hook_modules = sorted(ROOT.glob("modules/hooks-*/pyproject.toml"))
    assert hook_modules
    for pyproject in hook_modules:
        name = tomllib.loads(pyproject.read_text())["project"]["name"]
        assert known[pyproject.parent.name] == name
        assert name in extra, f"{name} is not in amplifier-hooks[all]"
    assert "hooks-template" not in known  # copied, never installed
    names = {tomllib.loads(p.read_text())["project"]["name"] for p in hook_modules}
    assert module_extras()["all"] == names
    assert known["loop-session"] == "amplifier-module-loop-session"  # a plain requirement


def test_a_distribution_that_is_not_installed_knows_nothing() -> None:
    assert known_distributions("amplifier-hooks-test-no-such-distribution") == {}
    assert module_extras("amplifier-hooks-test-no-such-distribution") == {}


def _failures(entries: list[dict[str, str]], tmp_path: Path) -> ModuleLoader:
    loader = ModuleLoader(strict=False, group=EMPTY_GROUP)
    asyncio.run(loader.mount_all(entries, base_dir=tmp_path))
    return loader


def test_missing_modules_are_one_sentence_with_one_pip_command(tmp_path: Path) -> None:
    hooks = [
        {"module": "hooks-nowhere-a"},
        {"module": "hooks-nowhere-b", "source": "git+https://example.invalid/hooks-b.git@v1"},
        {"module": "hooks-nowhere-c", "source": "./no-such-directory"},
        {"module": "hooks-nowhere-d"},
        {"module": "hooks-nowhere-e", "source": "git@example.invalid:team/hooks-e.git"},
    ]
    loader = _failures(hooks, tmp_path)
    assert [f.module_id for f in loader.failures] == [h["module"] for h in hooks]
    plan = {"session": {}, "providers": [], "tools": [], "hooks": hooks}
    known = {"hooks-nowhere-a": "amplifier-module-hooks-nowhere-a"}
    missing = missing_modules(loader.failures, plan, known)
    assert missing.ids == (
        "hooks-nowhere-a",
        "hooks-nowhere-b",
        "hooks-nowhere-d",
        "hooks-nowhere-e",
    )
    assert missing.requirements == (
        "amplifier-module-hooks-nowhere-a",
        "git+https://example.invalid/hooks-b.git@v1",
        "git+ssh://git@example.invalid/team/hooks-e.git",
    )
    assert missing.unknown == ("hooks-nowhere-d",)
    assert missing.message() == (
        "4 modules of the bundle are not installed: hooks-nowhere-a, hooks-nowhere-b, "
        "hooks-nowhere-d, hooks-nowhere-e; install them with `pip install "
        "amplifier-module-hooks-nowhere-a git+https://example.invalid/hooks-b.git@v1 "
        "git+ssh://git@example.invalid/team/hooks-e.git`; no distribution is known for "
        "hooks-nowhere-d: install the one that provides its entry point in group "
        "'amplifier.modules', or give the module a source"
    )


def test_one_missing_module_and_a_shared_distribution(tmp_path: Path) -> None:
    entries = [{"module": "hooks-nowhere-a"}, {"module": "hooks-nowhere-f"}]
    loader = _failures(entries, tmp_path)
    plan = {"session": {"orchestrator": entries[0]}, "hooks": entries[1:]}
    shared = "amplifier-hooks-test-bundle[all]"
    missing = missing_modules(
        loader.failures, plan, {"hooks-nowhere-a": shared, "hooks-nowhere-f": shared}
    )
    assert missing.requirements == (shared,)
    assert missing.pip_command == "pip install 'amplifier-hooks-test-bundle[all]'"
    single = missing_modules(loader.failures[:1], plan, {"hooks-nowhere-a": shared})
    assert single.message() == (
        "module hooks-nowhere-a of the bundle is not installed; install it with "
        "`pip install 'amplifier-hooks-test-bundle[all]'`"
    )


def test_a_module_the_plan_does_not_name_or_a_wrong_local_source_is_not_missing(
    tmp_path: Path,
) -> None:
    entries = [{"module": "hooks-nowhere-a"}, {"module": "hooks-nowhere-c", "source": "./gone"}]
    loader = _failures(entries, tmp_path)
    missing = missing_modules(loader.failures, {"hooks": entries[1:]}, {})
    assert missing == MissingModules((), (), ())
    assert not missing
    assert missing.pip_command is None


def test_two_or_more_modules_of_one_extra_are_installed_by_the_extra(tmp_path: Path) -> None:
    entries = [
        {"module": "hooks-nowhere-a"},
        {"module": "hooks-nowhere-b", "source": "git+https://example.invalid/hooks-b.git"},
        {"module": "hooks-nowhere-f"},
        {"module": "hooks-nowhere-g"},
    ]
    loader = _failures(entries, tmp_path)
    known = {
        m: f"amplifier-module-{m}"
        for m in ("hooks-nowhere-a", "hooks-nowhere-f", "hooks-nowhere-g")
    }
    extras = {
        "all": {"amplifier-module-hooks-nowhere-a", "amplifier-module-hooks-nowhere-f"},
        "other": {"amplifier-module-hooks-nowhere-g"},
    }
    missing = missing_modules(loader.failures, {"hooks": entries}, known, extras)
    assert missing.message() == (
        "4 modules of the bundle are not installed: hooks-nowhere-a, hooks-nowhere-b, "
        "hooks-nowhere-f, hooks-nowhere-g; install them with `pip install 'amplifier-hooks[all]' "
        "git+https://example.invalid/hooks-b.git amplifier-module-hooks-nowhere-g`"
    )
    alone = missing_modules(loader.failures[:1], {"hooks": entries}, known, extras)
    assert alone.pip_command == "pip install amplifier-module-hooks-nowhere-a"
