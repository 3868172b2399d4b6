"""Bundle YAML: valid files load; every bad file names the file, line, key path and expectation."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from amplifier_hooks_bundle import Bundle, ModuleEntry, load_bundle, parse_bundle
from pydantic import ValidationError

from amplifier_core.errors import AmplifierError, BundleError

FIXTURES = Path(__file__).parent / "fixtures" / "bundles"


def parse(text: str, name: str = "bundle.yaml") -> Bundle:
    return parse_bundle(textwrap.dedent(text).lstrip("\n"), name)


def parse_error(text: str, name: str = "bundle.yaml") -> BundleError:
    with pytest.raises(BundleError) as caught:
        parse(text, name)
    return caught.value


# -- valid bundles --------------------------------------------------------------------


def test_the_documented_example_loads_verbatim() -> None:
    bundle = load_bundle(FIXTURES / "concepts.yaml")

    assert bundle.name == "my-assistant"
    assert bundle.bundle is not None
    assert bundle.bundle.version == "1.0.0"
    assert [h.module for h in bundle.hooks] == [
        "hooks-logging",
        "hooks-streaming-ui",
        "hooks-status-context",
        "hooks-approval",
    ]
    assert bundle.hooks[3].config == {"require_approval": ["bash", "write_file"]}
    assert bundle.hooks[0].config == {}
    assert bundle.hooks[0].source is None
    assert bundle.source_name == str(FIXTURES / "concepts.yaml")
    assert bundle.base_dir == FIXTURES.resolve()


def test_every_section_is_read_and_unknown_sections_are_kept() -> None:
    bundle = load_bundle(FIXTURES / "full.yaml", includes=False)

    assert bundle.bundle is not None
    assert bundle.bundle.version == "1.0"  # a YAML float, kept as the text the author meant
    assert bundle.bundle.model_extra == {"license": "MIT"}
    assert bundle.session.injection_size_limit == 10240
    assert bundle.session.orchestrator == {"module": "loop-basic"}
    assert bundle.tools[1] == ModuleEntry(module="tool-todo")  # `config:` left empty
    assert bundle.hooks[1].source == "./modules/hooks-redaction"
    assert bundle.model_extra == {
        "includes": ["git+https://github.com/microsoft/amplifier-foundation@main"],
        "agents": {"include": ["reviewer"]},
    }
    assert [(s, e.module) for s, e in bundle.module_entries()] == [
        ("providers", "provider-scripted"),
        ("tools", "tool-bash"),
        ("tools", "tool-todo"),
        ("hooks", "hooks-logging"),
        ("hooks", "hooks-redaction"),
    ]


def test_markdown_front_matter_and_instruction() -> None:
    bundle = load_bundle(FIXTURES / "good.md")

    assert bundle.name == "markdown-bundle"
    assert [h.module for h in bundle.hooks] == ["hooks-logging"]
    assert bundle.instruction == "You are a careful assistant."


def test_a_directory_holding_bundle_yaml(tmp_path: Path) -> None:
    (tmp_path / "bundle.yaml").write_text("hooks:\n  - module: hooks-logging\n", encoding="utf-8")

    bundle = load_bundle(tmp_path)

    assert bundle.source_name == str(tmp_path / "bundle.yaml")
    assert [h.module for h in bundle.hooks] == ["hooks-logging"]


def test_empty_sections_are_empty() -> None:
    bundle = parse(
        """
        session:
        hooks:
        tools:
        """
    )

    assert (bundle.session.given(), bundle.hooks, bundle.tools, bundle.providers) == (
        {},
        [],
        [],
        [],
    )


# -- bad bundles: each case names file, line, key path and what was expected ---------


def test_wrong_type_names_file_line_key_path_and_expectation() -> None:
    path = FIXTURES / "wrong_config.yaml"
    with pytest.raises(BundleError) as caught:
        load_bundle(path)

    err = caught.value
    assert (err.file, err.line, err.key_path) == (str(path), 8, "hooks[2].config")
    assert str(err) == (
        f"invalid bundle {path}:8: hooks[2].config: expected a mapping, got str 'require_approval'"
    )
    assert isinstance(err, AmplifierError)
    assert isinstance(err, ValueError)


def test_markdown_errors_keep_the_file_line_numbers() -> None:
    path = FIXTURES / "bundle.md"
    with pytest.raises(BundleError) as caught:
        load_bundle(path)

    assert (caught.value.line, caught.value.key_path) == (9, "hooks[1].config")
    assert "expected a mapping, got str 'always'" in str(caught.value)


def test_unknown_key_in_a_hook_entry_suggests_the_right_one() -> None:
    with pytest.raises(BundleError) as caught:
        load_bundle(FIXTURES / "typo.yaml")

    err = caught.value
    assert (err.line, err.key_path) == (3, "hooks[0].confg")
    assert "unknown key 'confg' (did you mean 'config'?)" in str(err)
    assert "expected one of: module, config, source" in str(err)


def test_duplicate_module_names_both_places() -> None:
    with pytest.raises(BundleError) as caught:
        load_bundle(FIXTURES / "duplicate.yaml")

    err = caught.value
    assert (err.line, err.key_path) == (4, "hooks[2].module")
    assert "module 'hooks-logging' is already listed at hooks[0] (line 2)" in str(err)


def test_duplicate_module_across_sections() -> None:
    err = parse_error(
        """
        tools:
          - module: shared
        hooks:
          - module: shared
        """
    )

    assert (err.line, err.key_path) == (4, "hooks[0].module")
    assert "already listed at tools[0] (line 2)" in str(err)


def test_yaml_syntax_error_gives_line_and_column() -> None:
    path = FIXTURES / "syntax.yaml"
    with pytest.raises(BundleError) as caught:
        load_bundle(path)

    err = caught.value
    assert (err.line, err.column) == (4, 11)
    assert str(err).startswith(f"invalid bundle {path}:4:11: invalid YAML: ")
    assert "while parsing a flow mapping at line 3" in str(err)
    assert err.__cause__ is not None


def test_tab_indentation_is_a_syntax_error_with_position() -> None:
    err = parse_error("hooks:\n\t- module: hooks-logging\n")

    assert (err.line, err.column) == (2, 1)
    assert "found character '\\t' that cannot start any token" in str(err)


def test_empty_file() -> None:
    path = FIXTURES / "empty.yaml"
    with pytest.raises(BundleError) as caught:
        load_bundle(path)

    assert str(caught.value) == (
        f"invalid bundle {path}: the bundle is empty; expected a mapping with keys such as 'hooks'"
    )


def test_document_that_is_not_a_mapping() -> None:
    path = FIXTURES / "list.yaml"
    with pytest.raises(BundleError) as caught:
        load_bundle(path)

    assert str(caught.value) == (
        f"invalid bundle {path}:1: expected a mapping with keys such as 'bundle' and 'hooks', "
        "got a list"
    )


def test_scalar_document() -> None:
    err = parse_error("hooks-logging\n")

    assert "got str 'hooks-logging'" in str(err)


def test_missing_module_key() -> None:
    err = parse_error(
        """
        hooks:
          - module: hooks-logging
          - config:
              path: x
        """
    )

    assert (err.line, err.key_path) == (3, "hooks[1].module")
    assert "missing required key 'module'" in str(err)


def test_bare_module_name_instead_of_an_entry() -> None:
    err = parse_error("hooks:\n  - hooks-logging\n")

    assert (err.line, err.key_path) == (2, "hooks[0]")
    assert "expected a mapping, got str 'hooks-logging'; write it as '- module: hooks-logging'" in (
        str(err)
    )


def test_section_that_is_not_a_list() -> None:
    err = parse_error("hooks:\n  module: hooks-logging\n")

    assert (err.line, err.key_path) == (2, "hooks")
    assert "expected a list, got a mapping" in str(err)


def test_module_id_with_spaces() -> None:
    err = parse_error("hooks:\n  - module: ' hooks-logging'\n")

    assert err.key_path == "hooks[0].module"
    assert "expected a module id such as 'hooks-logging', got ' hooks-logging'" in str(err)


def test_bundle_block_that_is_not_a_mapping_or_lacks_a_name() -> None:
    assert "bundle: expected a mapping, got str 'my-assistant'" in str(
        parse_error("bundle: my-assistant\n")
    )
    err = parse_error("bundle:\n  version: 1.0.0\n")
    assert (err.line, err.key_path) == (2, "bundle.name")
    assert "missing required key 'name'" in str(err)


def test_session_that_is_not_a_mapping() -> None:
    err = parse_error("session: [injection_size_limit]\n")

    assert (err.line, err.key_path) == (1, "session")
    assert "expected a mapping, got a list" in str(err)


def test_misspelled_top_level_section() -> None:
    err = parse_error("hoks:\n  - module: hooks-logging\n")

    assert (err.line, err.key_path) == (1, "hoks")
    assert "unknown top-level key 'hoks' (did you mean 'hooks'?)" in str(err)


def test_repeated_key_in_one_mapping() -> None:
    err = parse_error(
        """
        hooks:
          - module: hooks-logging
        session: {}
        hooks:
          - module: hooks-approval
        """
    )

    assert (err.line, err.key_path) == (4, "hooks")
    assert "duplicate key 'hooks' (first at line 1)" in str(err)


def test_several_problems_are_reported_together_in_file_order() -> None:
    err = parse_error(
        """
        hooks:
          - module: a
            confg: {}
          - module: b
            config: 3
          - module: a
        """
    )

    assert [(p.line, p.key_path) for p in err.problems] == [
        (3, "hooks[0].confg"),
        (5, "hooks[1].config"),
        (6, "hooks[2].module"),
    ]
    assert "3 problems" in str(err)
    assert "bundle.yaml:5: hooks[1].config: expected a mapping, got int 3" in str(err)
    assert (err.line, err.key_path) == (3, "hooks[0].confg")


def test_unsafe_yaml_tags_are_refused() -> None:
    err = parse_error("hooks: !!python/object/apply:os.system ['echo hi']\n")

    assert err.line == 1
    assert "could not determine a constructor" in str(err)


def test_multiple_documents() -> None:
    err = parse_error("hooks: []\n---\ntools: []\n")

    assert err.line == 2
    assert "expected a single document in the stream, but found another document" in str(err)


def test_markdown_without_front_matter() -> None:
    with pytest.raises(BundleError, match=r"notes\.md:1: a Markdown bundle must start"):
        parse_bundle("# Just notes\n", "notes.md")
    with pytest.raises(BundleError, match=r"open\.md:1: the front matter .* never closed"):
        parse_bundle("---\nhooks: []\n", "open.md")


def test_missing_file_and_directory_without_bundle(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match=r"nope\.yaml: cannot read the file: No such file"):
        load_bundle(tmp_path / "nope.yaml")
    with pytest.raises(BundleError, match=r"a directory without bundle\.yaml, bundle\.yml"):
        load_bundle(tmp_path)


def test_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"bundle:\n  name: caf\xe9\n")

    with pytest.raises(
        BundleError, match=r"latin1\.yaml:2: not UTF-8 text: byte 0xe9 at offset 19"
    ):
        load_bundle(path)


def test_validating_a_dict_directly_still_rejects_duplicates() -> None:
    with pytest.raises(ValidationError, match=r"hooks\[1\]\.module: module 'a' is already listed"):
        Bundle.model_validate({"hooks": [{"module": "a"}, {"module": "a"}]})


@pytest.mark.parametrize("observe", [True, False])
def test_the_bundle_entry_carries_observe(observe: bool) -> None:
    bundle = parse_bundle(
        f"hooks:\n  - module: hooks-approval\n    observe: {str(observe).lower()}\n"
    )
    assert bundle.hooks[0].observe is observe


def test_a_bundles_session_block_is_parsed_once_with_the_file_and_line() -> None:
    bundle = parse_bundle("session:\n  injection_size_limit: 2048\n  colour: red\n", "b.yaml")
    assert bundle.session.injection_size_limit == 2048
    assert bundle.session.model_extra == {"colour": "red"}
    with pytest.raises(BundleError) as raised:
        parse_bundle("session:\n  injection_size_limit: lots\n", "b.yaml")
    assert str(raised.value).startswith(
        "invalid bundle b.yaml:2: session.injection_size_limit: expected a whole number >= 0"
    )
