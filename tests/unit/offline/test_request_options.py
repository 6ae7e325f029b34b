"""The offline model as the openai SDK sees it: `GET /v1/models/{id}`, `tool_choice`, `stop`, `response_format`
honoured, and an OpenAI-shaped 400 for a request without valid `messages` (each answered wrongly before)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from tui_agent.offline.json_sample import sample
from tui_agent.offline.request_options import stopped
from tui_agent.offline.scenario import Reply
from tui_agent.offline.server import BackgroundServer

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}
CLOCK: Any = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"zone": {"type": "string"}, "utc": {"type": "boolean"}}},
    },
}


@pytest.fixture(scope="module")
def client() -> Iterator[openai.OpenAI]:
    with BackgroundServer({"strict": False}) as server:
        yield openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)


def ask(text: str) -> Any:
    return [{"role": "user", "content": text}]


def test_a_request_without_valid_messages_is_an_openai_400(client: openai.OpenAI) -> None:
    wrong: list[tuple[Any, str, str]] = [
        (openai.omit, "messages", "missing_required_parameter"),
        ([], "messages", "empty_array"),
        ("hello", "messages", "invalid_type"),
        (["hello"], "messages[0]", "invalid_type"),
        ([{"content": "hi"}], "messages[0].role", "missing_required_parameter"),
        ([{"role": "robot", "content": "hi"}], "messages[0].role", "invalid_value"),
        ([{"role": "user"}], "messages[0].content", "missing_required_parameter"),
    ]
    for messages, param, code in wrong:
        with pytest.raises(openai.BadRequestError) as raised:
            client.chat.completions.create(model="m", messages=messages)
        error = raised.value
        assert (error.status_code, error.param, error.code) == (400, param, code), messages
        assert error.type == "invalid_request_error" and str(param) in str(error.message)
    # an assistant message that only called tools may have no content
    calls: Any = [{"id": "c1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]
    answered: Any = [
        *ask("time?"),
        {"role": "assistant", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "noon"},
    ]
    assert client.chat.completions.create(model="m", messages=answered).choices[0].message.content


def test_one_model_is_answered_by_its_id(client: openai.OpenAI) -> None:
    assert client.models.retrieve("offline").id == "offline"
    assert client.models.retrieve("any-name/v2").id == "any-name/v2"  # any name is answered, as in chat


def test_tool_choice_none_required_and_named(client: openai.OpenAI) -> None:
    tools = [WEATHER, CLOCK]
    weather = ask("what is the weather in Paris?")
    assert client.chat.completions.create(model="m", messages=weather, tools=tools).choices[0].message.tool_calls
    none = client.chat.completions.create(model="m", messages=weather, tools=tools, tool_choice="none")
    assert none.choices[0].message.tool_calls is None and none.choices[0].message.content
    assert none.choices[0].finish_reason == "stop"

    required = client.chat.completions.create(
        model="m", messages=ask("hello there"), tools=tools, tool_choice="required"
    )
    (call,) = required.choices[0].message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_current_weather"
    assert json.loads(call.function.arguments) == {"location": "location: hello there", "unit": "celsius"}
    assert required.choices[0].finish_reason == "tool_calls"

    named = client.chat.completions.create(
        model="m", messages=weather, tools=tools, tool_choice={"type": "function", "function": {"name": "get_time"}}
    )
    (call,) = named.choices[0].message.tool_calls or []
    assert call.type == "function" and call.function.name == "get_time"
    assert json.loads(call.function.arguments) == {"zone": "zone: what is the weather in Paris?", "utc": True}

    stream = client.chat.completions.create(model="m", messages=weather, tools=tools, tool_choice="none", stream=True)
    assert not any(chunk.choices and chunk.choices[0].delta.tool_calls for chunk in stream)

    for choice, tools_sent, param in [
        ({"type": "function", "function": {"name": "nope"}}, tools, "tool_choice"),
        ("required", openai.omit, "tool_choice"),
        ("sometimes", tools, "tool_choice"),
    ]:
        with pytest.raises(openai.BadRequestError) as raised:
            client.chat.completions.create(model="m", messages=weather, tools=tools_sent, tool_choice=choice)  # type: ignore[call-overload]
        assert raised.value.param == param


def test_stop_cuts_the_reply_before_the_sequence(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="m", messages=ask("tell me a story")).choices[0].message.content
    assert whole is not None and "You asked" in whole
    cut = client.chat.completions.create(model="m", messages=ask("tell me a story"), stop=["zzz", "You asked"])
    assert cut.choices[0].message.content == whole[: whole.index("You asked")]
    assert cut.choices[0].finish_reason == "stop"
    stream = client.chat.completions.create(model="m", messages=ask("tell me a story"), stop="You asked", stream=True)
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == whole[: whole.index("You asked")]
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="m", messages=ask("x"), stop=["a", "b", "c", "d", "e"])
    assert raised.value.param == "stop"


def test_a_stop_sequence_across_segments_drops_the_calls_after_it() -> None:
    reply = Reply.model_validate(
        {"text": "Let me lo", "interleaved": [{"text": "ok. Then", "tool_calls": [{"name": "f"}]}]}
    )
    cut = stopped(reply, ["look"])
    assert [s.text for s in cut.segments] == ["Let me "] and not cut.all_calls and cut.finish_reason == "stop"
    assert stopped(reply, ["absent"]) is reply


class City(BaseModel):
    name: str
    population: int
    tags: list[str]
    capital: bool | None = None


class Answer(BaseModel):
    city: City
    mood: str


def test_response_format_json_object_and_json_schema(client: openai.OpenAI) -> None:
    json_object = client.chat.completions.create(
        model="m", messages=ask("answer in json please"), response_format={"type": "json_object"}
    )
    content = json_object.choices[0].message.content or ""
    assert json.loads(content)["prompt"] == "answer in json please"

    parsed = client.chat.completions.parse(model="m", messages=ask("describe Paris"), response_format=Answer)
    answer = parsed.choices[0].message.parsed
    assert isinstance(answer, Answer) and answer.city.name == "name: describe Paris" and answer.city.tags

    with pytest.raises(openai.BadRequestError) as raised:  # OpenAI's rule: json_object only when asked for json
        client.chat.completions.create(model="m", messages=ask("hello"), response_format={"type": "json_object"})
    assert raised.value.param == "messages"
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="m", messages=ask("x"), response_format={"type": "json_schema"})  # type: ignore[call-overload]
    assert raised.value.param == "response_format.json_schema"


def test_samples_follow_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date"},
            "count": {"type": "integer", "minimum": 3},
            "ratio": {"type": "number", "exclusiveMaximum": -1},
            "kind": {"const": "x"},
            "maybe": {"type": ["null", "boolean"]},
            "code": {"type": "string", "maxLength": 4},
            "node": {"$ref": "#/$defs/Node"},
        },
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
    }
    value = sample(schema, "hello")
    assert {key: value[key] for key in ("when", "count", "ratio", "kind", "maybe", "code")} == {
        "when": "1970-01-01",
        "count": 3,
        "ratio": -2.0,
        "kind": "x",
        "maybe": True,
        "code": "code",
    }
    depth = 0
    node = value["node"]
    while isinstance(node, dict) and "child" in node:  # a recursive schema ends
        node, depth = node["child"], depth + 1
    assert depth < 10
