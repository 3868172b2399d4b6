"""Any data serialises, secrets are masked at any depth, and encoding never raises."""

from __future__ import annotations

import json
import math
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum, IntEnum
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any
from uuid import UUID

import pytest
from pydantic import BaseModel

from amplifier_module_hooks_logging import MASK, DataEncoder, SecretKeys


def roundtrip(data: Any, **kwargs: Any) -> Any:
    text = DataEncoder(**kwargs).encode(data)
    assert "\n" not in text
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"bare {name} in JSON"))


class Colour(Enum):
    RED = "red"
    BLUE = 2


class Size(IntEnum):
    BIG = 10


class Usage(BaseModel):
    input_tokens: int
    when: datetime
    api_key: str = "sk-model-secret"


@dataclass
class Step:
    name: str
    at: date
    tags: set[str] = field(default_factory=set)
    token: str = "tok-dataclass-secret"


@dataclass
class Node:
    name: str
    next: Node | None = None


def test_plain_json_passes_through() -> None:
    data = {"s": 'é\n"q"', "i": 1, "f": 1.5, "b": True, "n": None, "l": [1, [2, {"x": []}]]}
    assert roundtrip(data) == data


def test_standard_library_types() -> None:
    moment = datetime(2026, 1, 31, 12, 0, 5, 123456, tzinfo=UTC)
    data = {
        "datetime": moment,
        "date": date(2026, 1, 31),
        "time": time(12, 30),
        "timedelta": timedelta(minutes=1, milliseconds=500),
        "decimal": Decimal("0.10000000000000000000001"),
        "uuid": UUID("12345678-1234-5678-1234-567812345678"),
        "path": Path("/tmp/a b"),
        "pure": PurePosixPath("x/y"),
        "set": {3, 1, 2},
        "frozenset": frozenset({"b", "a"}),
        "mixed_set": {1, "a"},
        "tuple": (1, (2, 3)),
        "deque": deque([1, 2]),
        "mapping": MappingProxyType({"k": "v"}),
        "ordered": OrderedDict(z=1, a=2),
        "enum": Colour.RED,
        "enum_int_value": Colour.BLUE,
        "int_enum": Size.BIG,
        "error": ValueError("bad value"),
        "nested_error": {"e": KeyError("k")},
    }
    out = roundtrip(data)
    assert out["datetime"] == "2026-01-31T12:00:05.123456+00:00"
    assert out["date"] == "2026-01-31"
    assert out["time"] == "12:30:00"
    assert out["timedelta"] == 60.5
    assert out["decimal"] == "0.10000000000000000000001"
    assert out["uuid"] == "12345678-1234-5678-1234-567812345678"
    assert out["path"] == "/tmp/a b"
    assert out["pure"] == "x/y"
    assert out["set"] == [1, 2, 3]
    assert out["frozenset"] == ["a", "b"]
    assert sorted(map(str, out["mixed_set"])) == ["1", "a"]
    assert out["tuple"] == [1, [2, 3]]
    assert out["deque"] == [1, 2]
    assert out["mapping"] == {"k": "v"}
    assert out["ordered"] == {"z": 1, "a": 2}
    assert out["enum"] == "red"
    assert out["enum_int_value"] == 2
    assert out["int_enum"] == 10
    assert out["error"] == {"type": "ValueError", "message": "bad value"}
    assert out["nested_error"] == {"e": {"type": "KeyError", "message": "'k'"}}


def test_bytes_as_utf8_text_by_default() -> None:
    out = roundtrip({"ok": "héllo".encode(), "bad": b"\xff\x00a", "ba": bytearray(b"xy")})
    assert out == {"ok": "héllo", "bad": "\\xff\x00a", "ba": "xy"}


def test_bytes_as_base64() -> None:
    out = roundtrip({"raw": b"\xff\x00a", "view": memoryview(b"hi")}, bytes_format="base64")
    assert out == {"raw": {"__bytes__": "/wBh"}, "view": {"__bytes__": "aGk="}}


