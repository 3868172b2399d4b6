"""Config errors: every kind of pydantic error as a located, readable line."""

from __future__ import annotations

import textwrap
from typing import Annotated, Any, Literal

import pytest
from amplifier_hooks_util.config_errors import (
    ConfigError,
    ConfigProblem,
    allowed_keys,
    describe_value,
    key_path,
    unknown_key_message,
    validate_config,
    validation_problems,
)
from amplifier_hooks_util.yaml_locations import YamlDocument
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)


def _operator(value: str) -> str:
    if value not in ("&&", "||"):
        raise ValueError(f"unknown shell operator {value!r}")
    return value


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    module: str
    config: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="x", min_length=1)
    timeout: float = Field(default=1.0, gt=0)
    retries: int = Field(default=1, ge=0, le=10)
    level: Literal["info", "debug"] = "info"
    tags: tuple[str, ...] = Field(default=(), min_length=0)
    patterns: list[str] = Field(default_factory=lambda: ["*"], min_length=1)
    operators: bool | tuple[Annotated[str, AfterValidator(_operator)], ...] = False
    target: str | list[str] = "all"
    limits: dict[str, int] = Field(default_factory=dict)
    hooks: list[Entry] = Field(default_factory=list)
    fallback: Entry | None = None
    enabled: bool = True


def problems(data: Any, **kwargs: Any) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        Settings.model_validate(data)
    return [p.render() for p in validation_problems(caught.value, schema=Settings, **kwargs)]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"timout": 3},
            "timout: unknown key 'timout' (did you mean 'timeout'?); expected one of: name, "
            "timeout, retries, level, tags, patterns, operators, target, limits, hooks, "
            "fallback, enabled",
        ),
        ({"timeout": 0}, "timeout: expected a number greater than 0, got int 0"),
        ({"timeout": "soon"}, "timeout: expected a number, got str 'soon'"),
        ({"retries": 11}, "retries: expected a number at most 10, got int 11"),
        ({"retries": -1}, "retries: expected a number at least 0, got int -1"),
        ({"retries": 1.5}, "retries: expected a whole number, got float 1.5"),
        ({"level": "loud"}, "level: expected one of 'info' or 'debug', got str 'loud'"),
        ({"name": ""}, "name: expected a non-empty string, got str ''"),
        ({"tags": "a"}, "tags: expected a list, got str 'a'"),
        ({"patterns": []}, "patterns: expected at least 1 item, got 0 items"),
        ({"patterns": ["a", 3]}, "patterns[1]: expected a string, got int 3"),
        ({"enabled": "perhaps"}, "enabled: expected true or false, got str 'perhaps'"),
        ({"limits": {"cpu": "many"}}, "limits.cpu: expected an integer, got str 'many'"),
        ({"hooks": {"module": "x"}}, "hooks: expected a list, got a mapping"),
        ({"hooks": ["x"]}, "hooks[0]: expected a mapping, got str 'x'"),
        ({"hooks": [{}]}, "hooks[0].module: missing required key 'module'"),
        (
            {"hooks": [{"module": "a", "confg": {}}]},
            "hooks[0].confg: unknown key 'confg' (did you mean 'config'?); expected one of: "
            "module, config, source",
        ),
        (
            {"fallback": {"module": "a", "sorce": "."}},
            "fallback.sorce: unknown key 'sorce' (did you mean 'source'?); expected one of: "
            "module, config, source",
        ),
        ({"fallback": None, "enabled": None}, "enabled: expected true or false, got null"),
    ],
)
def test_each_kind_of_mistake_reads_as_what_was_expected(data: Any, expected: str) -> None:
    assert problems(data) == [expected]


def test_a_value_that_fits_no_branch_of_a_union_lists_the_branches() -> None:
    assert problems({"target": 3}) == ["target: expected a string or a list, got int 3"]
    assert problems({"operators": 3}) == ["operators: expected true or false or a list, got int 3"]


def test_a_branch_the_value_got_into_says_what_is_wrong_inside_it() -> None:
    assert problems({"operators": ["&&", "%"]}) == ["operators[1]: unknown shell operator '%'"]


