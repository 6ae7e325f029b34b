"""The route for models the offline model does not answer (`serve`'s agents), with a stand-in `ServedModels`:
a run's pieces in OpenAI's words, whole and streamed, and its failures as errors the openai SDK raises."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import openai
import pytest

from tui_agent.offline.agent_route import Done, ModelRefused, Piece, Said, Started
from tui_agent.offline.server import OfflineServer

RUNS: dict[str, list[Piece]] = {
    "agent:good": [Started("s1"), Said("thinking", "reasoning"), Said("Hello "), Said("there."), Done(3, 2)],
    "agent:broken": [Started("s2"), Said("Half"), Done(error="the endpoint answered 500")],
    "agent:silent": [Started("s3"), Said("and then nothing")],
}


class StandIn:
    """Serves the runs above by name; `agent:busy` is refused before it starts."""

    def names(self) -> list[str]:
        return [*RUNS, "agent:busy"]

    def claims(self, model: str) -> bool:
        return model.startswith("agent:")

    async def run(self, model: str, body: dict[str, Any]) -> AsyncGenerator[Piece]:
        if model not in RUNS:
            raise ModelRefused(503, f"{model} cannot start", "agent_unavailable")
        for piece in RUNS[model]:
            yield piece


@pytest.fixture
async def client() -> AsyncIterator[openai.AsyncOpenAI]:
    server = OfflineServer(served_models=StandIn())
    await server.start()
    yield openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    await server.stop()


def ask() -> Any:
    return [{"role": "user", "content": "hi"}]


async def test_a_run_whole_and_streamed(client: openai.AsyncOpenAI) -> None:
    raw = await client.chat.completions.with_raw_response.create(model="agent:good", messages=ask())
    reply: Any = raw.parse()
    assert raw.headers["x-tui-agent-session"] == "s1"
    assert (
        reply.choices[0].message.content == "Hello there." and reply.choices[0].message.reasoning_content == "thinking"
    )
    assert reply.usage.total_tokens == 5 and reply.model == "agent:good"
    stream = await client.chat.completions.create(
        model="agent:good", messages=ask(), stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hello there."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 2


async def test_failures_are_errors_the_sdk_raises(client: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.InternalServerError) as failed:
        await client.chat.completions.create(model="agent:broken", messages=ask())
    assert failed.value.status_code == 502 and "the endpoint answered 500" in failed.value.message
    for model in ("agent:broken", "agent:silent"):
        stream = await client.chat.completions.create(model=model, messages=ask(), stream=True)
        with pytest.raises(openai.APIError) as broke:
            async for _chunk in stream:
                pass
        assert "The agent's run failed" in broke.value.message
    with pytest.raises(openai.InternalServerError) as refused:
        await client.chat.completions.create(model="agent:busy", messages=ask())
    assert refused.value.status_code == 503 and refused.value.code == "agent_unavailable"
