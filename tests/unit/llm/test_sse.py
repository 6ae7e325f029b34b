"""The SSE parser: events split anywhere across network blocks, CRLF, comments, multi-line data, bad bytes."""

from __future__ import annotations

import pytest

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


def test_a_last_event_without_its_blank_line_still_counts() -> None:
    assert parse([b"data: tail"]) == ["tail"]


def test_bytes_that_are_not_utf8_raise() -> None:
    with pytest.raises(UnicodeDecodeError):
        parse([b"data: \xff\xfe\n\n"])
    with pytest.raises(UnicodeDecodeError):
        parse([b"data: \xc3"])  # cut inside a multi-byte character at the end of the body
