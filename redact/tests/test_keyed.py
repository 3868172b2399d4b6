"""A string under a key that names a credential is a secret in nested data, as in text."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_hooks_redact import build_redactor, parse_config

REDACTOR = build_redactor(parse_config({}))


@pytest.mark.parametrize(
    "key", ["password", "DB_PASSWORD", "Db_PassWord", "pw", "pwd", "api_key", "client_secret"]
)
@pytest.mark.parametrize("value", ["correct-horse-battery", "Hunter2SecretValue", 'a"b\\c 9x'])
def test_a_value_under_a_credential_key_never_comes_back(key: str, value: str) -> None:
    data: dict[str, Any] = {"tool_result": {"config": {key: value, "host": "db.local"}}}
    redacted, counts = REDACTOR.redact(data)
    config = redacted["tool_result"]["config"]
    assert value not in repr(redacted)
    assert config[key] == "[REDACTED:credential_assignment]"
    assert config["host"] == "db.local"
    assert counts == {"credential_assignment": 1}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("password", "********"),  # already masked
        ("password", "${DB_PASSWORD}"),  # a reference, not the secret
        ("auth", "required"),  # a weak name wants a generated-looking value
        ("token_count", "Hunter2SecretValue"),  # the key goes on past the name
        ("passenger", "Hunter2SecretValue"),
        ("password_hint", "the dog's name"),
    ],
)
def test_placeholders_and_other_keys_are_left_alone(key: str, value: str) -> None:
    data = {"settings": {key: value}}
    redacted, counts = REDACTOR.redact(data)
    assert redacted is data
    assert counts == {}


def test_the_key_is_read_in_lists_of_records_and_beside_other_secrets() -> None:
    token = "ghp_" + "Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o"
    data = {"users": [{"name": "a", "password": "s3cret-One!"}, {"name": "b", "token": token}]}
    redacted, counts = REDACTOR.redact(data)
    assert "s3cret-One!" not in repr(redacted)
    assert token not in repr(redacted)
    assert redacted["users"][0]["name"] == "a"
    assert counts["credential_assignment"] >= 1
