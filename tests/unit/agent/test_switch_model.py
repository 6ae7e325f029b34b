"""Switching model mid-session: the endpoint's `/v1/models` is listed, the next request names the new model,
the conversation is kept, history records which model wrote each reply."""

from __future__ import annotations

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.llm.errors import LLMError
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import Role

MODELS = {"models": ["offline", "offline-large"]}


@pytest.mark.parametrize("offline_server", [MODELS], indirect=True)
async def test_next_turn_uses_the_new_model_with_the_whole_conversation(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    agent = (await make_agent(offline_server.base_url)).agent
    assert await agent.list_models() == ["offline", "offline-large"]
    await collect(agent.send("Remember the word pelican."))
    agent.switch_model("offline-large")
    assert agent.model == "offline-large"
    await collect(agent.send("Which word?"))
    bodies = [r.body for r in offline_server.requests if r.body is not None]
    assert [body["model"] for body in bodies] == ["offline", "offline-large"]
    assert [m["content"] for m in bodies[1]["messages"] if m["role"] == "user"] == [
        "Remember the word pelican.",
        "Which word?",
    ]
    assert agent.session is not None
    stored = await agent.store.load_tail(agent.session.id, 10)
    assert [m.model for m in stored if m.role is Role.ASSISTANT] == ["offline", "offline-large"]


async def test_listing_models_from_a_dead_endpoint_is_a_sentence(make_agent: MakeAgent) -> None:
    server = BackgroundServer()
    url = server.start()
    server.stop()
    agent = (await make_agent(url)).agent
    with pytest.raises(LLMError) as raised:
        await agent.list_models()
    assert raised.value.user_message
