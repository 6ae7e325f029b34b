"""`-p`'s reasoning line: events that write nothing (a usage count mid-reasoning) leave it whole."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

from tui_agent.agent.events import (
    AgentEvent,
    AssistantPartDelta,
    AssistantTextDelta,
    TurnEndReason,
    TurnFinished,
    UsageUpdated,
)
from tui_agent.agent.headless import print_turn


async def _events() -> AsyncIterator[AgentEvent]:
    yield AssistantPartDelta("m1", "reasoning", "The user says hi")
    yield UsageUpdated(238, 8)  # some servers count tokens on every chunk
    yield AssistantPartDelta("m1", "reasoning", ". Greet back.")
    yield AssistantTextDelta("m1", "Hello there.")
    yield TurnFinished(TurnEndReason.DONE)


def test_a_usage_count_mid_reasoning_does_not_break_its_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = asyncio.run(print_turn(None, "hi", out, err, _events(), show_parts=frozenset({"reasoning"})))
    assert status == 0
    assert err.getvalue() == "The user says hi. Greet back.\n"
    assert out.getvalue() == "Hello there.\n"
