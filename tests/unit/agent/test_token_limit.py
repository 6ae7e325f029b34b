"""`max_tokens` from the config reaches the server, and a reply cut there is marked, not saved as complete."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import AssistantMessageFinished, MessageStatus, TurnEndReason, TurnFinished
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import CUT_OFF, is_cut_off

LONG = "one two three four five six seven eight nine ten"


def scenario(*replies: dict[str, Any]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("offline_server", [{"replies": list(replies)}], indirect=True)


@scenario({"text": LONG}, {"text": "Ten."})
async def test_a_reply_cut_at_max_tokens_ends_the_turn_as_length(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, max_tokens=3)
    events = await collect(built.agent.send("count to ten"))
    assert (offline_server.requests[-1].body or {})["max_tokens"] == 3
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.LENGTH
    assert finished.error == f"{CUT_OFF} (max_tokens = 3): the reply above is incomplete."
    (message_end,) = [event for event in events if isinstance(event, AssistantMessageFinished)]
    assert is_cut_off(message_end.status, message_end.error)
    session = built.agent.session
    assert session is not None
    _, reply = await built.agent.store.load_tail(session.id, 10)
    assert reply.content == "one two three"
    assert reply.status is MessageStatus.INTERRUPTED and is_cut_off(reply.status, reply.error)
    # The cut reply is part of the conversation; the next turn goes on from it (on a strict server).
    again = await collect(built.agent.send("go on"))
    assert isinstance(again[-1], TurnFinished) and again[-1].reason is TurnEndReason.DONE, again[-1]
    sent = (offline_server.requests[-1].body or {})["messages"]
    roles = [(m["role"], m["content"]) for m in sent if m["role"] != "system"]  # after the agent's prompt
    assert roles == [("user", "count to ten"), ("assistant", "one two three"), ("user", "go on")]


@scenario({"text": LONG})
async def test_without_max_tokens_nothing_limits_the_reply(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("count to ten"))
    body = offline_server.requests[-1].body or {}
    assert "max_tokens" not in body and "max_completion_tokens" not in body
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