def test_pydantic_models_and_dataclasses_are_dumped_and_masked() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    out = roundtrip(
        {
            "usage": Usage(input_tokens=7, when=moment),
            "step": Step("plan", date(2026, 1, 2), {"b", "a"}),
        }
    )
    assert out["usage"] == {
        "input_tokens": 7,
        "when": "2026-01-01T00:00:00+00:00",
        "api_key": MASK,
    }
    assert out["step"] == {"name": "plan", "at": "2026-01-02", "tags": ["a", "b"], "token": MASK}


def test_unserializable_objects_are_described() -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<Opaque 42>"

    class BrokenRepr:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    out = roundtrip(
        {
            "opaque": Opaque(),
            "broken": BrokenRepr(),
            "generator": (i for i in range(3)),
            "range": range(5),
            "complex": 1 + 2j,
            "function": len,
        }
    )
    assert out["opaque"] == {"__unserializable__": "Opaque", "repr": "<Opaque 42>"}
    assert out["broken"] == {
        "__unserializable__": "BrokenRepr",
        "repr": "<repr failed: RuntimeError>",
    }
    assert out["generator"]["__unserializable__"] == "generator"
    assert out["range"] == {"__unserializable__": "range", "repr": "range(0, 5)"}
    assert out["complex"] == {"__unserializable__": "complex", "repr": "(1+2j)"}
    assert out["function"]["__unserializable__"] == "builtin_function_or_method"


def test_long_repr_is_truncated() -> None:
    class Long:
        def __repr__(self) -> str:
            return "x" * 10_000

    out = roundtrip({"v": Long()})
    assert len(out["v"]["repr"]) == 503
    assert out["v"]["repr"].endswith("...")


