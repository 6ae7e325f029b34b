"""The agent on `provider = "anthropic"`, on the real stack (the strict offline model's `/v1/messages` over HTTP, a
real SQLite file): a turn whose reply makes two tool calls runs both and answers from their results; a prompt over
the window is refused as too long, with the offer to compact; and a session begun on the OpenAI protocol goes on
over Anthropic's, every request valid there."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.endpoint import ANTHROPIC_DEFAULT_MODEL, ANTHROPIC_URL, EndpointChoice, choose_endpoint
from tui_agent.agent.events import AgentEvent, AssistantPartDelta, ToolCallUpdated, TurnEndReason, TurnFinished
from tui_agent.agent.providers import PROVIDERS, provider_for
from tui_agent.config import Settings
from tui_agent.llm.anthropic_client import AnthropicClient
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision

DEMO = {"demo_tools": True}
"""The offline model plays Claude here (asked for another model's name): its demo weather is offered as to itself."""


def finished(events: list[AgentEvent]) -> TurnFinished:
    last = events[-1]
    assert isinstance(last, TurnFinished)
    return last


def allow(_call: Any) -> Decision:
    return Decision.ALLOW_ONCE


async def test_two_tool_calls_in_one_reply_run_and_the_answer_uses_both(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, provider="anthropic", model="claude-haiku-4-5", tools=DEMO)
    events = await collect(built.agent.send("What's the weather in Paris and in Tokyo?"), allow)
    assert finished(events).reason is TurnEndReason.DONE, finished(events).error
    ran = {e.call.call_id for e in events if isinstance(e, ToolCallUpdated) and e.call.status is ToolStatus.DONE}
    assert len(ran) == 2
    assert [record.path for record in offline_server.requests if record.body] == ["/v1/messages"] * 2
    assert [record.outcome for record in offline_server.requests if record.body] == ["ok", "ok"]
    second = offline_server.requests[-1].body
    assert second is not None
    results = [block for block in second["messages"][-1]["content"] if block["type"] == "tool_result"]
    assert len(results) == 2


async def test_a_prompt_over_the_window_is_refused_as_too_long_with_the_offer_to_compact(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, provider="anthropic", model="claude-haiku-4-5", tools=DEMO)
    served = offline_server.server
    served.scenario = served.scenario.model_copy(update={"enforce_window": True, "context_window": 4})
    end = finished(await collect(built.agent.send("Name a river in Europe, and a mountain too")))
    assert end.reason is TurnEndReason.ERROR
    assert end.error is not None and "longer than the context window" in end.error
    assert "compact" in end.error
    assert built.agent.meter.context_window == 4  # learnt from "prompt is too long: N tokens > 4 maximum"


async def test_a_session_begun_on_the_openai_protocol_goes_on_over_anthropics(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    openai_side = await make_agent(offline_server.base_url)
    await collect(openai_side.agent.send("What's the weather in Paris and in Tokyo?"), allow)
    await collect(openai_side.agent.send("Thanks! And the time?"), allow)
    session = openai_side.agent.session
    assert session is not None
    await openai_side.close()
    assert {record.path for record in offline_server.requests if record.body} == {"/v1/chat/completions"}

    anthropic_side = await make_agent(
        offline_server.base_url, provider="anthropic", model="claude-haiku-4-5", tools=DEMO
    )
    await anthropic_side.agent.resume(session.id)
    before = len(offline_server.requests)
    end = finished(await collect(anthropic_side.agent.send("What's the weather in Oslo and in Rome?"), allow))
    assert end.reason is TurnEndReason.DONE, end.error
    went = offline_server.requests[before:]
    assert [record.path for record in went] == ["/v1/messages"] * 2
    assert [record.outcome for record in went] == ["ok", "ok"]  # the strict endpoint took the old history
    first = went[0].body
    assert first is not None
    kinds = [block["type"] for message in first["messages"] for block in message["content"]]
    assert kinds.count("tool_use") == kinds.count("tool_result") >= 2  # the OpenAI turns' calls, converted


def test_an_anthropic_key_alone_means_anthropics_api() -> None:
    choice = choose_endpoint(
        Settings(provider="anthropic"), {"ANTHROPIC_API_KEY": "sk-ant-k", "OPENAI_API_KEY": "sk-o"}
    )
    assert (choice.base_url, choice.model, choice.api_key) == (ANTHROPIC_URL, ANTHROPIC_DEFAULT_MODEL, "sk-ant-k")
    assert choose_endpoint(
        Settings(), {"ANTHROPIC_API_KEY": "sk-ant-k"}
    ).offline  # the OpenAI protocol's key is another


async def test_the_offline_notice_names_the_anthropic_providers_own_variables() -> None:
    async with AsyncExitStack() as resources:
        _, notices = await provider_for(EndpointChoice(None, "offline"), Settings(provider="anthropic")).open(
            EndpointChoice(None, "offline"), resources
        )
    assert "ANTHROPIC_API_KEY" in notices[0] and "--base-url" in notices[0]
    assert "OPENAI" not in notices[0]


async def test_the_thinking_budget_setting_turns_thinking_on_and_it_shows_as_reasoning(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(
        offline_server.base_url, provider="anthropic", model="claude-haiku-4-5", thinking_budget=2048
    )
    events = await collect(built.agent.send("Name a river in Europe"))
    assert finished(events).reason is TurnEndReason.DONE, finished(events).error
    [sent] = [record.body for record in offline_server.requests if record.body]
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    reasoning = "".join(e.text for e in events if isinstance(e, AssistantPartDelta) and e.kind == "reasoning")
    assert reasoning.startswith("The conversation has")  # the offline model's thinking block, as reasoning


def test_the_openai_client_is_made_without_the_thinking_budget() -> None:
    settings = Settings(provider="anthropic", thinking_budget=2048)
    client = PROVIDERS["openai"].client(EndpointChoice("http://127.0.0.1:9/v1", "m"), settings, None)
    assert not isinstance(client, AnthropicClient)  # made at all: `ChatClient` takes no `thinking_budget`
