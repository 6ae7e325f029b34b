"""The offline model's default choices: which tool a prompt asks for, and answers from tool results."""

from __future__ import annotations

from typing import Any

import pytest

from tui_agent.offline.behaviour import answer_from_tool_results, default_reply
from tui_agent.offline.intents import match_tools, places_in
from tui_agent.offline.scenario import ToolCallSpec


def tool(name: str, *parameters: str, required: tuple[str, ...] = ()) -> dict[str, Any]:
    properties = {parameter: {"type": "string"} for parameter in parameters}
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def arguments(call: ToolCallSpec) -> dict[str, Any]:
    """The call's arguments as an object (the offline model's own calls are never raw JSON text)."""
    assert isinstance(call.arguments, dict)
    return call.arguments


SHIPPED = [
    tool("get_current_weather", "to_user", "location", "unit", required=("location",)),
    tool("calculate", "expression", required=("expression",)),
    tool("current_time", "timezone"),
    tool("list_directory", "path"),
    tool("read_file", "path", "start_line", required=("path",)),
    tool("search_files", "text", "path", required=("text",)),
    tool("run_shell", "command", required=("command",)),
    tool("web_fetch", "url", required=("url",)),
]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("What's the temperature in San Francisco, CA?", [("get_current_weather", {"location": "San Francisco, CA"})]),
        ("What is (2 + 3) * 4?", [("calculate", {"expression": "(2 + 3) * 4"})]),
        ("what time is it in Tokyo?", [("current_time", {"timezone": "Asia/Tokyo"})]),
        ("list the files in this folder", [("list_directory", {"path": "."})]),
        ("please read README.md", [("read_file", {"path": "README.md"})]),
        ("search the files for 'TODO'", [("search_files", {"text": "TODO"})]),
        ("run `ls -la` for me", [("run_shell", {"command": "ls -la"})]),
        (
            "fetch https://docs.python.org/3/whatsnew/3.13.html.",
            [("web_fetch", {"url": "https://docs.python.org/3/whatsnew/3.13.html"})],
        ),
        ("read https://example.com/notes.txt please", [("web_fetch", {"url": "https://example.com/notes.txt"})]),
        ("tell me a story", []),
    ],
)
def test_prompts_pick_the_right_tool_and_arguments(prompt: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    calls = match_tools(prompt, SHIPPED)
    got = [(c.name, {k: v for k, v in arguments(c).items() if k != "to_user"}) for c in calls]
    assert got == expected


def test_to_user_only_on_the_first_weather_call_and_only_with_the_parameter() -> None:
    calls = match_tools("weather in Oslo and Rome", SHIPPED)
    assert [list(arguments(c)) for c in calls] == [["to_user", "location"], ["location"]]
    assert match_tools("what is 2 + 2", SHIPPED)[0].arguments == {"expression": "2 + 2"}


def test_a_tool_named_in_the_prompt_is_called_with_quoted_arguments() -> None:
    calls = match_tools('use lookup_word with "serendipity"', [tool("lookup_word", "word", required=("word",))])
    assert [(c.name, c.arguments) for c in calls] == [("lookup_word", {"word": "serendipity"})]


def test_places() -> None:
    assert places_in("weather for the Bahamas & Paris?") == ["Bahamas", "Paris"]
    assert places_in("hello") == []


def calls_then_results(*results: tuple[str, str]) -> list[dict[str, Any]]:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for i, (name, _) in enumerate(results)
    ]
    tool_messages = [
        {"role": "tool", "tool_call_id": f"c{i}", "content": content} for i, (_, content) in enumerate(results)
    ]
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *tool_messages,
    ]


def test_answers_read_the_results() -> None:
    weather = '{"location": "Oslo", "temperature": 3, "unit": "celsius", "forecast": "snow"}'
    assert (
        answer_from_tool_results(calls_then_results(("w", weather)))
        == "The weather in Oslo is 3 °C and snow right now."
    )
    both = answer_from_tool_results(
        calls_then_results(("w", weather), ("w", '{"location": "Rome", "temperature": 20}'))
    )
    assert "- **Oslo**: 3 °C and snow\n" in both and "- **Rome**: 20\n" in both
    assert answer_from_tool_results(calls_then_results(("calculate", "20"))) == "`calculate` returned **20**.\n"
    listing = answer_from_tool_results(calls_then_results(("run_shell", "exit status 0\na\nb")))
    assert listing.startswith("`run_shell` returned:") and "```\nexit status 0\na\nb\n```" in listing


def test_a_tool_result_is_answered_even_when_tools_are_offered() -> None:
    body = {"messages": calls_then_results(("calculate", "20")), "tools": SHIPPED}
    reply = default_reply(body)
    assert reply.tool_calls == [] and "20" in reply.text
