"""The SSE parser: events split anywhere across network blocks, CRLF, comments, multi-line data, bad bytes."""

from __future__ import annotations

import json

import pytest

from tui_agent.llm.reply_stream import decode_payload
from tui_agent.llm.sse import SSEParser

BODY = 'data: {"a": "é\u2028"}\r\n\r\n: keep-alive\n\nevent: x\ndata: one\ndata: two\n\ndata:[DONE]\n\n'.encode()


def parse(blocks: list[bytes]) -> list[str]:
    parser = SSEParser()
    payloads = [p for block in blocks for p in parser.feed(block)]
    return payloads + parser.close()


def test_every_split_gives_the_same_events() -> None:
    expected = ['{"a": "é\u2028"}', "one\ntwo", "[DONE]"]
    for cut in range(len(BODY) + 1):
        assert parse([BODY[:cut], BODY[cut:]]) == expected, cut
    assert parse([bytes([b]) for b in BODY]) == expected


def test_every_split_of_a_plain_stream_gives_the_same_events() -> None:
    """Blocks of one-line `data:` events are cut out at once; any other line among them, wherever the blocks
    split, is read as the line-by-line reader reads it."""
    body = b'data: {"a": 1}\n\ndata: two\n\n: ping\n\ndata: x\ndata: y\n\nevent: e\ndata: z\n\n\ndata:[DONE]\n\n'
    expected = ['{"a": 1}', "two", "x\ny", "z", "[DONE]"]
    for first in range(len(body) + 1):
        for second in range(first, len(body) + 1):
            assert parse([body[:first], body[first:second], body[second:]]) == expected, (first, second)


def test_a_last_event_without_its_blank_line_still_counts() -> None:
    assert parse([b"data: tail"]) == ["tail"]
    assert parse([b"data: a\n\ndata: tail\n"]) == ["a", "tail"]


def test_bytes_that_are_not_utf8_raise() -> None:
    with pytest.raises(UnicodeDecodeError):
        parse([b"data: \xff\xfe\n\n"])
    with pytest.raises(UnicodeDecodeError):
        parse([b"data: \xc3"])  # cut inside a multi-byte character at the end of the body


@pytest.mark.parametrize(
    "payload",
    ['{"a": [1, 2.5, null]}', ' {"a": 1}\r\n', '{"a": 1}x', '{"a": 1} {"b": 2}', "-Infinity", "{not json", "", " "]
    + ['"\\ud800"'],
)
def test_a_payload_decodes_to_what_json_loads_gives_or_fails_as_it_does(payload: str) -> None:
    """`decode_payload` skips `json.loads`'s wrapper for speed: the same value, or the same error at the same place."""
    try:
        expected = json.loads(payload)
    except json.JSONDecodeError as error:
        with pytest.raises(json.JSONDecodeError) as raised:
            decode_payload(payload)
        assert (raised.value.msg, raised.value.pos, raised.value.doc) == (error.msg, error.pos, error.doc)
        return
    assert decode_payload(payload) == (expected if expected != "\ud800" else "\ufffd")
