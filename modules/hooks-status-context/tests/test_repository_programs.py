"""Looking at a repository runs none of its programs: a clean filter, an fsmonitor or a diff
driver named in a tracked file the repository's config includes never runs when the status
block is built, while plain git outside the product runs them: ``git diff`` of the changed file
reads it through the clean filter and the diff driver whatever the clock says (``git status``
runs the filter only on files whose timestamps it cannot trust, which depends on timing)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from amplifier_module_hooks_status_context import StatusContextHook, parse_config


async def test_a_repository_filter_never_runs_when_status_is_read(
    repo: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    (repo.path / ".gitconfig").write_text(
        f'[filter "x"]\n\tclean = "touch {marker}; cat"\n'
        f'[diff "x"]\n\ttextconv = "touch {marker}; cat"\n'
        f'[core]\n\tpager = "touch {marker}; cat"\n'
    )
    include = ["git", "config", "include.path", "../.gitconfig"]
    subprocess.run(include, cwd=repo.path, check=True)  # noqa: ASYNC221
    (repo.path / ".gitattributes").write_text("* filter=x diff=x\n")
    tracked = next(p for p in sorted(repo.path.rglob("*.py")) if ".git" not in p.parts)
    tracked.write_text(tracked.read_text() + "# changed\n")
    hook = StatusContextHook(parse_config({"working_dir": str(repo.path)}))
    text = await hook.block()
    assert text is not None
    assert not marker.exists(), "reading the status ran the repository's filter"
    plain = ["git", "diff"]
    subprocess.run(plain, cwd=repo.path, check=True, capture_output=True)  # noqa: ASYNC221
    assert marker.exists(), "plain git diff runs the filter: else the test would be vacuous"
