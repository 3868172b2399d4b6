"""The module mounted on the real kernel: a HookRegistry, real emits, real chaining."""

from __future__ import annotations

import copy
import json
from importlib.metadata import entry_points
from typing import Any

import amplifier_module_hooks_redaction
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_module_hooks_redaction import mount

GH = "ghp_" + "M4rK9sT2vQ7wX1yZ3aB5cD6eF8gH0iJ2kL4mN6"
SK = "sk-ant-api03-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3" + "AA"
CARD = "4242 4242 4242 4242"


class Coordinator:
    """The part of a coordinator a hook module touches: ``hooks``."""

    def __init__(self) -> None:
        self.hooks = HookRegistry()


def provider_request() -> dict[str, Any]:
    return {
        "provider": "anthropic",
        "model": "claude-sonnet",
        "messages": [
            {"role": "system", "content": "You are helpful. Today is 2025-03-14T09:26:53Z."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"deploy with token {GH} and mail ops@example.com"},
                    {"type": "text", "text": "run 550e8400-e29b-41d4-a716-446655440000"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_01A09q90qw90lq917835lq9",
                        "name": "bash",
                        "input": {"command": f"ANTHROPIC_API_KEY={SK} ./run.sh"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                        "content": f"charged card {CARD} at 1718000000000; commit 3f78685",
                    }
                ],
            },
        ],
    }


async def test_provider_request_is_redacted_before_it_leaves() -> None:
    coordinator = Coordinator()
    cleanup = await mount(coordinator, {})
    seen_by_provider: list[dict[str, Any]] = []

    async def provider_side(event: str, data: dict[str, Any]) -> HookResult:
        seen_by_provider.append(data)
        return HookResult()

    coordinator.hooks.register("provider:request", provider_side, priority=50, name="provider")
    data = provider_request()
    original = copy.deepcopy(data)

    result = await coordinator.hooks.emit("provider:request", data)

    assert result.action == "continue"
    assert result.data is not None
    final = result.data
    messages = final["messages"]
    assert messages[0] == original["messages"][0]
    assert messages[1]["content"][0]["text"] == (
        "deploy with token [REDACTED:github_token] and mail [REDACTED:email]"
    )
    assert messages[1]["content"][1] == original["messages"][1]["content"][1]
    assert messages[2]["content"][0]["input"] == {
        "command": "ANTHROPIC_API_KEY=[REDACTED:anthropic_api_key] ./run.sh"
    }
    assert messages[2]["content"][0]["id"] == "toolu_01A09q90qw90lq917835lq9"
    assert messages[3]["content"][0]["content"] == (
        "charged card [REDACTED:payment_card] at 1718000000000; commit 3f78685"
    )
    assert final["redaction"] == {
        "github_token": 1,
        "email": 1,
        "anthropic_api_key": 1,
        "payment_card": 1,
    }
    assert result.user_message == (
        "Redacted 4 secrets (anthropic_api_key: 1, email: 1, github_token: 1, payment_card: 1)"
    )
    assert GH not in json.dumps(final)
    assert SK not in json.dumps(final)
    # The later handler (the provider side) saw only redacted data.
    assert seen_by_provider == [final]
    # The caller's data object is untouched.
    assert data == original
    cleanup()
    assert coordinator.hooks.list_handlers("provider:request") == {"provider:request": ["provider"]}


async def test_tool_post_result_dict_is_redacted() -> None:
    coordinator = Coordinator()
    await mount(coordinator, None)
    data = {
        "tool_name": "bash",
        "tool_input": {"command": "cat .env"},
        "tool_result": {
            "success": True,
            "output": "DB_PASSWORD=s3cr3t-Pa55\nAWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP\n",
        },
    }
    result = await coordinator.hooks.emit("tool:post", data)
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["tool_result"] == {
        "success": True,
        "output": (
            "DB_PASSWORD=[REDACTED:credential_assignment]\n"
            "AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key_id]\n"
        ),
    }
    assert result.data["tool_input"] is data["tool_input"]


async def test_nothing_to_redact_continues_with_the_data_untouched() -> None:
    coordinator = Coordinator()
    await mount(coordinator, {})
    seen: list[dict[str, Any]] = []

    def observer(event: str, data: dict[str, Any]) -> None:
        seen.append(data)

    coordinator.hooks.register("tool:post", observer, priority=10, name="observer")
    data = {
        "tool_name": "read_file",
        "tool_result": {"output": "version 1.2.3 built 2025-03-14T09:26:53.123456+00:00"},
        "items": [["550e8400-e29b-41d4-a716-446655440000", 1718000000000]],
    }
    before = copy.deepcopy(data)
    result = await coordinator.hooks.emit("tool:post", data)
    assert result.action == "continue"
    assert result.user_message is None
    assert data == before
    # The handler after us got the very same values (JSON already: the kernel copies nothing,
    # and neither do we).
    assert seen[0]["tool_result"] is data["tool_result"]
    assert seen[0]["items"] is data["items"]


async def test_events_not_subscribed_pass_through() -> None:
    coordinator = Coordinator()
    await mount(coordinator, {})
    result = await coordinator.hooks.emit("tool:pre", {"tool_input": {"command": GH}})
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["tool_input"] == {"command": GH}


async def test_two_mounts_clean_up_independently() -> None:
    coordinator = Coordinator()
    first = await mount(coordinator, {"events": ["tool:post"]})
    second = await mount(coordinator, {"events": ["tool:post"], "rules": ["pii"]})
    assert coordinator.hooks.list_handlers("tool:post") == {
        "tool:post": ["hooks-redaction", "hooks-redaction"]
    }
    first()
    result = await coordinator.hooks.emit("tool:post", {"out": f"{GH} ops@example.com"})
    assert result.data is not None
    assert result.data["out"] == f"{GH} [REDACTED:email]"
    second()
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": []}


def test_entry_point_names_mount() -> None:
    (entry,) = entry_points(group="amplifier.modules", name="hooks-redaction")
    assert entry.value == "amplifier_module_hooks_redaction:mount"
    assert entry.load() is mount
    assert set(amplifier_module_hooks_redaction.__all__) <= set(
        dir(amplifier_module_hooks_redaction)
    )
