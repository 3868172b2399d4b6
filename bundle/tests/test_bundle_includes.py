"""``includes:`` as Amplifier's bundles write them: paths, git URLs, ``name:path``, nested,
merged by foundation's rules, cycles refused with the file and line."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import re
import subprocess
import tarfile
import textwrap
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from amplifier_hooks_bundle import load_bundle
from amplifier_hooks_bundle.includes import CACHE_ENV

from amplifier_core.errors import BundleError

UPSTREAM = Path(__file__).resolve().parents[2] / ".." / "shared" / "upstream"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def git_repo(repo: Path) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "t")


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))


def test_nested_relative_includes_merge_as_foundation_does(tmp_path: Path) -> None:
    write(
        tmp_path / "behaviors" / "base.yaml",
        """
        bundle: {name: base}
        includes:
          - bundle: ./logging.yaml
        session:
          orchestrator: {module: loop-session, config: {max_iterations: 5}}
        tools:
          - module: tool-bash
            config: {timeout: 10, allowed: [ls]}
        hooks:
          - module: hooks-approval
            config: {require_approval: [bash]}
        """,
    )
    write(
        tmp_path / "behaviors" / "logging.yaml",
        """
        bundle: {name: logging-behavior}
        hooks:
          - module: hooks-logging
            source: ./hooks-logging
            config: {level: info}
        """,
    )
    top = write(
        tmp_path / "bundle.md",
        """
        ---
        bundle: {name: mine, version: 2.0.0}
        includes:
          - bundle: ./behaviors/base.yaml
        session:
          orchestrator: {config: {max_iterations: 9}}
        tools:
          - module: tool-todo
          - module: tool-bash
            config: {timeout: 30, allowed: [git]}
        hooks:
          - module: hooks-redaction
        ---
        You are mine.
        """,
    )
    bundle = load_bundle(top)
    assert bundle.name == "mine"
    assert bundle.bundle is not None
    assert bundle.bundle.version == "2.0.0"
    assert bundle.session.given() == {
        "orchestrator": {"module": "loop-session", "config": {"max_iterations": 9}}
    }
    assert [e.module for e in bundle.tools] == ["tool-bash", "tool-todo"]
    assert bundle.tools[0].config == {"timeout": 30, "allowed": ["ls", "git"]}
    assert [e.module for e in bundle.hooks] == [
        "hooks-logging",
        "hooks-approval",
        "hooks-redaction",
    ]
    assert bundle.hooks[0].source == str((tmp_path / "behaviors" / "hooks-logging").resolve())
    assert bundle.instruction == "You are mine."
    assert bundle.included_files == [
        str((tmp_path / "behaviors" / "logging.yaml").resolve()),
        str((tmp_path / "behaviors" / "base.yaml").resolve()),
    ]
    assert bundle.origins["tools.tool-bash"] == [
        f"{(tmp_path / 'behaviors' / 'base.yaml').resolve()}:7",
        f"{top.resolve()}:9",
    ]
    assert bundle.base_dir == tmp_path.resolve()


def test_a_file_without_includes_loads_as_before(tmp_path: Path) -> None:
    top = write(tmp_path / "b.yaml", "hooks:\n  - module: hooks-logging\n    source: ./x\n")
    bundle = load_bundle(top)
    assert bundle.hooks[0].source == "./x"
    assert bundle.included_files == []


def test_includes_false_reads_one_file(tmp_path: Path) -> None:
    top = write(tmp_path / "b.yaml", "includes:\n  - bundle: ./missing.yaml\n")
    assert load_bundle(top, includes=False).model_extra == {
        "includes": [{"bundle": "./missing.yaml"}]
    }


def test_a_git_include_at_a_ref_and_subdirectory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git_repo(repo)
    write(repo / "bundle.md", "---\nbundle: {name: upstream}\n---\n")
    write(
        repo / "behaviors" / "remote.yaml",
        """
        bundle: {name: remote}
        includes:
          - bundle: upstream:behaviors/extra
        hooks:
          - module: hooks-remote
            config: {version: one}
        """,
    )
    write(repo / "behaviors" / "extra.yaml", "hooks:\n  - module: hooks-extra\n")
    commit(repo, "one")
    git(repo, "tag", "v1")
    write(
        repo / "behaviors" / "remote.yaml",
        "hooks:\n  - module: hooks-remote\n    config: {version: two}\n",
    )
    commit(repo, "two")
    top = write(
        tmp_path / "work" / "bundle.yaml",
        f"""
        includes:
          - bundle: git+{repo.as_uri()}@v1#subdirectory=behaviors/remote.yaml
          - git+{repo.as_uri()}#subdirectory=behaviors/remote
        hooks:
          - module: hooks-local
        """,
    )
    bundle = load_bundle(top)
    assert [e.module for e in bundle.hooks] == [
        "hooks-extra",
        "hooks-remote",
        "hooks-local",
    ]
    assert bundle.hooks[1].config == {"version": "two"}  # the later include (main) wins
    cached = list((tmp_path / "cache" / "bundles").iterdir())
    assert len(cached) == 2
    assert all(p.name.startswith("repo-") for p in cached)


def test_name_path_into_a_bundle_already_included(tmp_path: Path) -> None:
    write(tmp_path / "lib" / "bundle.yaml", "bundle: {name: lib}\ntools:\n  - module: tool-a\n")
    write(tmp_path / "lib" / "behaviors" / "b.yaml", "tools:\n  - module: tool-b\n")
    top = write(
        tmp_path / "top.yaml",
        """
        bundle: {name: top}
        includes:
          - bundle: ./lib
          - bundle: lib:behaviors/b
        """,
    )
    assert [e.module for e in load_bundle(top).tools] == ["tool-a", "tool-b"]


def test_a_cycle_is_refused_with_file_and_line(tmp_path: Path) -> None:
    a = write(tmp_path / "a.yaml", "includes:\n  - bundle: ./b.yaml\n")
    b = write(tmp_path / "b.yaml", "hooks: []\nincludes:\n  - bundle: ./a.yaml\n")
    with pytest.raises(BundleError) as caught:
        load_bundle(a)
    err = caught.value
    assert err.file == str(b.resolve())
    assert err.line == 3
    assert err.key_path == "includes[0].bundle"
    assert "include cycle" in str(err)
    assert f"{a.resolve()} -> {b.resolve()} -> {a.resolve()}" in str(err)


def test_a_bundle_including_itself_is_a_cycle(tmp_path: Path) -> None:
    a = write(tmp_path / "a.yaml", "includes:\n  - ./a.yaml\n")
    with pytest.raises(BundleError, match=r"a\.yaml:2: includes\[0\]: include cycle"):
        load_bundle(a)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "- bundle: ./nope.yaml",
            r"top\.yaml:3: includes\[0\]\.bundle: './nope.yaml': no bundle at",
        ),
        (
            "- bundle: nowhere",
            r"top\.yaml:3: includes\[0\]\.bundle: 'nowhere': no bundle named 'nowhere'",
        ),
        ("- bundle: other:behaviors/x", r"no bundle named 'other' is loaded here \(known: top\)"),
        ("- {path: x}", r"top\.yaml:3: includes\[0\]: expected a 'bundle:' key"),
        ("- 3", r"top\.yaml:3: includes\[0\]: expected '- bundle: <path, URL or name>', got int"),
        ("- bundle: hg+https://example.invalid/repo", r"only git\+, http\(s\), zip\+ URLs"),
    ],
)
def test_an_include_that_cannot_be_found_is_located(
    tmp_path: Path, entry: str, message: str
) -> None:
    top = write(tmp_path / "top.yaml", f"bundle: {{name: top}}\nincludes:\n  {entry}\n")
    with pytest.raises(BundleError, match=message):
        load_bundle(top)


def test_a_git_include_that_cannot_be_cloned_is_located(tmp_path: Path) -> None:
    missing = (tmp_path / "no-repo").as_uri()
    top = write(tmp_path / "top.yaml", f"includes:\n  - bundle: git+{missing}@main\n")
    with pytest.raises(
        BundleError, match=r"top\.yaml:2: includes\[0\]\.bundle: .*git clone failed"
    ):
        load_bundle(top)


def test_an_invalid_included_file_names_it_and_its_includer(tmp_path: Path) -> None:
    write(tmp_path / "bad.yaml", "hooks:\n  - module: x\n    config: verbose\n")
    top = write(tmp_path / "top.yaml", "includes:\n  - ./bad.yaml\n")
    with pytest.raises(BundleError) as caught:
        load_bundle(top)
    text = str(caught.value)
    assert "bad.yaml:3: hooks[0].config: expected a mapping" in text
    assert f"this file is included from {top.resolve()}:2" in text


def _foundation_merge() -> Any:
    archive = UPSTREAM / "amplifier-foundation.tar.gz"
    if not archive.is_file():
        pytest.skip(f"{archive} is absent: the comparison with foundation's merge needs it")
    return archive


def test_merge_matches_foundation_merge_module_lists(tmp_path: Path) -> None:
    """The same three bundles composed by foundation's own merge functions, in foundation's
    order (includes first, the including bundle last), give the same module lists."""
    archive = _foundation_merge()
    member = "amplifier-foundation/amplifier_foundation/dicts/merge.py"
    with tarfile.open(archive) as tar:
        source = tar.extractfile(member)
        assert source is not None
        (tmp_path / "merge.py").write_bytes(source.read())
    spec = importlib.util.spec_from_file_location("foundation_merge", tmp_path / "merge.py")
    assert spec is not None
    assert spec.loader is not None
    foundation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(foundation)

    import yaml

    inner = {"hooks": [{"module": "h1", "config": {"a": [1], "b": {"x": 1}}}, {"module": "h2"}]}
    middle = {
        "includes": ["./inner.yaml"],
        "hooks": [{"module": "h3"}, {"module": "h1", "config": {"a": [2], "b": {"y": 2}}}],
        "session": {"orchestrator": {"module": "o", "config": {"n": 1, "l": [1]}}},
    }
    top = {
        "includes": ["./middle.yaml"],
        "hooks": [{"module": "h2", "config": {"c": 3}}, {"module": "h4"}],
        "session": {"orchestrator": {"config": {"n": 2, "l": [2]}}},
    }
    for name, data in (("inner", inner), ("middle", middle), ("top", top)):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(data))
    ours = load_bundle(tmp_path / "top.yaml")

    def strip(data: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in data.items() if k != "includes"}

    hooks = foundation.merge_module_lists(
        foundation.merge_module_lists(inner["hooks"], middle["hooks"]), top["hooks"]
    )
    session = foundation.deep_merge(strip(middle)["session"], top["session"])
    assert [e.model_dump(exclude_defaults=True) for e in ours.hooks] == hooks
    assert ours.session.given() == session


def test_a_bundle_included_twice_is_not_a_cycle(tmp_path: Path) -> None:
    write(tmp_path / "common.yaml", "hooks:\n  - module: hooks-common\n    config: {n: [1]}\n")
    write(tmp_path / "left.yaml", "includes: [./common.yaml]\nhooks:\n  - module: hooks-left\n")
    write(tmp_path / "right.yaml", "includes: [./common.yaml]\nhooks:\n  - module: hooks-right\n")
    top = write(tmp_path / "top.yaml", "includes: [./left.yaml, ./right.yaml]\n")
    bundle = load_bundle(top)
    assert [e.module for e in bundle.hooks] == ["hooks-common", "hooks-left", "hooks-right"]
    assert bundle.hooks[0].config == {"n": [1]}


def test_file_urls_and_directories_are_includes(tmp_path: Path) -> None:
    write(tmp_path / "lib" / "bundle.md", "---\ntools:\n  - module: tool-a\n---\nfrom lib\n")
    write(tmp_path / "lib" / "more" / "x.yml", "tools:\n  - module: tool-b\n")
    top = write(
        tmp_path / "work" / "top.yaml",
        f"includes:\n  - {(tmp_path / 'lib').as_uri()}\n  - bundle: ../lib/more/x\n",
    )
    bundle = load_bundle(top)
    assert [e.module for e in bundle.tools] == ["tool-a", "tool-b"]
    assert bundle.instruction == "from lib"


def test_a_branch_is_fetched_again_a_tag_is_not(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git_repo(repo)
    write(repo / "b.yaml", "hooks:\n  - module: hooks-one\n")
    commit(repo, "one")
    git(repo, "tag", "v1")
    top = write(
        tmp_path / "top.yaml",
        f"includes:\n  - git+{repo.as_uri()}@main#subdirectory=b.yaml\n"
        f"  - git+{repo.as_uri()}@v1#subdirectory=b.yaml\n",
    )
    assert [e.module for e in load_bundle(top).hooks] == ["hooks-one"]
    write(repo / "b.yaml", "hooks:\n  - module: hooks-two\n")
    commit(repo, "two")
    assert [e.module for e in load_bundle(top).hooks] == ["hooks-two", "hooks-one"]


def test_foundations_own_behaviors_compose_as_foundation_composes_them(tmp_path: Path) -> None:
    """A user's bundle written for Amplifier: foundation's behaviour files, included from a git
    repository of foundation's own files (made in the test from the upstream archive), with
    ``foundation:behaviors/...`` references into it, nested, and one override."""
    archive = UPSTREAM / "amplifier-foundation.tar.gz"
    if not archive.is_file():
        pytest.skip(f"{archive} is absent: this test reads foundation's own bundle files")
    repo = tmp_path / "amplifier-foundation"
    with tarfile.open(archive) as tar:
        wanted = [
            m
            for m in tar.getmembers()
            if m.isfile()
            and (
                m.name == "amplifier-foundation/bundle.md"
                or m.name.startswith("amplifier-foundation/behaviors/")
                or m.name == "amplifier-foundation/amplifier_foundation/dicts/merge.py"
            )
        ]
        tar.extractall(tmp_path, members=wanted, filter="data")
    merge_py = repo / "amplifier_foundation" / "dicts" / "merge.py"
    spec = importlib.util.spec_from_file_location("foundation_merge", merge_py)
    assert spec is not None
    assert spec.loader is not None
    foundation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(foundation)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "t")
    commit(repo, "foundation's files")

    url = f"git+{repo.as_uri()}@main"
    top = write(
        tmp_path / "app" / "bundle.md",
        f"""
        ---
        bundle:
          name: my-app
        includes:
          - bundle: {url}#subdirectory=behaviors/sessions.yaml
          - bundle: foundation:behaviors/todo-reminder
          - bundle: foundation:behaviors/status-context
        hooks:
          - module: hooks-logging
            config: {{mode: all}}
        ---
        You are my app.
        """,
    )
    bundle = load_bundle(top)

    def behavior(name: str) -> dict[str, Any]:
        data = yaml.safe_load((repo / "behaviors" / f"{name}.yaml").read_text())
        assert isinstance(data, dict)
        return data

    # foundation's order: includes first (each with its own includes), the includer last
    layers = [
        behavior("logging"),
        behavior("sessions"),
        behavior("todo-reminder"),
        behavior("status-context"),
        {"hooks": [{"module": "hooks-logging", "config": {"mode": "all"}}]},
    ]
    for section in ("tools", "hooks"):
        expected: list[dict[str, Any]] = []
        for layer in layers:
            expected = foundation.merge_module_lists(expected, layer.get(section) or [])
        ours = [e.model_dump(exclude_defaults=True) for e in getattr(bundle, section)]
        assert ours == expected, section
    assert [e.module for e in bundle.hooks] == [
        "hooks-logging",
        "hooks-session-naming",
        "hooks-todo-reminder",
        "hooks-todo-display",
        "hooks-status-context",
    ]
    assert bundle.hooks[0].config["mode"] == "all"
    assert bundle.hooks[0].config["session_log_template"].endswith("events.jsonl")
    assert bundle.model_extra is not None
    assert bundle.model_extra["agents"] == {"include": ["foundation:session-analyst"]}
    assert bundle.instruction == "You are my app."


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback HTTP server of the directory ``tmp_path / "web"``: its base URL and root."""
    root = tmp_path / "web"
    root.mkdir()
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        thread.join(timeout=30)
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def make_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zipped:
        for name, text in members.items():
            zipped.writestr(name, text)
    return path


