"""The model gets the active branch only, in a form a strict server accepts: after an edit, after switching
back, and on the branch of a retried reply (the offline model in strict mode, a real SQLite file)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import TurnEndReason, TurnFinished
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, Role

STRICT = pytest.mark.parametrize("offline_server", [{"replies": [], "then": "default", "strict": True}], indirect=True)


def _sent(server: BackgroundServer) -> list[tuple[str, Any]]:
    """The conversation of the last request (the agent's system prompt left out)."""
    messages = (server.requests[-1].body or {})["messages"]
    return [(m["role"], m.get("content")) for m in messages if m["role"] != "system"]


async def _ask(built: Any, prompt: str) -> None:
    events = await collect(built.agent.send(prompt))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE, finished


@STRICT
async def test_the_model_gets_the_active_branch_after_an_edit_and_after_switching_back(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _ask(built, "first")
    await _ask(built, "second")
    store, session = built.agent.store, built.agent.session
    assert session is not None
    first = (await store.tree(session.id))[0]
    await store.add_sibling(first.id, Role.USER, "first, edited")
    reply = await store.append_message(session.id, Role.ASSISTANT, "", MessageStatus.STREAMING)
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="edited answer")
    await built.agent.resume(session.id)
    await _ask(built, "third")
    assert _sent(offline_server) == [("user", "first, edited"), ("assistant", "edited answer"), ("user", "third")]
    await store.switch_to(first.id)
    await built.agent.resume(session.id)
    await _ask(built, "fourth")
    assert [content for role, content in _sent(offline_server) if role == "user"] == ["first", "second", "fourth"]


@STRICT
async def test_on_the_branch_of_a_retried_reply_that_reply_is_the_one_sent(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _ask(built, "hello")
    store, session = built.agent.store, built.agent.session
    assert session is not None
    _, old = await store.load_tail(session.id, 2)
    retried = await store.replace_reply(session.id, old.id)
    await store.finish_message(retried.id, MessageStatus.COMPLETE, content="the retry")
    await built.agent.resume(session.id)
    await _ask(built, "again")
    assert _sent(offline_server)[:2] == [("user", "hello"), ("assistant", "the retry")]
    await store.switch_to(old.id)
    await built.agent.resume(session.id)
    await _ask(built, "once more")
    assert _sent(offline_server)[:2] == [("user", "hello"), ("assistant", old.content)]
