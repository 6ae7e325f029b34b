"""Edit, regenerate, switch branch and resume through the agent's port, on the real stack: the offline model over
HTTP in strict mode (roles alternate, every tool call is answered, or the turn fails) and a real SQLite file.
The model always gets the active branch, tool calls included with the replies that made them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import AgentEvent, ReplyReplaced, TurnEndReason, TurnFinished, TurnStarted
from tui_agent.agent.sessions import NotInSessionError
from tui_agent.history.models import Message
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import Role
from tui_agent.tool_call import Decision

PLUGINS = Path(__file__).parent / "plugins"
ECHO = {"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "seconds": 0}}]}
TOOLS_FIRST = pytest.mark.parametrize(
    "offline_server", [{"replies": [ECHO], "then": "default", "strict": True}], indirect=True
)
STRICT = pytest.mark.parametrize("offline_server", [{"replies": [], "then": "default", "strict": True}], indirect=True)


def _sent(server: BackgroundServer) -> list[tuple[str, Any]]:
    """The conversation of the last request (the agent's system prompt left out)."""
    messages = (server.requests[-1].body or {})["messages"]
    return [(m["role"], m.get("content")) for m in messages if m["role"] != "system"]


def _done(events: list[AgentEvent]) -> list[AgentEvent]:
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE, finished
    return events


async def _turn(stream: Any) -> list[AgentEvent]:
    return _done(await collect(stream, decide=lambda call: Decision.ALLOW_ONCE))


async def _prompts(built: Any) -> list[Message]:
    return [m for m in await built.agent.load_history(limit=100) if m.role is Role.USER]


async def _session_with_tools(built: Any) -> list[Message]:
    """Three turns, the first with a tool call; returns the three prompts."""
    for prompt in ("alpha", "bravo", "charlie"):
        await _turn(built.agent.send(prompt))
    return await _prompts(built)


@TOOLS_FIRST
async def test_an_edit_in_the_middle_sends_the_model_exactly_the_new_branch(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    alpha, bravo, charlie = await _session_with_tools(built)
    events = await _turn(built.agent.edit(bravo.id, "bravo, edited"))
    started = events[0]
    assert isinstance(started, TurnStarted) and started.branches_from == bravo.id
    sent = _sent(offline_server)
    assert [role for role, _ in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent[0] == ("user", "alpha") and sent[-1] == ("user", "bravo, edited")
    assert [m.content for m in await _prompts(built)] == ["alpha", "bravo, edited"]  # charlie's branch is left
    beside = await built.agent.siblings(started.user_message_id)
    assert [m.content for m in beside.messages] == ["bravo", "bravo, edited"] and beside.index == 1
    assert charlie.id in {m.id for m in await built.agent.store.tree(charlie.session_id)}


@TOOLS_FIRST
async def test_switching_back_and_forth_then_sending_continues_the_active_branch(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    alpha, bravo, charlie = await _session_with_tools(built)
    edited = _done(await collect(built.agent.edit(bravo.id, "bravo, edited")))[0]
    assert isinstance(edited, TurnStarted)
    leaf = await built.agent.switch_branch(bravo.id)
    history = await built.agent.load_history(limit=100)
    assert history[-1].id == leaf and [m.content for m in history if m.role is Role.USER] == [
        "alpha",
        "bravo",
        "charlie",
    ]
    assert any(m.tool_calls for m in history)  # the tool calls come with the branch
    await _turn(built.agent.send("delta"))
    assert [c for r, c in _sent(offline_server) if r == "user"] == ["alpha", "bravo", "charlie", "delta"]
    assert "tool" in [r for r, _ in _sent(offline_server)]
    await built.agent.switch_branch(edited.user_message_id)
    await _turn(built.agent.send("echo"))
    assert [c for r, c in _sent(offline_server) if r == "user"] == ["alpha", "bravo, edited", "echo"]


@TOOLS_FIRST
async def test_resume_lands_on_the_active_branch(make_agent: MakeAgent, offline_server: BackgroundServer) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    alpha, bravo, charlie = await _session_with_tools(built)
    await _turn(built.agent.edit(bravo.id, "bravo, edited"))
    await built.agent.switch_branch(charlie.id)
    later = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])  # the same database, a new run
    await later.agent.resume(alpha.session_id)
    assert [m.content for m in await _prompts(later)] == ["alpha", "bravo", "charlie"]
    await _turn(later.agent.send("delta"))
    assert [c for r, c in _sent(offline_server) if r == "user"] == ["alpha", "bravo", "charlie", "delta"]


@STRICT
async def test_regenerate_with_another_model_is_a_sibling_reply_asked_of_that_model(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _turn(built.agent.send("alpha"))
    await _turn(built.agent.send("bravo"))
    first_reply = (await built.agent.load_history(limit=100))[1]
    events = await _turn(built.agent.regenerate(first_reply.id, model="offline-large"))
    assert isinstance(events[0], ReplyReplaced) and events[0].message_id == first_reply.id
    request = offline_server.requests[-1].body or {}
    assert request["model"] == "offline-large" and _sent(offline_server) == [("user", "alpha")]
    assert built.agent.model == "offline"  # the other model was for this regeneration only
    beside = await built.agent.siblings(first_reply.id)
    assert [m.model for m in beside.messages] == ["offline", "offline-large"] and beside.index == 0
    shown = await built.agent.load_history(limit=100)
    assert [m.id for m in shown[1:]] == [m.id for m in beside.messages]  # the old reply shown beside, as a retry's
    await _turn(built.agent.send("charlie"))
    assert [r for r, _ in _sent(offline_server)] == ["user", "assistant", "user"]
    assert _sent(offline_server)[1][1] == beside.messages[1].content  # the regenerated reply, not the old one


@STRICT
async def test_retry_is_a_regeneration_of_the_last_reply(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _turn(built.agent.send("alpha"))
    old = (await built.agent.load_history())[-1]
    events = await _turn(built.agent.retry())
    assert isinstance(events[0], ReplyReplaced) and events[0].message_id == old.id
    beside = await built.agent.siblings(old.id)
    assert len(beside.messages) == 2 and beside.messages[0].replaced_by == beside.messages[1].id


@STRICT
async def test_branch_actions_refuse_a_message_of_the_wrong_kind(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _turn(built.agent.send("alpha"))
    prompt, reply = await built.agent.load_history()
    with pytest.raises(NotInSessionError):
        await collect(built.agent.edit(reply.id, "not a prompt"))
    with pytest.raises(NotInSessionError):
        await collect(built.agent.regenerate(prompt.id))


@STRICT
async def test_a_fork_is_titled_after_its_source_until_its_own_first_prompt_names_it(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _turn(built.agent.send("Plan a trip to Lisbon"))
    source, first_reply = await built.agent.load_history(limit=100)
    fork = await built.agent.fork_session(source.session_id, first_reply.id)
    assert fork.title == "Plan a trip to Lisbon (fork)"
    await built.agent.resume(fork.id)
    assert built.agent.session_title == "Plan a trip to Lisbon (fork)"
    fork_of_fork = await built.agent.fork_session(fork.id, (await built.agent.load_history(limit=100))[-1].id)
    assert fork_of_fork.title == "Plan a trip to Lisbon (fork)", "marked once"
    await _turn(built.agent.send("What about trains instead?"))
    await _turn(built.agent.send("And the price?"))
    assert built.agent.session_title == "What about trains instead?", "named by its own first prompt only"
    titles = {session.id: session.title for session in await built.agent.list_sessions()}
    assert titles[fork.id] == "What about trains instead?" and titles[source.session_id] == "Plan a trip to Lisbon"
