"""A chat turn end to end: the offline model over real HTTP, real SQLite, the shipped plugins."""

from __future__ import annotations

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import (
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantTextDelta,
    MessageStatus,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from tui_agent.status import Role


async def test_plain_prompt_streams_and_is_saved(make_agent: MakeAgent) -> None:
    built = await make_agent()
    events = await collect(built.agent.send("Tell me about markdown"))
    assert isinstance(events[0], TurnStarted) and isinstance(events[1], AssistantMessageStarted)
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE and finished.error is None
    text = "".join(e.text for e in events if isinstance(e, AssistantTextDelta))
    assert text.strip()
    session = built.agent.session
    assert session is not None and session.title == "Tell me about markdown"
    stored = await built.agent.store.load_tail(session.id, 10)
    assert [(m.role, m.status) for m in stored] == [
        (Role.USER, MessageStatus.COMPLETE),
        (Role.ASSISTANT, MessageStatus.COMPLETE),
    ]
    assert stored[0].content == "Tell me about markdown" and stored[1].content == text


async def test_weather_question_runs_the_tool_and_answers_with_its_result(make_agent: MakeAgent) -> None:
    built = await make_agent()
    events = await collect(built.agent.send("What's the weather in Paris?"))
    updates = [e.call for e in events if isinstance(e, ToolCallUpdated)]
    assert updates and {u.name for u in updates} == {"get_current_weather"}
    statuses = [u.status for u in updates]
    assert statuses[0] is ToolStatus.PENDING and statuses[-1] is ToolStatus.DONE and ToolStatus.RUNNING in statuses
    assert "Paris" in (updates[-1].result or "")
    finished_messages = [e for e in events if isinstance(e, AssistantMessageFinished)]
    assert [m.status for m in finished_messages] == [MessageStatus.COMPLETE, MessageStatus.COMPLETE]
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    session = built.agent.session
    assert session is not None
    stored = await built.agent.store.load_tail(session.id, 10)
    assert [m.role for m in stored] == [Role.USER, Role.ASSISTANT, Role.ASSISTANT]
    (call,) = stored[1].tool_calls
    assert call.name == "get_current_weather" and call.status is ToolStatus.DONE and call.arguments is not None
    assert call.arguments.get("location") == "Paris" and "to_user" not in call.arguments
    assert stored[2].content.strip()


async def test_second_turn_sends_the_whole_conversation(make_agent: MakeAgent) -> None:
    built = await make_agent()
    await collect(built.agent.send("What's the weather in Paris?"))
    events = await collect(built.agent.send("Thanks! And a list of tips?"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    roles = [message["role"] for message in built.agent.conversation.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "assistant"]  # the agent's prompt


async def test_session_usage_counts_earlier_runs_and_starts_at_zero_for_a_new_session(make_agent: MakeAgent) -> None:
    first = await make_agent()
    await collect(first.agent.send("What's the weather in Paris?"))
    used, session = first.agent.session_usage, first.agent.session
    assert session is not None and used[0] > 0 and used[1] > 0
    await first.close()
    second = await make_agent()
    await second.agent.resume(session.id)
    assert second.agent.session_usage == used
    await second.agent.new_session()
    assert second.agent.session_usage == (0, 0)
