"""Secrets that reached the log file in clear, each written as the leak: the exact text goes in
through a real registry, and the test reads the file.

``session:start`` carries the mounted modules' configs; hooks-redaction does not subscribe to
it, and masking by key name alone wrote a token under ``env: {GH_PAT: ...}`` or inside a
``curl -H 'Authorization: token ...'`` command as it was.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_module_hooks_logging import mount
from amplifier_module_hooks_logging.visible import INVISIBLE, visible

GH = "ghp_" + "Vb3Nq8Lr2Tz6Wk1Xs5Pm9Hd4Jf7Cy0Ga2Ue8R"
SLACK = "xoxp-" + "1029384756-5647382910-4839201756-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
CURL = f"curl -sS -H 'Authorization: token {GH}' https://api.github.com/user"


async def _logged(tmp_path: Path, event: str, data: dict[str, Any], **config: Any) -> str:
    """Mount hooks-logging on a real registry, emit ``event`` with ``data``, and return the
    log file's text."""

    class Coordinator:
        def __init__(self) -> None:
            self.hooks = HookRegistry(json_data=config.pop("json_data", True))
            self.session_id = "s-1"

    coordinator = Coordinator()
    path = tmp_path / "events.jsonl"
    cleanup = await mount(coordinator, {"path": str(path), **config})
    await coordinator.hooks.emit(event, data)
    await cleanup()
    return path.read_text(encoding="utf-8")


async def test_session_start_configs_are_redacted_whatever_their_keys(tmp_path: Path) -> None:
    mount_plan = {
        "hooks": [
            {"module": "hooks-declarative", "config": {"env": {"GH_PAT": GH, "MODE": "ci"}}},
            {"module": "hooks-status", "config": {"command": CURL}},
            {"module": "hooks-notify", "config": {"args": ["--header", f"X-Slack: {SLACK}"]}},
        ],
        "provider": "scripted",
        "tools": ["bash"],
    }
    text = await _logged(tmp_path, "session:start", {"mount_plan": mount_plan})
    assert GH not in text
    assert SLACK not in text
    assert "[REDACTED:github_token]" in text
    assert "api.github.com/user" in text  # the command is still there, only the token is gone
    assert '"MODE":"ci"' in text


async def test_a_value_under_a_short_secret_key_is_masked(tmp_path: Path) -> None:
    """A personal access token without a vendor prefix, under ``GH_PAT``, ``pwd``, ``creds``."""
    plain = "Zq8Xw2Lr9Tz6Wk1Xs5Pm9Hd4"
    data = {"env": {"GH_PAT": plain}, "db": {"pwd": plain + "1"}, "creds": [plain + "2"]}
    text = await _logged(tmp_path, "session:start", {"mount_plan": data})
    assert plain not in text


@pytest.mark.parametrize("bytes_format", ["utf8", "base64"])
async def test_a_token_inside_bytes_is_redacted_in_either_format(
    tmp_path: Path, bytes_format: str
) -> None:
    """A kernel that hands handlers the bytes (ours with json_data off) or their text (2.0.2)."""
    for json_data in (False, True):
        where = tmp_path / f"{bytes_format}-{json_data}"
        where.mkdir()
        data = {"output": f"GITHUB_TOKEN={GH}\n".encode()}
        text = await _logged(
            where, "tool:post", data, bytes_format=bytes_format, json_data=json_data
        )
        assert GH not in text
        assert base64.b64encode(GH.encode()).decode()[:24] not in text


async def test_text_a_conversion_makes_is_redacted(tmp_path: Path) -> None:
    @dataclasses.dataclass
    class Request:
        url: str

    class Opaque:
        def __repr__(self) -> str:
            return f"Opaque(secret={SLACK})"

    data = {"request": Request(f"https://x/?token={GH}"), "thing": Opaque()}
    text = await _logged(tmp_path, "tool:pre", data, json_data=False)
    assert GH not in text
    assert SLACK not in text


def test_every_control_format_and_separator_character_is_escaped() -> None:
    """Every code point of the categories Cc, Cf, Zl, Zp and Cs this Python knows."""
    missed = [
        f"U+{point:04X}"
        for point in range(0x110000)
        if unicodedata.category(chr(point)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
        and INVISIBLE.fullmatch(chr(point)) is None
    ]
    assert missed == []
    assert visible("a\u202eb\u2066c\u2069\x9b\u200b\U000e0041") == (
        "a\\u202eb\\u2066c\\u2069\\u009b\\u200b\\udb40\\udc41"
    )
    assert visible("plain text, é, 日本, emoji 😀") == "plain text, é, 日本, emoji 😀"


async def test_a_value_that_cannot_be_redacted_is_not_written_and_costs_only_itself(
    tmp_path: Path,
) -> None:
    """Whatever the rules can or cannot read, the token never reaches the file; a value the
    redaction fails on is replaced by a marker, and the record keeps its other values."""
    data = {"command": "cat .env", "output": f"\ud83d TOKEN={GH}"}
    text = await _logged(tmp_path, "tool:post", data, json_data=False)
    assert GH not in text
    record = json.loads(text)
    assert record["data"]["command"] == "cat .env"
    output = record["data"]["output"]
    assert "__redaction_failed__" in output or "[REDACTED:github_token]" in output
