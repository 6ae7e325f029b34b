"""Servers that reuse tool-call ids — `call_0` in every response, or twice in one — on the real engine: each call
is recorded, answered and shown as its own, keyed by its assistant message and call id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import ToolCallUpdated, TurnEndReason, TurnFinished
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus

PLUGINS = Path(__file__).parent / "plugins"
WEATHER = {"id": "call_0", "name": "get_current_weather", "arguments": {"location": "Paris"}}
SUM = {"id": "call_0", "name": "calculate", "arguments": {"expression": "6*7"}}


def scenario(*replies: dict[str, Any]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("offline_server", [{"replies": list(replies)}], indirect=True)


@scenario({"tool_calls": [WEATHER]}, {"tool_calls": [SUM], "chunk_size": 4, "cut_after": 3})
async def test_a_call_0_cut_off_in_the_second_round_is_still_recorded(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("Weather, then a sum"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.ERROR
    session = built.agent.session
    assert session is not None
    messages = await built.agent.store.load_tail(session.id, 10)
    calls = [(call.call_id, call.name, call.status) for message in messages for call in message.tool_calls]
    assert calls == [
        ("call_0", "get_current_weather", ToolStatus.DONE),
        ("call_0", "calculate", ToolStatus.INTERRUPTED),
    ]


@scenario({"tool_calls": [WEATHER, SUM]}, {"text": "Sunny, and 42."})
async def test_two_calls_with_one_id_in_one_response_are_both_run_recorded_and_answered(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("Weather and a sum"))
    final = {event.key: event.call for event in events if isinstance(event, ToolCallUpdated)}
    assert [(update.name, update.status) for update in final.values()] == [
        ("get_current_weather", ToolStatus.DONE),
        ("calculate", ToolStatus.DONE),
    ]
    session = built.agent.session
    assert session is not None
    messages = await built.agent.store.load_tail(session.id, 10)
    stored = [(call.call_id, call.name, call.status) for call in messages[1].tool_calls]
    assert [(name, status) for _, name, status in stored] == [
        ("get_current_weather", ToolStatus.DONE),
        ("calculate", ToolStatus.DONE),
    ]
    assert len({call_id for call_id, _, _ in stored}) == 2 == len(final)
    answered = [m for m in (offline_server.requests[-1].body or {})["messages"] if m["role"] == "tool"]
    assert sorted(message["tool_call_id"] for message in answered) == sorted(call_id for call_id, _, _ in stored)
    assert "42" in answered[1]["content"]
