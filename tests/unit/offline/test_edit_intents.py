"""The offline model creates and changes files: its edit phrases call write_file and edit_file."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.offline.test_behaviour import SHIPPED, arguments, tool
from tui_agent.offline.intents import match_intent

EDITS = [tool("write_file", "path", "content", required=("path", "content")), tool("edit_file", "path", "edits")]


@pytest.mark.parametrize(
    ("prompt", "name", "expected"),
    [
        ("create hello.py that prints hi", "write_file", {"path": "hello.py", "content": "print('hi')\n"}),
        (
            "Create a file called app.js printing 'hello world'",
            "write_file",
            {"path": "app.js", "content": "console.log('hello world');\n"},
        ),
        ('write notes.txt containing "buy milk"', "write_file", {"path": "notes.txt", "content": "buy milk\n"}),
        ("in hello.py change hi to hello", "edit_file", {"path": "hello.py", "edits": [{"old": "hi", "new": "hello"}]}),
        (
            "In a.py, replace 'x = 1' with 'x = 2'.",
            "edit_file",
            {"path": "a.py", "edits": [{"old": "x = 1", "new": "x = 2"}]},
        ),
    ],
)
def test_edit_phrases_call_the_edit_tools(prompt: str, name: str, expected: dict[str, Any]) -> None:
    [call], said = match_intent(prompt, [*SHIPPED, *EDITS])
    assert call.name == name and arguments(call) == expected
    assert said is not None and expected["path"] in said  # the reply says what it is about to do


def test_without_the_edit_tools_the_phrases_call_nothing_else() -> None:
    assert match_intent("in hello.py change hi to hello", SHIPPED) == ([], None)
