"""The task-tree feed on a real agent: the offline model over HTTP, the real commander, a real SQLite file.

Observers see every node of a turn and its tool calls, cost nothing once they leave, cannot break the
turn, and can cancel a running subtree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.conversation import INTERRUPTED_RESULT
from tui_agent.agent.events import AgentEvent, ToolCallUpdated, ToolStatus, TurnEndReason, TurnFinished
from tui_agent.agent.services import BuiltAgent
from tui_agent.agent.tree import TreeEvent
from tui_agent.commander.events import (
    NodeCancelled,
    NodeCreated,
    NodeEnded,
    NodeEvent,
    NodeFinished,
    NodeKind,
    NodeStarted,
)
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus

PLUGINS = Path(__file__).parent / "plugins"
WEATHER = "weather in Paris"
SLOW_TOOL = {"replies": [{"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "seconds": 30}}]}]}


def nodes(events: list[TreeEvent]) -> list[NodeEvent]:
    return [event for event in events if isinstance(event, NodeEvent)]


def created(events: list[TreeEvent]) -> dict[int | str, NodeCreated]:
    return {event.node_id: event for event in events if isinstance(event, NodeCreated)}


def final_events(events: list[TreeEvent]) -> dict[int | str, NodeEnded]:
    return {event.node_id: event for event in events if isinstance(event, NodeEnded)}


def tool_updates(events: list[TreeEvent]) -> list[ToolCallUpdated]:
    return [event for event in events if isinstance(event, ToolCallUpdated)]


async def test_a_turn_delivers_every_node_from_creation_to_its_end(make_agent: MakeAgent) -> None:
    built = await make_agent()
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    await collect(built.agent.send(WEATHER))
    made = created(seen)
    names = [event.name for event in made.values()]
    # The first response calls the weather tool, so the loop asks the model a second time.
    assert names == ["ChatJob", "ResponseJob", "respond", "show_reply", "run_tools",
                     "ResponseJob", "respond", "show_reply", "run_tools"]
    chat_job = next(event for event in made.values() if event.name == "ChatJob")
    assert chat_job.kind is NodeKind.JOB and chat_job.parent_id not in made  # it hangs under the commander
    for event in made.values():
        if event is not chat_job:
            assert event.parent_id in made, f"{event.name} hangs under a node nobody was told about"
    ended = final_events(seen)
    assert set(ended) == set(made) and all(isinstance(event, NodeFinished) for event in ended.values())
    started = {event.node_id for event in seen if isinstance(event, NodeStarted)}
    assert started == set(made)
    for event in ended.values():
        assert event.started_at is not None and event.at >= event.started_at
    order = [event.node_id for event in nodes(seen) if isinstance(event, NodeEnded)]
    assert order[-1] == chat_job.node_id  # the root ends last, after its whole subtree


async def test_tool_call_updates_arrive_while_their_run_tools_node_runs(make_agent: MakeAgent) -> None:
    built = await make_agent()
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    turn = await collect(built.agent.send(WEATHER))
    updates = tool_updates(seen)
    assert updates and {update.name for update in updates} == {"get_current_weather"}
    assert updates == [event for event in turn if isinstance(event, ToolCallUpdated)]  # the same, in order
    assert updates[-1].status is ToolStatus.DONE
    first_run_tools = next(e for e in seen if isinstance(e, NodeCreated) and e.name == "run_tools")
    opened = seen.index(first_run_tools)
    closed = next(i for i, e in enumerate(seen) if isinstance(e, NodeEnded) and e.node_id == first_run_tools.node_id)
    assert all(opened < seen.index(update) < closed for update in updates)


async def test_unsubscribing_detaches_the_feed_from_the_commander(make_agent: MakeAgent) -> None:
    built = await make_agent()
    first: list[TreeEvent] = []
    second: list[TreeEvent] = []
    stop_first = built.agent.subscribe_tree(first.append)
    stop_second = built.agent.subscribe_tree(second.append)
    stop_first()
    stop_first()  # idempotent: must not remove anyone else
    await collect(built.agent.send(WEATHER))
    assert first == [] and nodes(second) and tool_updates(second)
    stop_second()
    assert built.agent.commander._observers == []  # nobody watching: the commander emits nothing at all
    count = len(second)
    await collect(built.agent.send(WEATHER))
    assert len(second) == count


async def test_a_raising_observer_does_not_break_the_turn(make_agent: MakeAgent) -> None:
    built = await make_agent()
    calls: list[TreeEvent] = []

    def broken(event: TreeEvent) -> None:
        calls.append(event)
        raise RuntimeError("the view fell over")

    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(broken)
    built.agent.subscribe_tree(seen.append)
    events = await collect(built.agent.send(WEATHER))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE and finished.error is None
    assert calls == seen and tool_updates(seen) and final_events(seen)
    session = built.agent.session
    assert session is not None
    stored = await built.agent.store.load_tail(session.id, 10)
    assert [m.status for m in stored] == [MessageStatus.COMPLETE] * 3


async def cancel_when_running(built: BuiltAgent, target: str) -> tuple[list[AgentEvent], list[TreeEvent], bool]:
    """Run the slow-tool turn; once the tool runs, cancel the newest node called `target`."""
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    events: list[AgentEvent] = []
    accepted = False
    async for event in built.agent.send("echo slowly"):
        events.append(event)
        if isinstance(event, ToolCallUpdated) and event.status is ToolStatus.RUNNING:
            node = [e for e in seen if isinstance(e, NodeCreated) and e.name == target][-1]
            accepted = built.agent.cancel_node(node.node_id)
    return events, seen, accepted


@pytest.mark.parametrize("offline_server", [SLOW_TOOL], indirect=True)
async def test_cancelling_run_tools_interrupts_its_tool_and_the_turn_ends_cleanly(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    events, seen, accepted = await cancel_when_running(built, "run_tools")
    assert accepted
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.error is None
    ended = final_events(seen)
    by_name = {made.name: ended[node_id] for node_id, made in created(seen).items()}
    assert isinstance(by_name["run_tools"], NodeCancelled)
    assert all(isinstance(by_name[name], NodeFinished) for name in ("ChatJob", "ResponseJob", "respond"))
    (update,) = {u.call_id: u for u in tool_updates(seen)}.values()
    assert update.status is ToolStatus.INTERRUPTED
    assert not built.agent.busy
    session = built.agent.session
    assert session is not None
    _, reply = await built.agent.store.load_tail(session.id, 10)
    assert reply.status is not MessageStatus.STREAMING
    assert [call.status for call in reply.tool_calls] == [ToolStatus.INTERRUPTED]
    # The model is never asked again, and the history it gets next time answers the call.
    assert len(offline_server.requests) == 1
    assert built.agent.conversation.messages[-1] == {"role": "tool", "tool_call_id": update.call_id,
                                                      "content": INTERRUPTED_RESULT}
    again = await collect(built.agent.send(WEATHER))
    assert isinstance(again[-1], TurnFinished) and again[-1].reason is TurnEndReason.DONE


@pytest.mark.parametrize("offline_server", [SLOW_TOOL], indirect=True)
async def test_cancelling_the_chat_job_cancels_the_whole_turn(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    events, seen, accepted = await cancel_when_running(built, "ChatJob")
    assert accepted
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.CANCELLED
    ended = final_events(seen)
    assert set(ended) == set(created(seen))
    by_name = {made.name: ended[node_id] for node_id, made in created(seen).items()}
    assert isinstance(by_name["show_reply"], NodeFinished)  # it had ended before the tool started
    assert all(isinstance(by_name[name], NodeCancelled) for name in ("ChatJob", "ResponseJob", "respond", "run_tools"))
    session = built.agent.session
    assert session is not None
    _, reply = await built.agent.store.load_tail(session.id, 10)
    assert reply.status is MessageStatus.INTERRUPTED
    assert [call.status for call in reply.tool_calls] == [ToolStatus.INTERRUPTED]


async def test_cancel_node_refuses_nodes_that_are_not_running(make_agent: MakeAgent) -> None:
    built = await make_agent()
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    await collect(built.agent.send(WEATHER))
    assert all(not built.agent.cancel_node(node_id) for node_id in created(seen))
    assert not built.agent.cancel_node("no such node")
