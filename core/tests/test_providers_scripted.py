"""The scripted provider: YAML and JSON scripts, expect, match, exhaustion, errors."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.chat import ChatRequest, Provider, ProviderError
from amplifier_core.providers import ScriptedProvider, make_provider

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scripted-provider.md"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def user(text: str) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}])


def after_tools(prompt: str, calls: list[dict[str, Any]], results: list[str]) -> ChatRequest:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": "", "tool_calls": calls},
    ]
    for call, result in zip(calls, results, strict=True):
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "name": call["name"],
                "content": result,
                "is_error": False,
            }
        )
    return ChatRequest(messages=messages)


YAML_SCRIPT = """
    # two turns: a tool call, then the answer
    - text: Let me look.
      tool_calls:
        - name: read_file
          input: {path: README.md}
        - name: bash
          input: {command: ls}
          id: my-id
      expect: README
    - text: It is a demo.
      expect: "# Demo"
      usage: {input_tokens: 120, output_tokens: 9}
"""


async def test_yaml_script_plays_turns_in_order_with_deterministic_ids(tmp_path: Path) -> None:
    provider = ScriptedProvider(write(tmp_path, "session.yaml", YAML_SCRIPT))
    assert isinstance(provider, Provider)
    assert provider.remaining == 2

    first = await provider.complete(user("Summarise README.md please"))
    assert first.text == "Let me look."
    assert [c.model_dump() for c in first.tool_calls] == [
        {"id": "call_1", "name": "read_file", "input": {"path": "README.md"}},
        {"id": "my-id", "name": "bash", "input": {"command": "ls"}},
    ]
    assert first.stop_reason == "tool_use"
    assert first.model == "scripted"
    calls = first.as_message()["tool_calls"]

    second = await provider.complete(
        after_tools("Summarise README.md please", calls, ["# Demo\ntext", "README.md"])
    )
    assert second.text == "It is a demo."
    assert second.tool_calls == []
    assert second.stop_reason == "end_turn"
    assert (second.usage.input_tokens, second.usage.output_tokens) == (120, 9)
    assert provider.remaining == 0
    assert [len(r.messages) for r in provider.requests] == [1, 4]


async def test_usage_is_estimated_as_characters_over_four(tmp_path: Path) -> None:
    script = [
        {"text": "x" * 40, "tool_calls": [{"name": "t", "input": {"k": "v"}}]},
        {"text": "abc", "usage": {"input_tokens": 7}},
    ]
    provider = ScriptedProvider(script)
    response = await provider.complete(user("y" * 100))
    # input: 100 chars -> 25; output: 40 chars of text + len('{"k": "v"}') = 10 -> 13 (ceil)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (25, 13)
    response = await provider.complete(user("z"))
    assert (response.usage.input_tokens, response.usage.output_tokens) == (7, 1)


async def test_json_script_with_turns_mapping_and_bare_strings(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            {
                "turns": [
                    "Hello there.",
                    {"tool_calls": [{"name": "todo", "input": {"items": ["a"]}}]},
                    {"text": "cut", "stop_reason": "max_tokens"},
                ]
            }
        ),
        encoding="utf-8",
    )
    provider = ScriptedProvider(path, model="offline-1")
    first = await provider.complete(user("hi"))
    assert (first.text, first.model) == ("Hello there.", "offline-1")
    second = await provider.complete(user("next"))
    assert second.tool_calls[0].id == "call_1"
    assert second.text == ""
    third = await provider.complete(user("more"))
    assert third.stop_reason == "max_tokens"


async def test_expect_mismatch_names_the_file_line_and_entry(tmp_path: Path) -> None:
    path = write(tmp_path, "session.yaml", YAML_SCRIPT)
    provider = ScriptedProvider(path)
    await provider.complete(user("Summarise README.md"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(user("something else entirely"))
    error = caught.value
    assert error.provider == "scripted"
    assert error.retryable is False
    assert f"{path}:10 entry 1 expects" in str(error)
    assert "'# Demo'" in str(error)
    assert "'something else entirely'" in str(error)


async def test_expect_checks_every_message_since_the_last_assistant_turn() -> None:
    provider = ScriptedProvider(
        [{"tool_calls": [{"name": "a"}, {"name": "b"}]}, {"expect": "B-out"}]
    )
    first = await provider.complete(user("go"))
    calls = first.as_message()["tool_calls"]
    response = await provider.complete(after_tools("go", calls, ["A-out", "B-out"]))
    assert response.text == ""


async def test_exhaustion_is_a_clear_non_retryable_error(tmp_path: Path) -> None:
    path = write(tmp_path, "short.yaml", "- only one\n")
    provider = ScriptedProvider(path)
    await provider.complete(user("first"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(user("and now?"))
    message = str(caught.value)
    assert caught.value.retryable is False
    assert f"script {path} is exhausted" in message
    assert "call 2 has no reply left (1 entry)" in message
    assert "'and now?'" in message


async def test_match_selects_a_reply_by_the_latest_message() -> None:
    provider = ScriptedProvider(
        [
            {"match": "weather", "text": "Sunny."},
            "First in order.",
            {"match": "thanks", "text": "You are welcome."},
            "Second in order.",
        ]
    )
    assert (await provider.complete(user("hello"))).text == "First in order."
    assert (await provider.complete(user("thanks a lot"))).text == "You are welcome."
    assert (await provider.complete(user("how is the weather?"))).text == "Sunny."
    assert (await provider.complete(user("thanks again"))).text == "Second in order."
    with pytest.raises(ProviderError, match="<inline script> is exhausted"):
        await provider.complete(user("more"))


async def test_exhaustion_lists_match_entries_that_never_matched() -> None:
    provider = ScriptedProvider(["only", {"match": "deploy", "text": "Deploying."}])
    await provider.complete(user("x"))
    with pytest.raises(ProviderError, match=r"unmatched entries: 1 \(match 'deploy'\)"):
        await provider.complete(user("y"))


async def test_an_error_entry_rehearses_a_provider_failure() -> None:
    provider = ScriptedProvider(
        [{"error": {"message": "overloaded", "status": 529, "retryable": True}}, {"error": "down"}]
    )
    with pytest.raises(ProviderError) as caught:
        await provider.complete(user("x"))
    assert (caught.value.status, caught.value.retryable) == (529, True)
    assert "entry 0: overloaded" in str(caught.value)
    with pytest.raises(ProviderError, match="entry 1: down") as caught:
        await provider.complete(user("y"))
    assert caught.value.status is None


async def test_requests_are_recorded_as_copies() -> None:
    provider = ScriptedProvider(["ok"])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "original"}]
    await provider.complete(ChatRequest(messages=messages))
    messages[0]["content"] = "changed later"
    assert provider.requests[0].messages[0]["content"] == "original"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "- text: fine\n- text: typo\n  tool_call: []\n",
            ":2: entry 1: tool_call: Extra inputs are not permitted",
        ),
        ("- tool_calls: [{input: {}}]\n", ":1: entry 0: tool_calls.0.name: Field required"),
        ("- stop_reason: done\n", "entry 0: stop_reason: Input should be"),
        ("- usage: {input_tokens: many}\n", "entry 0: usage.input_tokens"),
        ("text: not a list\n", "expected a list of turns (or a mapping with `turns`), got dict"),
        ("- text: [unclosed\n", ":2:1: invalid YAML: while parsing a flow sequence"),
    ],
)
def test_bad_scripts_are_rejected_naming_file_line_and_entry(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(ProviderError) as caught:
        ScriptedProvider(path)
    assert str(path) in str(caught.value)
    assert problem in str(caught.value)


def test_bad_json_and_missing_files_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", '[\n  {"text": "a",}\n]\n')
    with pytest.raises(ProviderError, match=re.escape(f"{path}:2:") + ".*invalid JSON"):
        ScriptedProvider(path)
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ProviderError, match=f"cannot read script {re.escape(str(missing))}"):
        ScriptedProvider(missing)


async def test_make_provider_resolves_scripts_against_base_dir(tmp_path: Path) -> None:
    write(tmp_path, "turns.yml", "- from the file\n")
    provider = make_provider({"type": "scripted", "script": "turns.yml"}, base_dir=tmp_path)
    assert isinstance(provider, ScriptedProvider)
    assert (await provider.complete(user("x"))).text == "from the file"
    inline = make_provider({"type": "scripted", "script": ["inline"], "model": "m"})
    response = await inline.complete(user("x"))
    assert (response.text, response.model) == ("inline", "m")
    with pytest.raises(ProviderError, match=r"provider\.script: Field required"):
        make_provider({"type": "scripted"})


async def test_the_documented_example_plays_as_documented(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    example = next(block for block in blocks if block.startswith("# session.yaml"))
    provider = ScriptedProvider(write(tmp_path, "session.yaml", example))
    first = await provider.complete(user("Please summarise README.md"))
    assert first.tool_calls[0].model_dump() == {
        "id": "call_1",
        "name": "read_file",
        "input": {"path": "README.md"},
    }
    thanks = await provider.complete(user("thank you, go on"))
    assert thanks.text == "You are welcome."
    second = await provider.complete(
        after_tools("Please summarise README.md", first.as_message()["tool_calls"], ["# Project"])
    )
    assert second.usage.output_tokens == 9
    last = await provider.complete(user("anything"))
    assert last.text == "A bare string is a turn with just that text."
    with pytest.raises(ProviderError, match="exhausted"):
        await provider.complete(user("more"))


async def test_the_documented_error_messages_are_the_real_ones(tmp_path: Path) -> None:
    documented = DOCS.read_text(encoding="utf-8")
    example = re.findall(r"```yaml\n(# session.yaml.*?)```", documented, re.DOTALL)[0]
    provider = ScriptedProvider(write(tmp_path, "session.yaml", example))
    first = await provider.complete(user("summarise README"))
    calls = first.as_message()["tool_calls"]
    with pytest.raises(ProviderError) as mismatch:
        await provider.complete(after_tools("summarise README", calls, ["No such file: README.md"]))
    shown = str(mismatch.value).replace(str(tmp_path / "session.yaml"), "session.yaml")
    assert shown in documented

    short = ScriptedProvider(write(tmp_path, "session.yaml", "- a\n- b\n- c\n"))
    for prompt in ("1", "2", "3"):
        await short.complete(user(prompt))
    with pytest.raises(ProviderError) as exhausted:
        await short.complete(user("and now?"))
    shown = str(exhausted.value).replace(str(tmp_path / "session.yaml"), "session.yaml")
    assert shown in documented

    path = write(tmp_path, "session.yaml", "- text: a\n  tool_calls:\n    - nmae: read_file\n")
    with pytest.raises(ProviderError) as caught:
        ScriptedProvider(path)
    shown = str(caught.value).replace(str(path), "session.yaml")
    assert shown in documented
