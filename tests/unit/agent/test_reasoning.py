"""Reasoning through a real turn: shown as its own events before the text, saved, never sent back to the model."""

from __future__ import annotations

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import (
    AssistantMessageFinished,
    AssistantPartDelta,
    AssistantTextDelta,
    TurnEndReason,
    TurnFinished,
)
from tui_agent.history.models import PART_BREAK, StreamedPart, TextPart
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus

THOUGHT = "Two and two make four; say it plainly."
SCENARIO = {
    "replies": [
        {"reasoning": THOUGHT, "text": "Four.", "chunk_size": 6},
        {"reasoning": "Only thinking, no words.", "reasoning_field": "reasoning"},
    ]
}


@pytest.mark.parametrize("offline_server", [SCENARIO], indirect=True)
async def test_reasoning_is_shown_saved_and_kept_from_the_model(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("What is 2 + 2?"))
    thinking = [e for e in events if isinstance(e, AssistantPartDelta)]
    assert "".join(e.text for e in thinking) == THOUGHT and len(thinking) > 1
    first_text = next(i for i, e in enumerate(events) if isinstance(e, AssistantTextDelta))
    assert events.index(thinking[-1]) < first_text
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    session = built.agent.session
    assert session is not None
    reply = (await built.agent.store.load_tail(session.id, 1))[0]
    assert reply.parts == [StreamedPart("reasoning", THOUGHT), TextPart("Four.")]
    await collect(built.agent.send("Thanks"))
    assert THOUGHT not in str(offline_server.requests[-1].body)  # the next request carries the answer only
    assert "Four." in str(offline_server.requests[-1].body)


@pytest.mark.parametrize("offline_server", [{"replies": [SCENARIO["replies"][1]]}], indirect=True)
async def test_a_reasoning_only_reply_is_saved_with_its_reasoning(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("Hm?"))
    assert [e.text for e in events if isinstance(e, AssistantPartDelta)]
    assert not [e for e in events if isinstance(e, AssistantTextDelta)]
    finished = [e for e in events if isinstance(e, AssistantMessageFinished)]
    assert [e.status for e in finished] == [MessageStatus.COMPLETE]
    session = built.agent.session
    assert session is not None
    reply = (await built.agent.store.load_tail(session.id, 1))[0]
    assert reply.parts == [StreamedPart("reasoning", "Only thinking, no words.")]
    events = await collect(built.agent.send("Say something"))  # the strict server takes what follows it
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE


CONTINUED = {
    "replies": [
        {"reasoning": "Count to five.", "text": "One two", "finish_reason": "length"},
        {"reasoning": "Go on from two.", "text": " three four five."},
    ]
}


@pytest.mark.parametrize("offline_server", [CONTINUED], indirect=True)
async def test_a_continued_reply_keeps_its_reasoning_then_the_continuations(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await collect(built.agent.send("Count"))
    events = await collect(built.agent.continue_reply())
    thinking = "".join(e.text for e in events if isinstance(e, AssistantPartDelta))
    assert thinking == f"{PART_BREAK}Go on from two."  # the screen's block has the first part already
    session = built.agent.session
    assert session is not None
    reply = (await built.agent.store.load_tail(session.id, 1))[0]
    kept = f"Count to five.{PART_BREAK}Go on from two."
    assert reply.parts == [StreamedPart("reasoning", kept), TextPart("One two three four five.")]
    assert "Count to five" not in str(offline_server.requests[-1].body)  # the continuation is not shown it