def test_http_files_and_zip_archives_are_includes(tmp_path: Path, web: tuple[str, Path]) -> None:
    base, root = web
    write(root / "one.yaml", "hooks:\n  - module: hooks-web\n")
    make_zip(
        root / "pack.zip",
        {"pack/behaviors/x.yaml": "hooks:\n  - module: hooks-zipped\n    config: {n: 1}\n"},
    )
    local = make_zip(
        tmp_path / "local.zip", {"behaviors/y.yaml": "hooks:\n  - module: hooks-local-zip\n"}
    )
    top = write(
        tmp_path / "top.yaml",
        f"""
        includes:
          - bundle: {base}/one.yaml
          - bundle: zip+{base}/pack.zip#subdirectory=pack/behaviors/x.yaml
          - bundle: zip+{local.as_uri()}#subdirectory=behaviors/y
        """,
    )
    bundle = load_bundle(top)
    assert [e.module for e in bundle.hooks] == ["hooks-web", "hooks-zipped", "hooks-local-zip"]
    (root / "one.yaml").unlink()  # the server no longer has it: the cached copy is used
    assert next(e.module for e in load_bundle(top).hooks) == "hooks-web"


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"../evil.yaml": "hooks: []\n"}, "unsafe member '../evil.yaml'"),
        ({"/abs.yaml": "hooks: []\n"}, "unsafe member '/abs.yaml'"),
    ],
)
def test_an_archive_that_would_write_outside_its_directory_is_refused(
    tmp_path: Path, members: dict[str, str], message: str
) -> None:
    archive = make_zip(tmp_path / "bad.zip", members)
    top = write(tmp_path / "top.yaml", f"includes:\n  - zip+{archive.as_uri()}\n")
    with pytest.raises(BundleError, match=rf"top\.yaml:2: includes\[0\]: .*{re.escape(message)}"):
        load_bundle(top)
    assert not list(tmp_path.rglob("evil.yaml"))


def test_an_unreachable_url_is_located(tmp_path: Path, web: tuple[str, Path]) -> None:
    base, _ = web
    top = write(tmp_path / "top.yaml", f"includes:\n  - bundle: {base}/missing.yaml\n")
    with pytest.raises(BundleError, match=r"top\.yaml:2: includes\[0\]\.bundle: .*cannot download"):
        load_bundle(top)