def test_several_problems_keep_pydantics_order() -> None:
    assert problems({"timeout": 0, "retries": "x", "zzz": 1}) == [
        "timeout: expected a number greater than 0, got int 0",
        "retries: expected an integer, got str 'x'",
        "zzz: unknown key 'zzz'; expected one of: name, timeout, retries, level, tags, "
        "patterns, operators, target, limits, hooks, fallback, enabled",
    ]


def test_lines_come_from_the_document_and_the_base_path() -> None:
    text = textwrap.dedent(
        """\
        settings:
          timeout: 0
          hooks:
            - module: a
              confg: {}
            - config: {}
        """
    )
    document = YamlDocument.parse(text)
    with pytest.raises(ValidationError) as caught:
        Settings.model_validate(document.data["settings"])
    found = validation_problems(
        caught.value, schema=Settings, base=("settings",), document=document
    )
    assert [(p.line, p.key_path) for p in found] == [
        (2, "settings.timeout"),
        (5, "settings.hooks[0].confg"),  # the key's own line
        (6, "settings.hooks[1].module"),  # missing: the line of the entry that lacks it
    ]
    assert found[0].loc == ("settings", "timeout")
    assert found[0].render("app.yaml") == (
        "app.yaml:2: settings.timeout: expected a number greater than 0, got int 0"
    )


class Command(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["command"]
    command: str
    timeout_ms: int = Field(default=1000, gt=0)


class Matcher(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["matcher"]
    action: Literal["block", "allow"]


Hook = Annotated[Command | Matcher, Field(discriminator="type")]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"type": "command", "command": "x", "timout_ms": 5},
            "hook.timout_ms: unknown key 'timout_ms' (did you mean 'timeout_ms'?); expected "
            "one of: type, command, timeout_ms",
        ),
        ({"type": "command"}, "hook.command: missing required key 'command'"),
        (
            {"type": "matcher", "action": "deny"},
            "hook.action: expected one of 'block' or 'allow', got str 'deny'",
        ),
        ({"type": "llm"}, "hook: unknown type 'llm'; expected one of: 'command', 'matcher'"),
        ({"command": "x"}, "hook: missing required key 'type'"),
    ],
)
def test_discriminated_unions_name_the_branch_keys(data: Any, expected: str) -> None:
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(Hook).validate_python(data)
    found = validation_problems(caught.value, schema=Hook, base=("hook",))
    assert [p.render() for p in found] == [expected]


def test_key_errors_of_a_mapping_say_so() -> None:
    def lower(value: str) -> str:
        if value != value.lower():
            raise ValueError(f"rule name {value!r} must be lower case")
        return value

    schema = dict[Annotated[str, AfterValidator(lower)], int]
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(schema).validate_python({"Bad": 1})
    assert [p.render() for p in validation_problems(caught.value, schema=schema)] == [
        "Bad (the key): rule name 'Bad' must be lower case"
    ]


def test_checks_across_keys_keep_their_own_words() -> None:
    class Pair(BaseModel):
        low: int = 0
        high: int = 0

        @model_validator(mode="after")
        def _ordered(self) -> Pair:
            if self.low > self.high:
                raise ValueError("low is above high")
            return self

    with pytest.raises(ValidationError) as caught:
        Pair.model_validate({"low": 2, "high": 1})
    assert [p.render() for p in validation_problems(caught.value)] == ["low is above high"]


def test_the_same_problem_twice_is_reported_once() -> None:
    error = {"type": "int_parsing", "loc": ("a",), "msg": "Input should be...", "input": "x"}
    found = validation_problems([error, error])  # type: ignore[list-item]
    assert found == [ConfigProblem("expected an integer, got str 'x'", "a", loc=("a",))]


def test_an_unknown_kind_keeps_pydantics_words() -> None:
    class Site(BaseModel):
        url: Annotated[str, Field(pattern=r"^https://")]

    with pytest.raises(ValidationError) as caught:
        Site.model_validate({"url": "ftp://x"})
    assert [p.render() for p in validation_problems(caught.value, schema=Site)] == [
        "url: String should match pattern '^https://' (got str 'ftp://x')"
    ]


