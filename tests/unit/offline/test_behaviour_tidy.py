"""The offline model's rough edges, tidied: unquoted commands, silent tool calls, denials read as sentences."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.unit.offline.test_behaviour import SHIPPED, arguments
from tui_agent.agent.conversation import INTERRUPTED_RESULT
from tui_agent.offline.behaviour import answer_from_tool_results, default_reply
from tui_agent.offline.intents import match_tools


@pytest.mark.parametrize(
    ("prompt", "command"),
    [
        ("run ls", "ls"),
        ("please run git status", "git status"),
        ("run ls -la for me", "ls -la"),
        ("execute pwd?", "pwd"),
        ('run "ls -la"', "ls -la"),
    ],
)
def test_a_command_without_quotes_is_run(prompt: str, command: str) -> None:
    calls = match_tools(prompt, SHIPPED)
    assert [(c.name, arguments(c)) for c in calls] == [("run_shell", {"command": command})]


@pytest.mark.parametrize("prompt", ["how do I run a marathon?", "run", "I like to run."])
def test_running_that_is_not_a_command_calls_nothing(prompt: str) -> None:
    assert match_tools(prompt, SHIPPED) == []


def test_a_tool_call_without_to_user_comes_with_a_sentence() -> None:
    """No more silent (empty) assistant messages: the model says what it is about to do, as real ones do."""
    reply = default_reply(
        {"messages": [{"role": "user", "content": "list the files in this folder"}], "tools": SHIPPED}
    )
    assert [call.name for call in reply.tool_calls] == ["list_directory"]
    assert reply.text == "Let me look at the folder."


def test_a_tool_call_with_to_user_says_it_there_only() -> None:
    reply = default_reply({"messages": [{"role": "user", "content": "weather in Oslo"}], "tools": SHIPPED})
    assert reply.text == "" and "to_user" in arguments(reply.tool_calls[0])


def results(name: str, arguments: dict[str, Any], content: str) -> list[dict[str, Any]]:
    call = {"id": "c0", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": content},
    ]


@pytest.mark.parametrize(
    ("name", "arguments", "content", "answer"),
    [
        ("run_shell", {"command": "ls"}, "The user denied the call to run_shell.", "I wasn't allowed to run `ls`."),
        (
            "run_shell",
            {"command": "rm x"},
            "The tool run_shell needs the user's approval, and nobody can give it.",
            "I wasn't allowed to run `rm x`.",
        ),
        (
            "read_file",
            {"path": "a.txt"},
            "read_file failed: FileNotFoundError: a.txt",
            "I couldn't use `read_file`: FileNotFoundError: a.txt.",
        ),
        (
            "run_shell",
            {"command": "sleep 9"},
            "run_shell timed out after 5 s and was stopped.",
            "I couldn't run `sleep 9`: it timed out after 5 s and was stopped.",
        ),
        ("run_shell", {"command": "sleep 9"}, INTERRUPTED_RESULT, "`sleep 9` was interrupted before it finished."),
    ],
)
def test_denials_and_failures_are_told_as_sentences(
    name: str, arguments: dict[str, Any], content: str, answer: str
) -> None:
    assert answer_from_tool_results(results(name, arguments, content)) == answer + "\n"
