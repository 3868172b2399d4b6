"""The code in the READMEs and docs is checked as written, so an example cannot rot:

- every ```python block compiles (top-level ``await`` allowed in examples);
- every ```yaml block that is a bundle, or a piece of one (top-level ``bundle``, ``session``,
  ``providers``, ``tools``, or ``hooks`` as a list of module entries), is read as a bundle and
  each module's config in it is checked against the module's ``config_schema``;
- every ```yaml block that is a hooks file (``hooks`` as a mapping of events) is read by
  hooks-declarative's parser, and every scripted-provider script by provider-scripted's;
- every ```json block parses.

Modules are looked up in the workspace's own packages by their package name, never through the
machine's installed entry points.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from amplifier_hooks_bundle import parse_bundle
from pydantic import ValidationError

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "core" / "README.md",
        ROOT / "cli" / "README.md",
        ROOT / "util" / "README.md",
        ROOT / "redact" / "README.md",
        *ROOT.glob("modules/*/README.md"),
        *ROOT.glob("docs/*.md"),
    ]
)
BUNDLE_KEYS = {"bundle", "session", "providers", "tools"}


def _blocks(language: str) -> Iterator[Any]:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(rf"```{language}\n(.*?)```", text, re.S):
            line = text.count("\n", 0, match.start()) + 2
            name = f"{doc.relative_to(ROOT)}:{line}"
            yield pytest.param(match.group(1), name, id=name)


def _is_bundle(data: object) -> bool:
    if not isinstance(data, Mapping):
        return False
    hooks = data.get("hooks")
    return bool(BUNDLE_KEYS & set(data)) or (
        isinstance(hooks, list) and all(isinstance(h, Mapping) and "module" in h for h in hooks)
    )


def _schema(module_id: str) -> Any:
    package = "amplifier_module_" + module_id.replace("-", "_")
    if module_id == "hooks-template":
        package = "amplifier_module_hooks_template"
    try:
        return getattr(importlib.import_module(package), "config_schema", None)
    except ImportError:
        return None


@pytest.mark.parametrize(("code", "where"), list(_blocks("python")))
def test_python_blocks_compile(code: str, where: str) -> None:
    compile(code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


@pytest.mark.parametrize(("text", "where"), list(_blocks("json")))
def test_json_blocks_parse(text: str, where: str) -> None:
    json.loads(text)


@pytest.mark.parametrize(("text", "where"), list(_blocks("yaml")))
def test_yaml_blocks_are_valid_bundles_or_hooks_files(text: str, where: str) -> None:
    data = yaml.safe_load(text)
    if _is_bundle(data):
        bundle = parse_bundle(text, where)
        problems: list[str] = []
        for section in ("hooks", "providers", "tools"):
            for index, entry in enumerate(getattr(bundle, section)):
                schema = _schema(entry.module)
                if schema is None:
                    continue
                try:
                    schema.model_validate(dict(entry.config))
                except ValidationError as err:
                    problems.append(f"{where}: {section}[{index}] ({entry.module}): {err}")
        assert problems == []
    elif isinstance(data, Mapping) and "policy" in data:  # a managed policy file
        from amplifier_module_hooks_declarative.managed import parse_policy

        document, _ = parse_policy(text, where)
        assert document.events, f"{where}: a managed policy with no event"
    elif isinstance(data, Mapping) and isinstance(data.get("hooks"), Mapping):
        from amplifier_module_hooks_declarative.parsing import parse_hooks_text

        document = parse_hooks_text(text, where)
        assert document.events, f"{where}: a hooks file with no event"
    elif isinstance(data, list) and "# session.yaml" in text:  # a scripted provider's script
        from amplifier_module_provider_scripted import load_script

        assert load_script(data).turns


PUBLISHED: frozenset[str] = frozenset({"amplifier-core==2.0.2", "nox", "pytest", "pytest-asyncio"})


def test_install_lines_name_what_can_be_installed() -> None:
    # our packages are not on PyPI: an install line names a path, a git URL or wheels in dist/
    wrong = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if "--find-links" in line:  # the wheels `nox -s build` made
                continue
            for found in re.finditer(r"pip install ([^`#\n]*)", line):
                for word in found.group(1).split():
                    name = word.strip("\"'")
                    if name.startswith("amplifier-") and name not in PUBLISHED:
                        wrong.append(f"{doc.relative_to(ROOT)}:{number}: {name}")
    assert wrong == []


def test_the_snippets_are_found() -> None:
    # a change in the fences must not turn this test into one that checks nothing
    assert len(list(_blocks("python"))) >= 10
    assert len(list(_blocks("yaml"))) >= 20
