"""Call ids: unique across responses by default, as real providers' are; numbered per response on request."""

from __future__ import annotations

import re

import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam

from tests.unit.offline.test_server import WEATHER_TOOL
from tui_agent.offline.server import BackgroundServer

ASK: list[ChatCompletionMessageParam] = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
TOOLS: list[ChatCompletionFunctionToolParam] = [{"type": "function", "function": WEATHER_TOOL["function"]}]


def ids_of_two_responses(server: BackgroundServer, stream: bool) -> list[str]:
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    ids: list[str] = []
    for _ in range(2):
        if stream:
            chunks = client.chat.completions.create(
                model="m",
                messages=ASK,
                tools=TOOLS,
                stream=True,
            )
            ids += [call.id for c in chunks if c.choices for call in c.choices[0].delta.tool_calls or [] if call.id]
        else:
            reply = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
            ids += [call.id for call in reply.choices[0].message.tool_calls or []]
    return ids


@pytest.mark.parametrize("stream", [True, False])
def test_call_ids_are_unique_across_responses(offline_server: BackgroundServer, stream: bool) -> None:
    ids = ids_of_two_responses(offline_server, stream)
    assert len(ids) == 4 and len(set(ids)) == 4
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", call_id) for call_id in ids)


@pytest.mark.parametrize("offline_server", [{"call_ids": "per_response"}], indirect=True)
def test_call_ids_can_be_numbered_per_response(offline_server: BackgroundServer) -> None:
    assert ids_of_two_responses(offline_server, stream=True) == ["call_0", "call_1", "call_0", "call_1"]


@pytest.mark.parametrize(
    "offline_server", [{"replies": [{"tool_calls": [{"name": "f", "id": "mine"}]}]}], indirect=True
)
def test_a_scripted_id_is_kept(offline_server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=offline_server.base_url, api_key="k", max_retries=0)
    reply = client.chat.completions.create(model="m", messages=ASK)
    assert [call.id for call in reply.choices[0].message.tool_calls or []] == ["mine"]
