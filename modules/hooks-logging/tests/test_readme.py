"""The README documents every config key and the record schema the code writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from amplifier_module_hooks_logging import RECORD_SCHEMA, LoggingConfig, LoggingHook, parse_config

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def table_keys(heading: str) -> list[str]:
    section = README.split(heading, 1)[1]
    body = section.split("\n#", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` +\|", body, flags=re.MULTILINE)


def test_every_config_key_is_in_the_config_table() -> None:
    assert table_keys("## Configuration") == list(LoggingConfig.model_fields)


def test_every_documented_default_is_the_real_default() -> None:
    defaults = parse_config({}).model_dump()
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    for key, value in defaults.items():
        row = next(line for line in section.splitlines() if line.startswith(f"| `{key}` |"))
        shown = re.split(r"(?<!\\)\|", row)[3].strip().strip("`")
        assert (shown if isinstance(value, str) else json.loads(shown)) == value, key


def test_record_keys_are_documented_in_order(tmp_path: Path) -> None:
    hook = LoggingHook(parse_config({"path": str(tmp_path / "e.jsonl")}), session_id="s")
    hook.handler("tool:pre", {})
    hook.close()
    record = json.loads((tmp_path / "e.jsonl").read_text())
    assert table_keys("## Record schema") == list(record)
    assert json.dumps(RECORD_SCHEMA, separators=(",", ":")) in README
