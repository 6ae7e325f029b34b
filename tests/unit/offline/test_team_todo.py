"""The offline model's todo phrase in a team: a member's input is the person's prompt with the other members'
replies joined after it (`[planner] ...`); the list is made from the person's words only."""

from __future__ import annotations

from tui_agent.offline.intents import Tool
from tui_agent.offline.intents_plan import todo_list

TODO = Tool({"type": "function", "function": {"name": "todo", "parameters": {"properties": {"items": {}}}}})


def test_a_members_todo_list_leaves_out_the_other_members_replies() -> None:
    prompt = "make a todo list for the release: write the notes, tag it and publish it"
    joined = f"{prompt}\n\n[planner] Here is the plan.\n\n[planner] `todo` returned:\n\n```\nTodo list updated\n```"
    (call,) = todo_list(TODO, joined)
    assert isinstance(call.arguments, dict)
    items: list[dict[str, str]] = call.arguments["items"]
    assert [item["text"] for item in items] == ["Write the notes", "Tag it", "Publish it"]
