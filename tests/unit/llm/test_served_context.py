"""The context window a server serves, read over real HTTP from the offline model imitating each server's API
(`Scenario.serves_like`): llama.cpp's `/props` (not its `n_ctx_train`), Ollama's `/api/ps` and `/api/show`,
vLLM's `max_model_len`, `context_length`; and a request over the window refused in each server's words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.llm.helpers import collect
from tui_agent.llm.client import ChatClient
from tui_agent.llm.errors import ContextTooLongError, RequestRejectedError
from tui_agent.llm.served_context import context_overflow, server_root
from tui_agent.offline.server import BackgroundServer

KEY = "test-key"


async def windows(server: BackgroundServer, model: str = "offline") -> dict[str, int]:
    client = ChatClient(server.base_url, model, KEY)
    try:
        return await client.context_windows()
    finally:
        await client.aclose()


def asked(server: BackgroundServer) -> list[str]:
    return [f"{record.method} {record.path}" for record in server.requests]


@pytest.mark.parametrize(
    "offline_server", [{"serves_like": "llama.cpp", "context_window": 2048, "train_window": 32768}], indirect=True
)
async def test_llama_cpp_started_with_a_small_context_says_it_in_props_not_in_models(
    offline_server: BackgroundServer,
) -> None:
    # `llama-server -c 2048` of a model trained on 32,768: `/v1/models` says only n_ctx_train.
    assert await windows(offline_server) == {"offline": 2048}
    assert asked(offline_server) == ["GET /v1/models", "GET /props"]
    # Whatever name the person gives the model, llama.cpp serves its one model with that window.
    assert (await windows(offline_server, "qwen"))["qwen"] == 2048


@pytest.mark.parametrize(
    "offline_server",
    [{"serves_like": "ollama", "context_window": 8192, "train_window": 131072, "models": ["llama3.2:latest"]}],
    indirect=True,
)
async def test_ollama_says_the_window_a_loaded_model_was_loaded_with(offline_server: BackgroundServer) -> None:
    assert await windows(offline_server, "llama3.2") == {"llama3.2:latest": 8192, "llama3.2": 8192}
    assert asked(offline_server) == ["GET /v1/models", "GET /api/ps"]


@pytest.mark.parametrize(
    "offline_server",
    [{"serves_like": "ollama", "context_window": 4096, "train_window": 131072, "ollama_loaded": False}],
    indirect=True,
)
async def test_ollama_says_num_ctx_of_a_model_not_loaded_yet(offline_server: BackgroundServer) -> None:
    assert await windows(offline_server) == {"offline": 4096}  # its Modelfile's num_ctx, not model_info's 131072
    assert asked(offline_server) == ["GET /v1/models", "GET /api/ps", "POST /api/show"]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ({"serves_like": "vllm", "context_window": 4096}, {"offline": 4096}),
        ({"serves_like": "generic", "context_window": 16384}, {"offline": 16384}),
        ({"serves_like": "openai", "context_window": 16384}, {}),  # says nothing; not Ollama either
    ],
)
async def test_other_servers_say_it_in_their_models_entries_or_not_at_all(
    scenario: dict[str, Any], expected: dict[str, int]
) -> None:
    with BackgroundServer(scenario) as server:
        assert await windows(server) == expected
        assert asked(server)[0] == "GET /v1/models"
        assert "GET /props" not in asked(server)


PROMPT = [{"role": "user", "content": " ".join(["word"] * 120)}]


@pytest.mark.parametrize("serves_like", ["llama.cpp", "openai", "vllm"])
async def test_a_request_over_the_window_is_a_context_error_with_the_sizes_the_server_said(serves_like: str) -> None:
    scenario = {"serves_like": serves_like, "context_window": 100, "enforce_window": True}
    with BackgroundServer(scenario) as server:
        with pytest.raises(ContextTooLongError) as raised:
            await collect(server.base_url, PROMPT, api_key=KEY)
    assert raised.value.window == 100 and raised.value.prompt_tokens == 120
    assert "longer than the context window of the model" in raised.value.user_message


async def test_other_400s_are_not_context_errors() -> None:
    with BackgroundServer({"replies": [{"status": 400, "error_message": "bad temperature"}]}) as server:
        with pytest.raises(RequestRejectedError) as raised:
            await collect(server.base_url, api_key=KEY)
    assert not isinstance(raised.value, ContextTooLongError)


def test_overflow_words_and_codes_of_servers_that_send_no_sizes() -> None:
    assert context_overflow({"code": "context_length_exceeded", "message": "Too long."}) is not None
    assert context_overflow("the prompt is too long for this model") is not None
    assert context_overflow({"message": "temperature must be below 2"}) is None
    assert server_root("http://localhost:8080/v1/") == "http://localhost:8080"
    assert server_root("https://example.com/api/v1") == "https://example.com/api"