def test_failing_converter_is_recorded_not_raised() -> None:
    class Exploding(BaseModel):
        x: int = 1

        def model_dump(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            raise RuntimeError("boom")

    out = roundtrip({"m": Exploding(), "fine": 1})
    assert out["fine"] == 1
    assert out["m"]["__unserializable__"] == "Exploding"


def test_cycles_are_cut() -> None:
    data: dict[str, Any] = {"name": "root", "items": []}
    data["items"].append(data)
    data["self"] = data
    looped = Node("a")
    looped.next = Node("b", looped)
    data["node"] = looped
    out = roundtrip(data)
    assert out["items"] == [{"__circular__": "dict"}]
    assert out["self"] == {"__circular__": "dict"}
    assert out["node"] == {"name": "a", "next": {"name": "b", "next": {"__circular__": "Node"}}}


def test_shared_references_are_not_cycles() -> None:
    shared = {"v": 1}
    assert roundtrip({"a": shared, "b": [shared, shared]}) == {
        "a": {"v": 1},
        "b": [{"v": 1}, {"v": 1}],
    }


def test_very_deep_nesting_is_cut_not_crashed() -> None:
    deep: Any = "bottom"
    for _ in range(5000):
        deep = {"d": deep}
    out = roundtrip(deep)
    depth = 0
    while isinstance(out, dict) and "d" in out:
        out = out["d"]
        depth += 1
    assert out == {"__truncated__": "depth"}
    assert depth == 200


def test_non_finite_floats_become_strings() -> None:
    out = roundtrip({"nan": math.nan, "inf": math.inf, "ninf": -math.inf, "ok": 0.5})
    assert out == {"nan": "NaN", "inf": "Infinity", "ninf": "-Infinity", "ok": 0.5}


def test_odd_keys_become_strings() -> None:
    out = roundtrip({1: "int", (1, 2): "tuple", Colour.RED: "enum", None: "none", 2.5: "f"})
    assert out == {"1": "int", "(1, 2)": "tuple", "red": "enum", "null": "none", "2.5": "f"}


def test_top_level_non_dict_data() -> None:
    assert roundtrip(None) is None
    assert roundtrip([1, {2}]) == [1, [2]]
    assert roundtrip("text") == "text"


def test_lone_surrogates_survive() -> None:
    text = DataEncoder().encode({"s": "a\udcffb"})
    line = text.encode("utf-8", "backslashreplace")
    assert json.loads(line) == {"s": "a\udcffb"}


# ---------------------------------------------------------------------- secrets


@pytest.mark.parametrize(
    "key",
    [
        "api_key",
        "API_KEY",
        "apiKey",
        "x-api-key",
        "XApiKey",
        "apikey",
        "Authorization",
        "proxy-authorization",
        "token",
        "access_token",
        "accessToken",
        "refresh-token",
        "password",
        "db.password",
        "passwd",
        "secret",
        "client_secret",
        "secretKey",
        "aws_access_key",
        "private_key",
        "Set-Cookie",
        "credentials",
    ],
)
def test_secret_keys_are_masked(key: str) -> None:
    assert SecretKeys().is_secret(key)
    out = roundtrip({"outer": [{"inner": {key: "s3cr3t-value"}}]})
    assert out == {"outer": [{"inner": {key: MASK}}]}


@pytest.mark.parametrize(
    "key",
    ["input_tokens", "max_tokens", "tokens", "tokenizer", "author", "keys", "monkey", "secrets"],
)
def test_ordinary_keys_are_kept(key: str) -> None:
    assert not SecretKeys().is_secret(key)
    assert roundtrip({key: "visible"}) == {key: "visible"}


def test_numbers_under_secret_words_stay_readable() -> None:
    out = roundtrip({"token_count": 12, "token": None, "password": True, "secret": "x"})
    assert out == {"token_count": 12, "token": None, "password": True, "secret": MASK}


def test_whole_structures_under_a_secret_key_are_masked() -> None:
    out = roundtrip({"headers": {"authorization": {"scheme": "Bearer", "value": "abc"}}})
    assert out == {"headers": {"authorization": MASK}}


def test_configured_secret_words() -> None:
    encoder = DataEncoder(SecretKeys(["ssn", "Session-Cookie-Value"]))
    out = json.loads(
        encoder.encode({"user": {"SSN": "123-45-6789", "session_cookie_value": "c", "name": "n"}})
    )
    assert out == {"user": {"SSN": MASK, "session_cookie_value": MASK, "name": "n"}}


def test_masking_does_not_touch_timestamps_uuids_or_hashes() -> None:
    data = {
        "timestamp": "2026-01-31T12:00:00.123456+00:00",
        "id": "12345678-1234-5678-1234-567812345678",
        "sha": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "token": "hidden",
    }
    out = roundtrip(data)
    assert out == {**data, "token": MASK}


def test_input_data_is_never_modified() -> None:
    data = {"token": "t", "nested": {"password": "p", "when": date(2026, 1, 1)}}
    DataEncoder().encode(data)
    assert data == {"token": "t", "nested": {"password": "p", "when": date(2026, 1, 1)}}


# -- one bad value costs only itself ------------------------------------------------------------


class UnreadableList(list[Any]):
    """A list subclass whose iteration raises (its items are still there underneath)."""

    def __iter__(self) -> Any:
        raise RuntimeError("no iterating me")


class UnreadableTuple(tuple[Any, ...]):
    def __iter__(self) -> Any:
        raise RuntimeError("no iterating me")

    def __len__(self) -> int:
        raise RuntimeError("no length either")


SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"


@pytest.mark.parametrize(
    "bad",
    [UnreadableList([1, 2]), UnreadableTuple(("x",)), 10**5000, -(7**9000)],
    ids=["list-subclass-iter-raises", "tuple-subclass-unreadable", "5000-digit-int", "big-neg"],
)
def test_a_value_that_cannot_be_encoded_never_leaks_secrets_or_loses_the_record(bad: Any) -> None:
    data = {
        "api_key": SECRET,
        "nested": {"password": SECRET, "tool": "bash"},
        "bad": bad,
        "command": "ls -la",
    }
    text = DataEncoder().encode(data)
    assert SECRET not in text
    decoded = json.loads(text)
    assert decoded["api_key"] == MASK
    assert decoded["nested"] == {"password": MASK, "tool": "bash"}
    assert decoded["command"] == "ls -la"
    assert "repr" not in json.dumps(decoded["bad"])  # no repr of the event or its containers


def test_a_huge_int_is_kept_in_hexadecimal() -> None:
    value = 10**5000 + 1
    decoded = roundtrip({"n": value})
    assert int(decoded["n"]["__int__"], 16) == value
    assert roundtrip({"n": 10**100}) == {"n": 10**100}
