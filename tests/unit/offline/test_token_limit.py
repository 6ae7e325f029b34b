"""The offline model honours `max_tokens` / `max_completion_tokens`: it stops there with `finish_reason: "length"`."""

from __future__ import annotations

import json

import openai
import pytest

from tui_agent.offline import frames
from tui_agent.offline.scenario import Reply
from tui_agent.offline.server import BackgroundServer

TEN_WORDS = "one two three four five six seven eight nine ten"


def client(server: BackgroundServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)


@pytest.mark.parametrize("offline_server", [{"replies": [{"text": TEN_WORDS}], "then": "repeat_last"}], indirect=True)
@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_a_streamed_reply_stops_at_the_limit(offline_server: BackgroundServer, field: str) -> None:
    chunks = list(
        client(offline_server).chat.completions.create(  # type: ignore[call-overload]  # the field is a parameter
            model="m",
            messages=[{"role": "user", "content": "count"}],
            stream=True,
            stream_options={"include_usage": True},
            **{field: 4},
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "one two three four"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 4


@pytest.mark.parametrize("offline_server", [{"replies": [{"text": TEN_WORDS}]}], indirect=True)
def test_a_whole_reply_stops_at_the_limit(offline_server: BackgroundServer) -> None:
    reply = client(offline_server).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "count"}], max_tokens=2
    )
    assert reply.choices[0].message.content == "one two" and reply.choices[0].finish_reason == "length"


@pytest.mark.parametrize("offline_server", [{"replies": [{"text": TEN_WORDS}]}], indirect=True)
def test_a_reply_within_the_limit_is_whole(offline_server: BackgroundServer) -> None:
    reply = client(offline_server).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "count"}], max_tokens=10
    )
    assert reply.choices[0].message.content == TEN_WORDS and reply.choices[0].finish_reason == "stop"


def test_tool_arguments_past_the_limit_are_cut() -> None:
    reply = Reply(text="Let me", tool_calls=[{"name": "f", "arguments": {"text": "a b c d"}}])
    cut = frames.within_limit(reply, 4)
    (call,) = cut.tool_calls
    assert cut.finish_reason == "length" and cut.text == "Let me"
    assert call.arguments == '{"text": "a'  # what the model had written when it was stopped
    with pytest.raises(ValueError):
        json.loads(frames.raw_arguments(call))


THINKS = {
    "reasoning": "one two three",
    "text": "four five",
    "interleaved": [{"reasoning": "six seven", "text": "eight"}],
}


@pytest.mark.parametrize(
    ("limit", "reasoning", "text"),
    [
        (2, "one two", ""),
        (4, "one two three", "four"),
        (6, "one two threesix", "four five"),
        (8, "one two threesix seven", "four fiveeight"),
    ],
)
def test_reasoning_counts_toward_the_limit_in_the_order_it_streams(limit: int, reasoning: str, text: str) -> None:
    cut = frames.within_limit(Reply.model_validate(THINKS), limit)
    assert cut.finish_reason == ("length" if limit < 8 else None)
    assert ("".join(s.reasoning for s in cut.segments), "".join(s.text for s in cut.segments)) == (reasoning, text)
