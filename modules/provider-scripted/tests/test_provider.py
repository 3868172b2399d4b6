"""The scripted provider: YAML and JSON scripts, expect, match, exhaustion, errors, cost."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from amplifier_core.llm_errors import LLMError
from amplifier_core.message_models import ChatRequest, Message, ThinkingBlock
from amplifier_module_provider_scripted import ScriptedProvider, ScriptError

from .support import after_tools, text_of, user, write

DOCS = Path(__file__).resolve().parents[3] / "docs" / "scripted-provider.md"

YAML_SCRIPT = """
    # two turns: a tool call, then the answer
    - text: Let me look.
      tool_calls:
        - name: read_file
          input: {file_path: README.md}
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
    assert provider.remaining == 2

    first = await provider.complete(user("Summarise README.md please"))
    assert text_of(first) == "Let me look."
    assert [c.model_dump() for c in provider.parse_tool_calls(first)] == [
        {"id": "call_1", "name": "read_file", "arguments": {"file_path": "README.md"}},
        {"id": "my-id", "name": "bash", "arguments": {"command": "ls"}},
    ]
    assert first.finish_reason == "tool_use"

    second = await provider.complete(
        after_tools("Summarise README.md please", first, ["# Demo\ntext", "README.md"])
    )
    assert text_of(second) == "It is a demo."
    assert second.tool_calls is None
    assert second.finish_reason == "end_turn"
    assert second.usage is not None
    assert (second.usage.input_tokens, second.usage.output_tokens) == (120, 9)
    assert second.usage.total_tokens == 129
    assert provider.remaining == 0
    assert [len(r.messages) for r in provider.requests] == [1, 4]


async def test_thinking_comes_first_as_a_thinking_block() -> None:
    provider = ScriptedProvider([{"thinking": "Plan: answer.", "text": "Answer."}])
    response = await provider.complete(user("q"))
    assert isinstance(response.content[0], ThinkingBlock)
    assert response.content[0].thinking == "Plan: answer."
    assert text_of(response) == "Answer."


async def test_usage_is_estimated_as_characters_over_four() -> None:
    script = [
        {"text": "x" * 40, "tool_calls": [{"name": "t", "input": {"k": "v"}}]},
        {"text": "abc", "usage": {"input_tokens": 7}},
    ]
    provider = ScriptedProvider(script)
    response = await provider.complete(user("y" * 100))
    assert response.usage is not None
    # input: 100 chars -> 25; output: 40 chars of text + len('{"k": "v"}') = 10 -> 13 (ceil)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (25, 13)
    response = await provider.complete(user("z"))
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (7, 1)


