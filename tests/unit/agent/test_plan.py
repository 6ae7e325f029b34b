"""Plan mode's words: the instructions joined to the system prompt (one system message, first, as strict
templates want), the plan read from a reply, the offline model's plan, and the mode's verdicts."""

from __future__ import annotations

from tui_agent.agent.plan import PLAN_INSTRUCTIONS, plan_steps, with_plan_instructions, work_prompt
from tui_agent.offline.behaviour import default_reply
from tui_agent.tools.modes import CYCLE, decide, refusal


def test_the_instructions_join_the_one_system_message_or_come_first() -> None:
    joined = with_plan_instructions([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}])
    assert joined == [
        {"role": "system", "content": f"Be brief.\n\n{PLAN_INSTRUCTIONS}"},
        {"role": "user", "content": "hi"},
    ]
    assert with_plan_instructions([{"role": "user", "content": "hi"}])[0] == {
        "role": "system",
        "content": PLAN_INSTRUCTIONS,
    }


def test_the_plan_is_the_replys_checklist_or_else_its_numbered_list() -> None:
    reply = "I looked.\n\n- [ ] Read the config\n- [x] Write the parser\n  * [ ] Test it\n\nThat is all."
    assert plan_steps(reply) == ["Read the config", "Write the parser", "Test it"]
    assert plan_steps("Steps:\n1. Read\n2) Write") == ["Read", "Write"]
    assert plan_steps("No plan here.\n- a bullet") == []
    assert work_prompt(["Read", "Write"]).endswith("\n\n- [ ] Read\n- [ ] Write")


def test_the_offline_model_answers_plan_mode_with_a_checklist() -> None:
    body = {
        "messages": [
            {"role": "system", "content": f"You are helpful.\n\n{PLAN_INSTRUCTIONS}"},
            {"role": "user", "content": "ship it: write the notes, tag the release and publish"},
        ]
    }
    reply = default_reply(body).text
    assert plan_steps(reply) == ["Write the notes", "Tag the release", "Publish"]
    assert "nothing was changed" in reply


def test_plan_mode_runs_only_what_reads_and_sits_in_the_cycle() -> None:
    assert {effect: decide("plan", effect) for effect in ("read", "edit", "command", "unknown")} == {
        "read": "run",
        "edit": "refuse",
        "command": "refuse",
        "unknown": "refuse",
    }
    assert "Put that step in your plan instead" in refusal("plan", "write_file", "edit")
    assert CYCLE.index("plan") == CYCLE.index("auto") + 1


def test_the_offline_model_keeps_an_approved_plan_as_its_todo_list() -> None:
    todo = {"type": "function", "function": {"name": "todo", "parameters": {"type": "object", "properties": {}}}}
    body = {"messages": [{"role": "user", "content": work_prompt(["Read", "Write"])}], "tools": [todo]}
    (call,) = default_reply(body).tool_calls
    assert call.name == "todo" and call.arguments == {
        "items": [{"text": "Read", "status": "in_progress"}, {"text": "Write", "status": "pending"}]
    }
