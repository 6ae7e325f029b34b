"""A lone surrogate is legal JSON (`"\\ud800"`) but no encoder takes it: every stream event carries U+FFFD instead.

The real client over HTTP against the offline model, whose `raw_events` send what a careless server would.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.unit.llm.helpers import WEATHER_TOOL, collect
from tui_agent.llm.assembler import StreamAssembler
from tui_agent.llm.errors import ServerError
from tui_agent.llm.events import TextDelta, ToolCallReady, ToolCallStarted, ToUserDelta
from tui_agent.offline.server import BackgroundServer


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})  # escapes \ud800


def call(name: str, arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": name, "arguments": arguments}}]}


POISON = {
    "replies": [
        {
            "raw_events": [
                chunk({"content": "a\ud800b"}),
                chunk(
                    call(
                        "get_current_weather\udc00",
                        '{"to_user": "Looking \\ud83d\\ude00 \\ud800", "location": "Os\\udfffo"}',
                    )
                ),
                chunk({}, "tool_calls"),
            ]
        }
    ]
}


@pytest.mark.parametrize("offline_server", [POISON], indirect=True)
async def test_text_names_arguments_and_to_user_come_out_encodable(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url, tools=[WEATHER_TOOL])
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["a\ufffdb"]
    assert [e.name for e in events if isinstance(e, ToolCallStarted)] == ["get_current_weather\ufffd"]
    assert "".join(e.text for e in events if isinstance(e, ToUserDelta)) == "Looking \U0001f600 \ufffd"
    (ready,) = [e for e in events if isinstance(e, ToolCallReady)]
    assert ready.arguments == {"location": "Os\ufffdo"}
    assert json.loads(ready.raw) == {"to_user": "Looking \U0001f600 \ufffd", "location": "Os\ufffdo"}
    for event in events:
        repr(event).encode("utf-8")  # nothing anywhere in an event that UTF-8 refuses


@pytest.mark.parametrize(
    "offline_server", [{"replies": [{"raw_events": ['{"error": {"message": "bad \\ud800"}}']}]}], indirect=True
)
async def test_a_server_error_message_is_encodable(offline_server: BackgroundServer) -> None:
    with pytest.raises(ServerError) as caught:
        await collect(offline_server.base_url)
    assert "bad \ufffd" in caught.value.user_message


def test_the_assembler_cleans_arguments_whoever_decoded_the_chunk() -> None:
    assembler = StreamAssembler(decode_to_user=False)
    assembler.feed({"choices": [{"delta": call("echo", '{"text": "x\\ud800y", "n": [1, "\\udc00"]}')}]})
    (ready,) = assembler.feed({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    assert isinstance(ready, ToolCallReady)
    assert ready.arguments == {"text": "x\ufffdy", "n": [1, "\ufffd"]}
    assert json.loads(ready.raw) == ready.arguments