async def test_json_script_with_turns_mapping_prompts_and_bare_strings(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    turns = [
        "Hello there.",
        {"tool_calls": [{"name": "todo", "input": {"items": ["a"]}}]},
        {"text": "cut", "stop_reason": "max_tokens"},
    ]
    path.write_text(json.dumps({"prompts": ["hi"], "turns": turns}), encoding="utf-8")
    provider = ScriptedProvider(path, model="offline-1")
    assert text_of(await provider.complete(user("hi"))) == "Hello there."
    assert (await provider.list_models())[0].id == "offline-1"
    assert provider.get_info().defaults["model"] == "offline-1"
    second = await provider.complete(user("next"))
    assert second.tool_calls is not None
    assert second.tool_calls[0].id == "call_1"
    assert second.content == []
    third = await provider.complete(user("more"))
    assert third.finish_reason == "max_tokens"


async def test_expect_mismatch_names_the_file_line_and_entry(tmp_path: Path) -> None:
    path = write(tmp_path, "session.yaml", YAML_SCRIPT)
    provider = ScriptedProvider(path)
    await provider.complete(user("Summarise README.md"))
    with pytest.raises(LLMError) as caught:
        await provider.complete(user("something else entirely"))
    error = caught.value
    assert error.provider == "scripted"
    assert error.retryable is False
    assert f"{path}:10 entry 1 expects" in str(error)
    assert "'# Demo'" in str(error)
    assert "'something else entirely'" in str(error)


async def test_expect_checks_every_message_since_the_last_assistant_turn() -> None:
    provider = ScriptedProvider(
        [{"tool_calls": [{"name": "a"}, {"name": "b"}]}, {"expect": "B-out", "text": "seen"}]
    )
    first = await provider.complete(user("go"))
    response = await provider.complete(after_tools("go", first, ["A-out", "B-out"]))
    assert text_of(response) == "seen"


async def test_exhaustion_is_a_clear_non_retryable_error(tmp_path: Path) -> None:
    path = write(tmp_path, "short.yaml", "- only one\n")
    provider = ScriptedProvider(path)
    await provider.complete(user("first"))
    with pytest.raises(LLMError) as caught:
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
    assert text_of(await provider.complete(user("hello"))) == "First in order."
    assert text_of(await provider.complete(user("thanks a lot"))) == "You are welcome."
    assert text_of(await provider.complete(user("how is the weather?"))) == "Sunny."
    assert text_of(await provider.complete(user("thanks again"))) == "Second in order."
    with pytest.raises(LLMError, match="<inline script> is exhausted"):
        await provider.complete(user("more"))


async def test_exhaustion_lists_match_entries_that_never_matched() -> None:
    provider = ScriptedProvider(["only", {"match": "deploy", "text": "Deploying."}])
    await provider.complete(user("x"))
    with pytest.raises(LLMError, match=r"unmatched entries: 1 \(match 'deploy'\)"):
        await provider.complete(user("y"))


async def test_an_error_entry_rehearses_a_provider_failure() -> None:
    provider = ScriptedProvider(
        [{"error": {"message": "overloaded", "status": 529, "retryable": True}}, {"error": "down"}]
    )
    with pytest.raises(LLMError) as caught:
        await provider.complete(user("x"))
    assert (caught.value.status_code, caught.value.retryable) == (529, True)
    assert "entry 0: overloaded" in str(caught.value)
    with pytest.raises(LLMError, match="entry 1: down") as caught:
        await provider.complete(user("y"))
    assert caught.value.status_code is None


async def test_the_latest_input_reads_block_content() -> None:
    provider = ScriptedProvider([{"expect": "in a block", "text": "ok"}])
    request = ChatRequest(
        messages=[Message(role="user", content=[{"type": "text", "text": "said in a block"}])]
    )
    assert text_of(await provider.complete(request)) == "ok"


async def test_per_call_cost_does_not_grow_with_the_script() -> None:
    entries = 5_000
    script = [{"match": f"needle-{i}", "text": f"m{i}"} for i in range(3)]
    script += [f"answer {i}" for i in range(entries)]
    provider = ScriptedProvider(script)
    for i in range(entries):
        assert text_of(await provider.complete(user(f"q{i}"))) == f"answer {i}"
    # each call looks at the 3 waiting match entries and one entry in order: never the rest
    assert provider.script.examined == entries * 4


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "- text: fine\n- text: typo\n  tool_call: []\n",
            ":3: entry 1: tool_call: unknown key 'tool_call' (did you mean 'tool_calls'?)",
        ),
        ("- tool_calls: [{input: {}}]\n", ":1: entry 0: tool_calls[0].name: missing required key"),
        ("- stop_reason: done\n", "entry 0: stop_reason: expected one of 'end_turn'"),
        ("- usage: {input_tokens: many}\n", "entry 0: usage.input_tokens: expected an integer"),
        ("text: not a list\n", "expected a list of turns (or a mapping with `turns`), got dict"),
        ("- text: [unclosed\n", ":2:1: invalid YAML: "),
    ],
)
def test_bad_scripts_are_rejected_naming_file_line_and_entry(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(ScriptError) as caught:
        ScriptedProvider(path)
    assert str(path) in str(caught.value)
    assert problem in str(caught.value)


def test_bad_json_and_missing_files_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", '[\n  {"text": "a",}\n]\n')
    with pytest.raises(ScriptError, match=re.escape(f"{path}:2:") + ".*invalid JSON"):
        ScriptedProvider(path)
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ScriptError, match=f"{re.escape(str(missing))}: cannot read the script"):
        ScriptedProvider(missing)


async def test_the_documented_example_plays_as_documented(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    example = next(block for block in blocks if block.startswith("# session.yaml"))
    provider = ScriptedProvider(write(tmp_path, "session.yaml", example))
    first = await provider.complete(user("Please summarise README.md"))
    assert first.tool_calls is not None
    assert first.tool_calls[0].model_dump() == {
        "id": "call_1",
        "name": "read_file",
        "arguments": {"file_path": "README.md"},
    }
    thanks = await provider.complete(user("thank you, go on"))
    assert text_of(thanks) == "You are welcome."
    second = await provider.complete(
        after_tools("Please summarise README.md", first, ["# Project"])
    )
    assert second.usage is not None
    assert second.usage.output_tokens == 9
    last = await provider.complete(user("anything"))
    assert text_of(last) == "A bare string is a turn with just that text."
    with pytest.raises(LLMError, match="exhausted"):
        await provider.complete(user("more"))


async def test_the_documented_error_messages_are_the_real_ones(tmp_path: Path) -> None:
    documented = DOCS.read_text(encoding="utf-8")
    example = re.findall(r"```yaml\n(# session.yaml.*?)```", documented, re.DOTALL)[0]
    provider = ScriptedProvider(write(tmp_path, "session.yaml", example))
    first = await provider.complete(user("summarise README"))
    with pytest.raises(LLMError) as mismatch:
        await provider.complete(after_tools("summarise README", first, ["No such file: README.md"]))
    shown = str(mismatch.value).replace(str(tmp_path / "session.yaml"), "session.yaml")
    assert shown in documented

    short = ScriptedProvider(write(tmp_path, "session.yaml", "- a\n- b\n- c\n"))
    for prompt in ("1", "2", "3"):
        await short.complete(user(prompt))
    with pytest.raises(LLMError) as exhausted:
        await short.complete(user("and now?"))
    shown = str(exhausted.value).replace(str(tmp_path / "session.yaml"), "session.yaml")
    assert shown in documented

    path = write(tmp_path, "session.yaml", "- text: a\n  tool_calls:\n    - nmae: read_file\n")
    with pytest.raises(ScriptError) as caught:
        ScriptedProvider(path)
    shown = str(caught.value).replace(str(path), "session.yaml")
    assert shown in documented
