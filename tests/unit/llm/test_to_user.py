"""`to_user` decoding from partial JSON: hand-picked splits, then random arguments split at random points."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk

from tui_agent.llm.assembler import StreamAssembler
from tui_agent.llm.events import ToolCallReady, ToUserDelta
from tui_agent.llm.to_user import ToUserDecoder


def decode(pieces: list[str]) -> str:
    decoder = ToUserDecoder()
    return "".join(decoder.feed(piece) for piece in pieces)


def test_every_split_of_an_escaped_value_decodes_the_same() -> None:
    raw = r'{"a": 1, "to_user": "Say \"hi\" \\ \n\u00e9\ud83d\ude00 /\/ \t", "b": [2]}'
    expected = json.loads(raw)["to_user"]
    for cut in range(len(raw) + 1):
        assert decode([raw[:cut], raw[cut:]]) == expected, cut
    assert decode(list(raw)) == expected


def test_to_user_is_emitted_as_it_arrives() -> None:
    decoder = ToUserDecoder()
    assert decoder.feed('{"to_user": "Let me ') == "Let me "
    assert decoder.feed("check\\") == "check"
    assert decoder.feed('u0021", "location": "Paris"}') == "!"
    assert decoder.finished


def test_nested_null_and_non_string_values_are_ignored() -> None:
    assert decode(['{"x": {"to_user": "nested"}, "to_user": null}']) == ""
    assert decode(['{"to_user": 12, "y": "to_user"}']) == ""
    assert decode(['{"to_user": ["a"], "to_user2": "no"}']) == ""


def test_an_escaped_key_still_counts_and_broken_json_goes_quiet() -> None:
    assert decode(['{"to\\u005fuser": "yes"}']) == "yes"
    assert decode(['["to_user", "no"]']) == ""
    assert decode(['{"to_user": "ok \\q never"}']) == "ok "


def test_lone_surrogates_match_json_loads() -> None:
    raw = '{"to_user": "a\\ud83d b \\udc00"}'
    assert decode([raw[:17], raw[17:]]) == json.loads(raw)["to_user"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
tricky_text = st.text(alphabet=st.sampled_from(list('ab "\\/\n\t\u00e9\u2603\U0001f600{}[],:') + ["\x00", "\x1f"]))


def chunk(index: int, arguments: str, call_id: str | None = None, finish: str | None = None) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    delta: dict[str, Any] = {"index": index, "function": function}
    if call_id is not None:
        delta.update(id=call_id, type="function")
        function["name"] = "f"
    choice = {"index": 0, "delta": {"tool_calls": [delta]}, "finish_reason": finish}
    # Validated by openai's own model so the shape is the real one, then handed over as the wire dict.
    wire = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]}
    return ChatCompletionChunk.model_validate(wire).to_dict()


@settings(max_examples=300, deadline=None)
@given(
    others=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "to_user"), json_values, max_size=4),
    to_user=st.one_of(st.text(), tricky_text),
    position=st.integers(min_value=0, max_value=4),
    ensure_ascii=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_random_arguments_split_anywhere_decode_exactly(
    others: dict[str, Any], to_user: str, position: int, ensure_ascii: bool, indent: int | None, cuts: list[int]
) -> None:
    items = list(others.items())
    items.insert(min(position, len(items)), ("to_user", to_user))
    raw = json.dumps(dict(items), ensure_ascii=ensure_ascii, indent=indent)
    bounds = sorted({0, len(raw), *(cut % (len(raw) + 1) for cut in cuts)})
    pieces = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]

    assembler = StreamAssembler()
    events = assembler.feed(chunk(0, "", call_id="call_x"))
    for piece in pieces:
        events += assembler.feed(chunk(0, piece))
    events += assembler.feed(chunk(0, "", finish="tool_calls"))

    assert "".join(e.text for e in events if isinstance(e, ToUserDelta)) == to_user
    ready = [e for e in events if isinstance(e, ToolCallReady)]
    assert len(ready) == 1 and ready[0].raw == raw
    assert ready[0].arguments == others
