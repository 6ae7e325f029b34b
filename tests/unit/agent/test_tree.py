"""The task-tree feed on a real agent: the offline model over HTTP, the real commander, a real SQLite file.

Observers see every node of a turn, each tool call a node of its own, cost nothing once they leave, cannot
break the turn, and can cancel a running subtree — one tool call alone, the turn going on without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.conversation import INTERRUPTED_RESULT
from tui_agent.agent.events import (
    AgentEvent,
    AssistantTextDelta,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
)
from tui_agent.agent.services import BuiltAgent
from tui_agent.agent.tree import TreeEvent
from tui_agent.agent.turn_jobs import TURN_SHAPE, tool_node_id
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
from tui_agent.tool_call import ToolCall

PLUGINS = Path(__file__).parent / "plugins"
WEATHER = "weather in Paris"
SLOW_TOOL = {"replies": [{"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "seconds": 30}}]}]}
TWO_SLOW_TOOLS = {
    "replies": [
        {
            "tool_calls": [
                {"name": "slow_echo", "arguments": {"text": "stuck", "seconds": 30}},
                {"name": "slow_echo", "arguments": {"text": "quick enough", "seconds": 1.0}},
            ]
        },
        {"text": "One of the two came back."},
    ]
}


def nodes(events: list[TreeEvent]) -> list[NodeEvent]:
    return [event for event in events if isinstance(event, NodeEvent)]


def created(events: list[TreeEvent]) -> dict[int | str, NodeCreated]:
    return {event.node_id: event for event in events if isinstance(event, NodeCreated)}


def final_events(events: list[TreeEvent]) -> dict[int | str, NodeEnded]:
    return {event.node_id: event for event in events if isinstance(event, NodeEnded)}


def tool_updates(events: list[AgentEvent]) -> list[ToolCallUpdated]:
    return [event for event in events if isinstance(event, ToolCallUpdated)]


def tool_nodes(events: list[TreeEvent]) -> list[NodeCreated]:
    return [event for event in events if isinstance(event, NodeCreated) and str(event.node_id).startswith("tool:")]


async def test_a_turn_delivers_every_node_from_creation_to_its_end(make_agent: MakeAgent) -> None:
    built = await make_agent()
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    await collect(built.agent.send(WEATHER))
    made = created(seen)
    names = [event.name for event in made.values()]
    # The first response calls the weather tool, so the loop asks the model a second time.
    assert names == [
        "ChatJob",
        "ResponseJob",
        "respond",
        "show_reply",
        "run_tools",
        "get_current_weather",
        "ResponseJob",
        "respond",
        "show_reply",
        "run_tools",
    ]
    shape = [(event.name, event.kind) for event in made.values()][: len(TURN_SHAPE)]
    assert shape == [(name, kind) for name, kind, _ in TURN_SHAPE]  # what test doubles draw is the real shape
    ids = list(made)
    parents = [made[i].parent_id for i in ids[: len(TURN_SHAPE)]]
    assert [ids.index(parent) if parent is not None and parent in made else None for parent in parents] == [
        parent for _, _, parent in TURN_SHAPE
    ]
    chat_job = next(event for event in made.values() if event.name == "ChatJob")
    assert chat_job.kind is NodeKind.JOB and chat_job.parent_id not in made  # it hangs under the commander
    for event in made.values():
        if event is not chat_job:
            assert event.parent_id in made, f"{event.name} hangs under a node nobody was told about"
    ended = final_events(seen)
    assert set(ended) == set(made) and all(isinstance(event, NodeFinished) for event in ended.values())
    started = {event.node_id for event in seen if isinstance(event, NodeStarted)}
    assert started == set(made)
    for ending in ended.values():
        assert ending.started_at is not None and ending.at >= ending.started_at
    order = [event.node_id for event in nodes(seen) if isinstance(event, NodeEnded)]
    assert order[-1] == chat_job.node_id  # the root ends last, after its whole subtree
    # In the user's words: the turn and its call are titled, on every event; the engine's own steps are not.
    titled = {event.name: event.title for event in made.values() if event.title}
    assert titled == {"ChatJob": "turn 1", "get_current_weather": "get_current_weather(Paris)"}
    assert {e.title for e in seen if isinstance(e, NodeEvent) and e.node_id == chat_job.node_id} == {"turn 1"}
    seen.clear()
    await collect(built.agent.send(WEATHER))
    assert next(event.title for event in created(seen).values() if event.name == "ChatJob") == "turn 2"


async def test_each_tool_call_is_a_node_under_run_tools_named_after_the_tool(make_agent: MakeAgent) -> None:
    built = await make_agent()
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    turn = await collect(built.agent.send(WEATHER))
    final = tool_updates(turn)[-1].call
    assert final.status is ToolStatus.DONE
    (node,) = tool_nodes(seen)
    assert (node.node_id, node.name, node.kind) == (tool_node_id(final), "get_current_weather", NodeKind.HANDLER)
    run_tools = next(e for e in seen if isinstance(e, NodeCreated) and e.name == "run_tools")
    assert node.parent_id == run_tools.node_id
    assert isinstance(final_events(seen)[node.node_id], NodeFinished)


async def test_unsubscribing_detaches_the_feed_from_the_commander(make_agent: MakeAgent) -> None:
    built = await make_agent()
    first: list[TreeEvent] = []
    second: list[TreeEvent] = []
    stop_first = built.agent.subscribe_tree(first.append)
    stop_second = built.agent.subscribe_tree(second.append)
    stop_first()
    stop_first()  # idempotent: must not remove anyone else
    await collect(built.agent.send(WEATHER))
    assert first == [] and nodes(second) and tool_nodes(second)
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
    assert calls == seen and tool_nodes(seen) and final_events(seen)
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
        if isinstance(event, ToolCallUpdated) and event.call.status is ToolStatus.RUNNING and not accepted:
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
    (update,) = {u.call.call_id: u.call for u in tool_updates(events)}.values()
    assert update.status is ToolStatus.INTERRUPTED
    assert not built.agent.busy
    session = built.agent.session
    assert session is not None
    _, reply = await built.agent.store.load_tail(session.id, 10)
    assert reply.status is not MessageStatus.STREAMING
    assert [call.status for call in reply.tool_calls] == [ToolStatus.INTERRUPTED]
    # The model is never asked again, and the history it gets next time answers the call.
    assert len(offline_server.requests) == 1
    assert built.agent.conversation.messages[-1] == {
        "role": "tool",
        "tool_call_id": update.call_id,
        "content": INTERRUPTED_RESULT,
    }
    again = await collect(built.agent.send(WEATHER))
    assert isinstance(again[-1], TurnFinished) and again[-1].reason is TurnEndReason.DONE


@pytest.mark.parametrize("offline_server", [TWO_SLOW_TOOLS], indirect=True)
async def test_cancelling_one_tool_node_interrupts_that_call_only_and_the_turn_goes_on(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    seen: list[TreeEvent] = []
    built.agent.subscribe_tree(seen.append)
    events: list[AgentEvent] = []
    running: set[str] = set()
    cancelled = False
    async for event in built.agent.send("echo two things slowly"):
        events.append(event)
        if isinstance(event, ToolCallUpdated) and event.call.status is ToolStatus.RUNNING:
            running.add(event.call.call_id)
        if len(running) == 2 and not cancelled:  # both run at once: cancel the one that would take 30 s
            stuck = next(node for node in tool_nodes(seen) if node.node_id == tool_node_id(first_call(events)))
            cancelled = built.agent.cancel_node(stuck.node_id)
            assert cancelled
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE and finished.error is None
    calls = {u.call.call_id: u.call for u in tool_updates(events)}
    stuck_call, quick_call = calls.values()
    assert (stuck_call.status, quick_call.status) == (ToolStatus.INTERRUPTED, ToolStatus.DONE)
    assert quick_call.result == "quick enough"
    ended = final_events(seen)
    assert isinstance(ended[tool_node_id(stuck_call)], NodeCancelled)
    assert isinstance(ended[tool_node_id(quick_call)], NodeFinished)
    # The model was asked again, with the interrupted answer and the other call's result.
    assert len(offline_server.requests) == 2
    second = offline_server.requests[1].body
    assert second is not None
    answers = {m["tool_call_id"]: m["content"] for m in second["messages"] if m["role"] == "tool"}
    assert answers == {stuck_call.call_id: INTERRUPTED_RESULT, quick_call.call_id: "quick enough"}
    assert "One of the two came back." in "".join(e.text for e in events if isinstance(e, AssistantTextDelta))
    session = built.agent.session
    assert session is not None
    stored = await built.agent.store.load_tail(session.id, 10)
    assert [call.status for call in stored[1].tool_calls] == [ToolStatus.INTERRUPTED, ToolStatus.DONE]
    assert [m.status for m in stored] == [MessageStatus.COMPLETE] * 3


def first_call(events: list[AgentEvent]) -> ToolCall:
    return tool_updates(events)[0].call


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
