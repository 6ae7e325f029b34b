"""Sub-agents: an `ask_<agent>` call runs that agent's own turn under the call's node, stored as a child
session, its events wrapped in `SubAgentEvent`, its answer the call's result.

Real stack: the built-in offline model over HTTP, the real agent and commander, a real SQLite file, the
shipped agents (the assistant delegates to the researcher and the coder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    SubAgentEvent,
    ToolCallUpdated,
    TurnEndReason,
    TurnFinished,
    UsageUpdated,
)
from tui_agent.agent.turn_jobs import tool_node_id
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall


def calls_of(events: list[AgentEvent]) -> dict[str, ToolCall]:
    """The caller's own calls by name, each as it ended."""
    return {event.call.name: event.call for event in events if isinstance(event, ToolCallUpdated)}


def inner(events: list[AgentEvent], agent: str) -> list[AgentEvent]:
    """The events of `agent`'s turn, unwrapped."""
    return [event.event for event in events if isinstance(event, SubAgentEvent) and event.agent == agent]


async def test_the_sub_agents_answer_is_the_calls_result_and_its_run_a_linked_child_session(
    make_agent: MakeAgent,
) -> None:
    built = await make_agent()
    agent = built.agent
    events = await collect(agent.send("ask the researcher what the weather is in Paris"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    asked = calls_of(events)["ask_researcher"]
    assert asked.status is ToolStatus.DONE
    assert asked.result is not None and asked.result.startswith("The weather in Paris is")
    researcher = inner(events, "researcher")
    weather = calls_of(researcher)["get_current_weather"]  # it used its own tool
    assert weather.status is ToolStatus.DONE and weather.arguments is not None
    assert weather.arguments["location"] == "Paris"

    assert agent.session is not None
    ((child_id, name),) = await agent.store.sub_sessions(agent.session.id)
    child = await agent.store.get_session(child_id)
    assert name == "researcher" and child is not None
    assert child.parent_session_id == agent.session.id and child.parent_message_id == asked.message_id
    assert {event.session_id for event in events if isinstance(event, SubAgentEvent)} == {child_id}
    stored = await agent.store.load_tail(child_id, 10)
    assert stored[0].content == "What the weather is in Paris"
    assert stored[-1].content == asked.result
    assert child.system_prompt is not None and child.system_prompt.startswith("You are a careful researcher")


async def test_the_sub_agents_tokens_roll_up_to_the_callers_session_live_and_resumed(make_agent: MakeAgent) -> None:
    built = await make_agent()
    agent = built.agent
    events = await collect(agent.send("ask the researcher what the weather is in Paris"))
    own = [event for event in events if isinstance(event, UsageUpdated)]
    theirs = [event for event in inner(events, "researcher") if isinstance(event, UsageUpdated)]
    assert theirs and own
    assert agent.session is not None
    stored = await agent.store.load_tail(agent.session.id, 10)
    replies = sum(m.usage.completion_tokens for m in stored if m.usage is not None)
    assert own[-1].completion_tokens == agent.session_usage[1] == replies + theirs[-1].completion_tokens

    again = await make_agent()  # the same history file: resumed, the session's total still counts them
    await again.agent.resume(agent.session.id)
    assert again.agent.session_usage == agent.session_usage


def sub_agent_job(agent: Any, call: ToolCall) -> Any:
    """The `ChatJob` of the sub-agent `call` runs (the child of the call's node)."""
    (job,) = agent.commander.get_node(tool_node_id(call)).children
    return job


@pytest.mark.parametrize("which", ["the call's node", "the sub-agent's own job"])
async def test_two_delegations_run_at_once_and_cancelling_one_node_interrupts_that_one_only(
    make_agent: MakeAgent, which: str
) -> None:
    """The coder asks to run a command; its node is cancelled while it waits, and the researcher finishes."""
    built = await make_agent()
    agent = built.agent
    events: list[AgentEvent] = []
    async for event in agent.send("ask the researcher and the coder to run `echo hi`"):
        events.append(event)
        if isinstance(event, ApprovalRequested):  # not the caller's to ask: deny, so the test fails, not hangs
            event.answer.set_result(Decision.DENY)
        if isinstance(event, SubAgentEvent) and isinstance(event.event, ApprovalRequested):
            asking = next(e.call for e in events if isinstance(e, ToolCallUpdated) and e.call.name == "ask_coder")
            if which == "the call's node":
                assert agent.cancel_node(tool_node_id(asking))
            else:
                job = sub_agent_job(agent, asking)
                assert job.title == "coder"  # the task tree names the sub-agent's turn after the agent
                assert job.cancel()

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    calls = calls_of(events)
    assert calls["ask_coder"].status is ToolStatus.INTERRUPTED
    assert calls["ask_researcher"].status is ToolStatus.DONE
    coder_end = [e for e in inner(events, "coder") if isinstance(e, TurnFinished)]
    assert [e.reason for e in coder_end] == [TurnEndReason.CANCELLED]
    assert calls_of(inner(events, "coder"))["run_shell"].status is ToolStatus.INTERRUPTED
    assert agent.session is not None
    live = {event.call: (event.session_id, event.agent) for event in events if isinstance(event, SubAgentEvent)}
    assert len(live) == 2 and await agent.store.sub_session_calls(agent.session.id) == live  # stored as run


async def test_a_sub_agents_approval_reaches_the_caller_wrapped_and_its_answer_is_obeyed(
    make_agent: MakeAgent,
) -> None:
    built = await make_agent()
    asked: list[SubAgentEvent] = []
    events: list[AgentEvent] = []
    async for event in built.agent.send("ask the coder to run `echo sub-agent-was-here`"):
        events.append(event)
        if isinstance(event, ApprovalRequested):  # not the caller's to ask: deny, so the test fails, not hangs
            event.answer.set_result(Decision.DENY)
        if isinstance(event, SubAgentEvent) and isinstance(event.event, ApprovalRequested):
            asked.append(event)
            event.event.answer.set_result(Decision.ALLOW_ONCE)

    ((question,),) = [asked]
    assert question.agent == "coder" and isinstance(question.event, ApprovalRequested)
    assert question.event.call.name == "run_shell"
    shell = calls_of(inner(events, "coder"))["run_shell"]
    assert shell.status is ToolStatus.DONE and "sub-agent-was-here" in (shell.result or "")
    assert "sub-agent-was-here" in (calls_of(events)["ask_coder"].result or "")


async def test_the_export_of_a_session_includes_its_sub_agent_sessions(make_agent: MakeAgent) -> None:
    built = await make_agent()
    agent = built.agent
    await collect(agent.send("ask the researcher what the weather is in Paris"))
    assert agent.session is not None
    ((child_id, _),) = await agent.store.sub_sessions(agent.session.id)

    markdown = await agent.store.export_markdown(agent.session.id)
    assert f"- Sub-agent `researcher` of `{agent.session.id}`" in markdown
    assert f"- Session: `{child_id}`" in markdown and "get_current_weather" in markdown
    exported = json.loads(await agent.store.export_json(agent.session.id))
    (sub,) = exported["sub_agents"]
    assert sub["agent"] == "researcher" and sub["session"]["id"] == child_id
    assert sub["messages"][0]["content"] == "What the weather is in Paris"


def write_agents(home: Path, agents: dict[str, str]) -> None:
    """User profiles (they win over the shipped ones of the same name)."""
    folder = home / "config" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in agents.items():
        (folder / f"{name}.toml").write_text(f'name = "{name}"\n{body}\n')


def offered(server: BackgroundServer) -> list[set[str]]:
    """The delegate tools offered in each chat request, in order."""
    bodies = [record.body for record in server.requests if record.body is not None]
    return [{tool["function"]["name"] for tool in body.get("tools") or []} & DELEGATES for body in bodies]


DELEGATES = {"ask_assistant", "ask_researcher", "ask_helper", "ask_fixer"}


async def test_delegation_stops_at_the_depth_bound_and_never_calls_back_up_its_chain(
    make_agent: MakeAgent, offline_server: BackgroundServer, isolated_home: Path
) -> None:
    write_agents(
        isolated_home,
        {
            "assistant": 'delegates = ["researcher"]',
            "researcher": 'system_prompt = "You are a researcher."\ndelegates = ["assistant", "helper"]',
            "helper": 'system_prompt = "You are a helper."\ndelegates = ["researcher", "fixer"]',
            "fixer": 'system_prompt = "You are a fixer."',
        },
    )
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("ask the researcher to ask the helper to ask the fixer for a hand"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    # the assistant, the researcher (not back to the assistant), the helper (two levels down: asks no one),
    # then the researcher and the assistant answering from their calls' results
    assert offered(offline_server) == [{"ask_researcher"}, {"ask_helper"}, set(), {"ask_helper"}, {"ask_researcher"}]
    helper = [e.event for e in inner(events, "researcher") if isinstance(e, SubAgentEvent)]
    assert helper and all(isinstance(e, SubAgentEvent) is False for e in helper)  # nothing below the helper
    session = built.agent.session
    assert session is not None
    ((researcher_id, _),) = await built.agent.store.sub_sessions(session.id)
    assert [agent for _, agent in await built.agent.store.sub_sessions(researcher_id)] == ["helper"]


FAILING_SUB_AGENT = {
    "replies": [
        {"tool_calls": [{"name": "ask_researcher", "arguments": {"task": "Find the answer"}}]},
        {"status": 400, "error_message": "the researcher's model is gone"},
    ]
}


@pytest.mark.parametrize("offline_server", [FAILING_SUB_AGENT], indirect=True)
async def test_a_failed_sub_agent_is_a_failed_call_with_its_reason(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("Find the answer"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    asked = calls_of(events)["ask_researcher"]
    assert asked.status is ToolStatus.FAILED
    assert asked.error is not None and asked.error.startswith("ask_researcher failed: The researcher failed: ")
    assert "the researcher's model is gone" in asked.error
    (end,) = [e for e in inner(events, "researcher") if isinstance(e, TurnFinished)]
    assert end.reason is TurnEndReason.ERROR


async def test_offline_a_sub_agent_whose_profile_names_a_model_is_stored_under_the_offline_models_name(
    make_agent: MakeAgent, isolated_home: Path
) -> None:
    agents = isolated_home / "config" / "agents"
    agents.mkdir(parents=True)
    profile = agents / "researcher.toml"
    profile.write_text('name = "researcher"\ndescription = "Finds facts."\nmodel = "gpt-4o"\n', encoding="utf-8")
    profile.chmod(0o600)
    built = await make_agent()  # no endpoint: the offline model answers every agent, whatever model it names
    agent = built.agent
    events = await collect(agent.send("ask the researcher what the weather is in Paris"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    assert agent.session is not None and agent.model == "offline"
    ((child_id, _),) = await agent.store.sub_sessions(agent.session.id)
    child = await agent.store.get_session(child_id)
    assert child is not None and child.model == "offline"
    replies = [message for message in await agent.store.load_tail(child_id, 10) if message.model]
    assert replies and {message.model for message in replies} == {"offline"}
