"""No model named: the server's only chat model is used; with several, nothing is guessed and the user is told."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.agent.conftest import collect
from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint
from tui_agent.agent.events import TurnEndReason, TurnFinished
from tui_agent.agent.model_choice import chat_models
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings, load_settings
from tui_agent.offline.server import BackgroundServer

OPENAI_LIST = [
    "gpt-4o",
    "gpt-4o-mini",
    "text-embedding-3-small",
    "text-embedding-ada-002",
    "dall-e-3",
    "tts-1",
    "whisper-1",
    "omni-moderation-latest",
    "gpt-image-1",
    "gpt-4o-mini-tts",
    "gpt-4o-transcribe",
    "gpt-4o-realtime-preview",
    "nomic-embed-text",
    "bge-reranker-v2-m3",
    "o3-mini",
]


def test_only_chat_models_are_listed() -> None:
    assert chat_models(OPENAI_LIST) == ["gpt-4o", "gpt-4o-mini", "o3-mini"]


def test_a_custom_endpoint_without_a_model_leaves_it_to_the_server() -> None:
    environ = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}
    assert choose_endpoint(load_settings({}, environ=environ), environ=environ).model == ""
    openai = choose_endpoint(load_settings({}, environ={}), environ={"OPENAI_API_KEY": "sk-test"})
    assert openai.model == "gpt-4o-mini"  # OpenAI's own endpoint keeps its default


async def build(server: BackgroundServer, tmp_path: Any) -> Any:
    settings = Settings(db=tmp_path / "history.db")
    return await build_agent(settings, choose_endpoint(settings.model_copy(update={"base_url": server.base_url})))


@pytest.mark.parametrize("offline_server", [{"models": ["gemma-3-270m-it", "nomic-embed-text"]}], indirect=True)
async def test_the_only_chat_model_served_is_used_sent_and_stored(
    offline_server: BackgroundServer, tmp_path: Any
) -> None:
    built = await build(offline_server, tmp_path)
    try:
        assert built.agent.model == "gemma-3-270m-it" and not any("model" in n for n in built.notices)
        events = await collect(built.agent.send("hello"))
        assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
        assert (offline_server.requests[-1].body or {})["model"] == "gemma-3-270m-it"
        session = built.agent.session
        assert session is not None and session.model == "gemma-3-270m-it"
        (_, reply) = await built.agent.store.load_tail(session.id, 10)
        assert reply.model == "gemma-3-270m-it"
    finally:
        await built.close()


@pytest.mark.parametrize(
    "offline_server", [{"models": ["qwen3-8b", "llama-3.1-8b", "text-embedding-3-small"]}], indirect=True
)
async def test_several_models_are_listed_and_none_is_guessed(offline_server: BackgroundServer, tmp_path: Any) -> None:
    built = await build(offline_server, tmp_path)
    try:
        assert built.agent.model == ""
        (notice,) = [n for n in built.notices if "No model was named" in n]
        assert "2 chat models: qwen3-8b, llama-3.1-8b." in notice and "--model" in notice
        assert "embedding" not in notice
        assert await built.agent.list_models() == ["qwen3-8b", "llama-3.1-8b"]  # the picker's list
        events = await collect(built.agent.send("hello"))
        finished = events[-1]
        assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.ERROR
        assert finished.error and "No model is chosen" in finished.error
        assert not [r for r in offline_server.requests if r.path.endswith("/chat/completions")]  # nothing sent
        built.agent.switch_model("llama-3.1-8b")
        events = await collect(built.agent.send("hello again"))
        assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    finally:
        await built.close()


async def test_a_server_that_cannot_list_its_models_is_a_notice(tmp_path: Any) -> None:
    settings = Settings(db=tmp_path / "history.db")
    built = await build_agent(settings, EndpointChoice("http://127.0.0.1:9/v1", "", "key"))
    try:
        assert built.agent.model == ""
        assert any("could not list its models" in notice for notice in built.notices)
    finally:
        await built.close()
