"""Two `send()` calls at once on one agent (library use): the second waits for the first turn to end, then runs,
each answering its own prompt (both ran at once: "what time is it?" got the answer to "what is 2+2?", and history
stored two replies in a row). Real stack: the offline model over HTTP, the real agent, a real SQLite file."""

from __future__ import annotations

import asyncio

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import AssistantTextDelta, ToolCallUpdated, TurnEndReason, TurnFinished, TurnStarted
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import Role

HANG_LIMIT = 120.0
"""Seconds before a hang fails the test (a bound, not a timing check: the two turns take a second or two)."""


async def test_a_second_send_waits_for_the_first_turn_then_answers_its_own_prompt(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    agent = (await make_agent(offline_server.base_url)).agent
    order: list[str] = []

    async def turn(prompt: str) -> list[object]:
        events: list[object] = []
        async for event in agent.send(prompt):
            events.append(event)
            if isinstance(event, TurnStarted | TurnFinished):
                order.append(f"{type(event).__name__} {prompt}")
        return events

    async with asyncio.timeout(HANG_LIMIT):
        sum_events, time_events = await asyncio.gather(turn("what is 2+2?"), turn("what time is it?"))

    assert order == [
        "TurnStarted what is 2+2?",
        "TurnFinished what is 2+2?",
        "TurnStarted what time is it?",
        "TurnFinished what time is it?",
    ]
    for events in (sum_events, time_events):
        assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    calls = [{e.call.name for e in events if isinstance(e, ToolCallUpdated)} for events in (sum_events, time_events)]
    assert calls == [{"calculate"}, {"current_time"}], "each turn answered its own prompt"
    assert "4" in "".join(e.text for e in sum_events if isinstance(e, AssistantTextDelta))
    assert agent.session is not None
    stored = await agent.store.load_tail(agent.session.id, 20)
    prompts = [(m.content, i) for i, m in enumerate(stored) if m.role is Role.USER]
    assert [text for text, _ in prompts] == ["what is 2+2?", "what time is it?"]
    assert stored[prompts[1][1] - 1].role is Role.ASSISTANT, "the first turn's answer comes before the second prompt"
    requests = [request.body or {} for request in offline_server.requests if request.path.endswith("/completions")]
    last_users = [[m["content"] for m in body["messages"] if m["role"] == "user"][-1] for body in requests]
    assert last_users == sorted(last_users, key=["what is 2+2?", "what time is it?"].index)


async def test_a_send_after_a_finished_turn_runs_at_once(make_agent: MakeAgent) -> None:
    agent = (await make_agent()).agent
    first = await collect(agent.send("what is 2+2?"))
    assert isinstance(first[-1], TurnFinished) and not agent.busy
    second = await collect(agent.send("what is 3+3?"))
    assert isinstance(second[-1], TurnFinished) and second[-1].reason is TurnEndReason.DONE
