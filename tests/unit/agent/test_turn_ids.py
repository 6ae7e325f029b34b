"""Events carry their turn: a turn's stream yields only its own events and ends at its own `TurnFinished`.

The real agent stamps every event of a turn with one id, a new one per turn; `turn_events`, which `send`
reads its queue through, leaves another turn's events out (a nested turn's, sub-agents later), so that
turn's end cannot end the stream of the turn it runs in.
"""

from __future__ import annotations

import asyncio

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.agent import turn_events
from tui_agent.agent.events import (
    AgentEvent,
    AssistantMessageStarted,
    AssistantTextDelta,
    TurnEndReason,
    TurnFinished,
)


async def test_a_turn_stream_skips_a_nested_turns_events_and_outlives_its_end() -> None:
    queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
    interleaved: list[AgentEvent] = [
        AssistantMessageStarted("m1", turn_id="parent"),
        AssistantTextDelta("m1", "Let me ask a helper. ", turn_id="parent"),
        AssistantMessageStarted("c1", turn_id="child"),
        AssistantTextDelta("c1", "helper text", turn_id="child"),
        TurnFinished(TurnEndReason.DONE, turn_id="child"),
        AssistantTextDelta("m1", "The helper answered.", turn_id="parent"),
        TurnFinished(TurnEndReason.DONE, turn_id="parent"),
        AssistantTextDelta("m2", "a later turn's", turn_id="later"),
    ]
    for event in interleaved:
        queue.put_nowait(event)
    seen = [event async for event in turn_events(queue, "parent")]
    assert seen == [event for event in interleaved[:7] if event.turn_id == "parent"]
    assert isinstance(seen[-1], TurnFinished) and queue.qsize() == 1  # stopped at its own end, no further


async def test_every_event_of_a_real_turn_carries_that_turns_id(make_agent: MakeAgent) -> None:
    built = await make_agent()
    first = await collect(built.agent.send("weather in Paris"))
    second = await collect(built.agent.send("Thanks!"))
    first_ids = {event.turn_id for event in first}
    second_ids = {event.turn_id for event in second}
    assert len(first_ids) == 1 and len(second_ids) == 1 and first_ids != second_ids and "" not in first_ids
    retried = await collect(built.agent.retry())
    assert len({event.turn_id for event in retried} - first_ids - second_ids) == 1
