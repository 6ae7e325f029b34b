"""Terminal control sequences never survive sanitising, whole or split across chunks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui_agent.sanitize import StreamSanitizer, sanitize

CONTROL_PIECES = [
    "\x1b[31m",
    "\x1b[0m",
    "\x1b[2J",
    "\x1b[?1049h",
    "\x1b]52;c;aGVsbG8=\x07",
    "\x1b]0;title\x1b\\",
    "\x1bP1$r0m\x1b\\",
    "\x1b_apc\x1b\\",
    "\x1b^pm\x1b\\",
    "\x1bXsos\x1b\\",
    "\x1b7",
    "\x1b(B",
    "\x9b31m",
    "\x9d52;c;eA==\x9c",
    "\x07",
    "\x08",
    "\r",
    "\x00",
    "\x7f",
    "\x1b",
    "\x85",
    "\u202e",
    "\u2066",
    "\ud800",
]
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
plain_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters=BIDI_CONTROLS)
    | st.sampled_from("\n\t")
)
mixed_text = st.lists(plain_text | st.sampled_from(CONTROL_PIECES) | st.text()).map("".join)


@given(plain_text)
def test_plain_text_is_unchanged(text: str) -> None:
    assert sanitize(text) == text


@given(mixed_text)
def test_no_escape_or_control_survives(text: str) -> None:
    cleaned = sanitize(text)
    assert "\x1b" not in cleaned
    assert not any(ch in BIDI_CONTROLS or "\ud800" <= ch <= "\udfff" for ch in cleaned)
    cleaned.encode("utf-8")  # always encodable
    assert all(ch in "\n\t" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) for ch in cleaned)


@given(mixed_text, st.lists(st.integers(min_value=0, max_value=10_000)))
def test_split_at_any_points_equals_whole(text: str, cuts: list[int]) -> None:
    points = sorted({cut % (len(text) + 1) for cut in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    stream = StreamSanitizer()
    assert "".join(stream.feed(chunk) for chunk in chunks) + stream.flush() == sanitize(text)


def test_known_sequences_are_removed_and_text_kept() -> None:
    text = "a\x1b[1;31mred\x1b[0m b\x1b]52;c;ZXZpbA==\x07c\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ d\r\n"
    assert sanitize(text) == "ared bclink d\n"


def test_sequence_split_across_chunks() -> None:
    stream = StreamSanitizer()
    assert [stream.feed(c) for c in ["ok\x1b", "]52;c;", "aGk=", "\x07done"]] == ["ok", "", "", "done"]


def test_markup_like_text_is_not_touched() -> None:
    assert sanitize("[bold]x[/bold] [/INST]") == "[bold]x[/bold] [/INST]"