# ----------------------------------------------------------------------------- validate_config


def test_validate_config_gives_the_model_or_one_error() -> None:
    assert validate_config(Settings, None, owner="mod") == Settings()
    assert validate_config(Settings, {"retries": 3}, owner="mod").retries == 3
    with pytest.raises(ConfigError) as caught:
        validate_config(Settings, {"timeout": 0, "levl": "x"}, owner="mod")
    err = caught.value
    assert isinstance(err, ValueError)
    assert str(err) == (
        "mod: config: timeout: expected a number greater than 0, got int 0; levl: unknown key "
        "'levl' (did you mean 'level'?); expected one of: name, timeout, retries, level, tags, "
        "patterns, operators, target, limits, hooks, fallback, enabled"
    )
    assert [p.key_path for p in err.problems] == ["timeout", "levl"]
    assert err.owner == "mod"


@pytest.mark.parametrize(("raw", "shown"), [([1], "a list"), ("x", "str 'x'"), (3, "int 3")])
def test_validate_config_refuses_what_is_not_a_mapping(raw: object, shown: str) -> None:
    with pytest.raises(
        ConfigError, match=f"^mod: config: expected a mapping of keys, got {shown}$"
    ):
        validate_config(Settings, raw, owner="mod")


# ----------------------------------------------------------------------------- the words


def test_key_paths() -> None:
    assert key_path(()) == ""
    assert key_path(("hooks", 1, "config", "x")) == "hooks[1].config.x"
    assert key_path((0, "a")) == "[0].a"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "bool true"),
        ({}, "a mapping"),
        ([1], "a list"),
        ((1,), "a list"),
        ("x" * 50, "str '" + "x" * 36 + "..."),
        (3, "int 3"),
        (1.5, "float 1.5"),
        (object(), "object <object object>"),
    ],
)
def test_values_are_described_briefly(value: object, text: str) -> None:
    assert describe_value(value) == text


def test_unknown_key_messages() -> None:
    assert unknown_key_message("x", None) == "unknown key 'x'"
    assert unknown_key_message("x", ["alpha"]) == "unknown key 'x'; expected one of: alpha"
    assert unknown_key_message("alpah", ["alpha", "beta"]) == (
        "unknown key 'alpah' (did you mean 'alpha'?); expected one of: alpha, beta"
    )


def test_allowed_keys_follow_the_schema() -> None:
    assert allowed_keys(Settings, ("hooks", 3)) == ["module", "config", "source"]
    assert allowed_keys(Settings, ("fallback",)) == ["module", "config", "source"]
    assert allowed_keys(Settings, ("limits",)) is None
    assert allowed_keys(Hook, ("matcher",)) == ["type", "action"]


def test_problems_render_with_what_is_known() -> None:
    assert ConfigProblem("bad").render() == "bad"
    assert ConfigProblem("bad", "a.b").render() == "a.b: bad"
    assert ConfigProblem("bad", "a", line=3).render() == "a: bad"  # no file, no line
    assert ConfigProblem("bad", "a", line=3, column=7).render("f.yaml") == "f.yaml:3:7: a: bad"
    assert ConfigProblem("bad").render("f.yaml") == "f.yaml: bad"


def test_checking_a_config_imports_no_yaml_parser() -> None:
    """A module checks its config at every mount; PyYAML is for whoever reads a document."""
    import json
    import subprocess
    import sys

    code = """
import json, sys
from pydantic import BaseModel, ConfigDict
from amplifier_hooks_util.config_errors import ConfigError, validate_config

class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    timeout: int = 5

assert validate_config(Settings, {"timeout": 3}, owner="m").timeout == 3
try:
    validate_config(Settings, {"timout": 3}, owner="m")
except ConfigError as err:
    message = str(err)
print(json.dumps({"message": message, "loaded": sorted(sys.modules)}))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "timout" in found["message"]
    assert "timeout" in found["message"]
    yaml = [name for name in found["loaded"] if name == "yaml" or name.startswith("yaml.")]
    assert yaml == []
    assert "amplifier_hooks_util.yaml_locations" not in found["loaded"]
