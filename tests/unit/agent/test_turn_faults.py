"""Turns that do not go to plan: server faults, Esc mid-stream and mid-tool, budgets, approvals, bad calls.

Each ends with a sentence for the user, the right status in history and everything already shown kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.offline import strict_scenario
from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.conversation import INTERRUPTED_RESULT
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantTextDelta,
    MessageStatus,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from tui_agent.agent.services import BuiltAgent
from tui_agent.history.models import Message
from tui_agent.offline.server import BackgroundServer
from tui_agent.tool_call import Decision, ToolCall

PLUGINS = Path(__file__).parent / "plugins"
PARTIAL = "This part of the reply arrives before the failure. "


def scenario(*replies: dict[str, Any], then: str = "default") -> pytest.MarkDecorator:
    return pytest.mark.parametrize("offline_server", [{"replies": list(replies), "then": then}], indirect=True)


async def stored(built: BuiltAgent) -> list[Message]:
    session = built.agent.session
    assert session is not None
    return await built.agent.store.load_tail(session.id, 100)


def shown_text(events: list[AgentEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, AssistantTextDelta))


def last_updates(events: list[AgentEvent]) -> dict[str, ToolCall]:
    return {event.call.call_id: event.call for event in events if isinstance(event, ToolCallUpdated)}


FAULTS = [
    pytest.param({"status": 500}, "server", id="500"),
    pytest.param({"status": 429, "retry_after": 0.05}, "rate", id="429"),
    pytest.param({"text": PARTIAL * 4, "chunk_size": 8, "cut_after": 6}, "", id="cut-connection"),
    pytest.param({"text": PARTIAL * 4, "chunk_size": 8, "malformed_after": 6}, "", id="malformed-chunk"),
    pytest.param({"text": PARTIAL * 4, "chunk_size": 8, "missing_finish_reason": True}, "", id="no-finish-reason"),
    pytest.param({"text": PARTIAL * 4, "chunk_size": 8, "stall_after": 6}, "", id="stall"),
    pytest.param({"html": True}, "", id="html-page"),
]


@pytest.mark.parametrize(("fault", "word"), FAULTS)
async def test_server_fault_fails_the_turn_with_a_sentence_and_keeps_the_text(
    make_agent: MakeAgent, fault: dict[str, Any], word: str
) -> None:
    server = BackgroundServer(strict_scenario({"replies": [fault], "then": "repeat_last"}))
    server.start()
    try:
        built = await make_agent(server.base_url, stall_timeout=0.5)
        events = await collect(built.agent.send("hello"))
    finally:
        server.stop()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.ERROR
    assert finished.error and "Traceback" not in finished.error and word in finished.error.lower()
    assert "test-key" not in finished.error
    _, reply = await stored(built)
    assert reply.status is MessageStatus.FAILED and reply.error == finished.error
    assert reply.content == shown_text(events)


async def test_missing_api_key_says_how_to_fix_it(make_agent: MakeAgent) -> None:
    server = BackgroundServer({"replies": [{"status": 401}]})
    server.start()
    try:
        built = await make_agent(server.base_url, api_key=None)
        events = await collect(built.agent.send("hello"))
    finally:
        server.stop()
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.error == "No API key: set OPENAI_API_KEY or run with --offline."


async def test_server_down_is_an_inline_error(make_agent: MakeAgent) -> None:
    built = await make_agent("http://127.0.0.1:9/v1")
    events = await collect(built.agent.send("hello"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.ERROR and finished.error
    _, reply = await stored(built)
    assert reply.status is MessageStatus.FAILED


@scenario({"text": PARTIAL * 50, "chunk_size": 10, "chunk_delay": 0.02})
async def test_cancel_mid_stream_keeps_the_partial_reply(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events: list[AgentEvent] = []
    async for event in built.agent.send("hello"):
        events.append(event)
        if isinstance(event, AssistantTextDelta) and len(shown_text(events)) > 30:
            built.agent.cancel()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.CANCELLED
    _, reply = await stored(built)
    assert reply.status is MessageStatus.INTERRUPTED
    assert reply.content == shown_text(events) and 30 < len(reply.content) < len(PARTIAL * 50)
    assert not built.agent.busy


@scenario({"text": PARTIAL * 50, "chunk_size": 10, "chunk_delay": 0.02})
async def test_cancel_while_the_first_turn_is_set_up_stops_it(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    """Esc just after Enter on a new session's first prompt: the session and the prompt are being stored and
    no job runs the turn yet; the turn is stopped as soon as it has one, never left to run to its end."""
    built = await make_agent(offline_server.base_url)
    events: list[AgentEvent] = []
    async for event in built.agent.send("hello"):
        events.append(event)
        if isinstance(event, TurnStarted):  # the turn is set up, its job not started yet: what Esc met
            assert built.agent.busy  # (a turn that is starting counts as running: a second send waits for it)
            built.agent.cancel()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.CANCELLED
    prompt, reply = await stored(built)
    assert prompt.content == "hello" and reply.status is MessageStatus.INTERRUPTED
    assert not shown_text(events) and reply.content == ""


@scenario({"text": "A whole answer."})
async def test_a_cancel_while_idle_does_not_stop_the_next_turn(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    built.agent.cancel()  # nothing runs: it belongs to no turn
    events = await collect(built.agent.send("hello"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE
    assert [m.status for m in await stored(built)] == [MessageStatus.COMPLETE] * 2


@scenario({"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "seconds": 30}}]})
async def test_cancel_mid_tool_interrupts_the_call(make_agent: MakeAgent, offline_server: BackgroundServer) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    events: list[AgentEvent] = []
    async for event in built.agent.send("echo slowly"):
        events.append(event)
        if isinstance(event, ToolCallUpdated) and event.call.status is ToolStatus.RUNNING:
            built.agent.cancel()
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.CANCELLED
    (update,) = last_updates(events).values()
    assert update.status is ToolStatus.INTERRUPTED
    _, reply = await stored(built)
    assert reply.status is MessageStatus.INTERRUPTED and reply.tool_calls[0].status is ToolStatus.INTERRUPTED
    assert built.agent.conversation.messages[-1] == {
        "role": "tool",
        "tool_call_id": update.call_id,
        "content": INTERRUPTED_RESULT,
    }


@scenario({"tool_calls": [{"name": "slow_echo", "arguments": {"text": "again", "seconds": 0}}]}, then="repeat_last")
async def test_tool_round_budget_ends_the_turn(make_agent: MakeAgent, offline_server: BackgroundServer) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS], max_tool_rounds=2)
    events = await collect(built.agent.send("loop forever"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.BUDGET
    assert finished.error and "2 tool rounds" in finished.error
    final = [e.call.status for e in events if isinstance(e, ToolCallUpdated) and e.call.status.is_final]
    assert final == [ToolStatus.DONE, ToolStatus.DONE, ToolStatus.DENIED]
    assert [m.status for m in await stored(built)][-1] is MessageStatus.COMPLETE


@pytest.mark.parametrize(
    ("decision", "status"), [(Decision.ALLOW_ONCE, ToolStatus.DONE), (Decision.DENY, ToolStatus.DENIED)]
)
async def test_ask_tools_wait_for_the_answer_to_the_approval_event(
    make_agent: MakeAgent, decision: Decision, status: ToolStatus
) -> None:
    server = BackgroundServer({"replies": [{"tool_calls": [{"name": "careful_echo", "arguments": {"text": "hi"}}]}]})
    server.start()
    asked: list[ToolCall] = []

    def answer(call: ToolCall) -> Decision:
        asked.append(call)
        return decision

    try:
        built = await make_agent(server.base_url, plugin_dirs=[PLUGINS])
        events = await collect(built.agent.send("echo carefully"), answer)
    finally:
        server.stop()
    (update,) = last_updates(events).values()
    assert update.status is status
    assert len(asked) == 1 and asked[0].status is ToolStatus.AWAITING_APPROVAL and asked[0].arguments == {"text": "hi"}
    (request,) = [event for event in events if isinstance(event, ApprovalRequested)]
    awaiting = [e for e in events if isinstance(e, ToolCallUpdated) and e.call.status is ToolStatus.AWAITING_APPROVAL]
    assert len(awaiting) == 1 and events.index(awaiting[0]) < events.index(request)  # the panel changes once
    if status is ToolStatus.DONE:
        assert update.result == "echo: hi"
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE


@scenario({"tool_calls": [{"name": "get_current_weather", "arguments": '{"location": "Par'}]})
async def test_malformed_tool_arguments_go_back_to_the_model(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("weather?"))
    (update,) = last_updates(events).values()
    assert update.status is ToolStatus.FAILED and update.result
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    (tool_answer,) = [message for message in built.agent.conversation.messages if message["role"] == "tool"]
    assert tool_answer["content"] == update.result


async def test_resumed_session_sends_its_history_to_the_model(make_agent: MakeAgent, tmp_path: Path) -> None:
    first = await make_agent()
    await collect(first.agent.send("What's the weather in Paris?"))
    session = first.agent.session
    assert session is not None
    before = list(first.agent.conversation.messages)
    await first.close()
    second = await make_agent()
    await second.agent.resume(session.id[:8])
    assert second.agent.conversation.messages == before
    events = await collect(second.agent.send("And tomorrow?"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    assert len(await stored(second)) == 5
