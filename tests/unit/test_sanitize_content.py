"""Bidi controls, invisible characters and lone surrogates: removed from ordinary text, revealed where it matters."""

from __future__ import annotations

import json
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from tui_agent.sanitize import (
    StreamSanitizer,
    escape_for_terminal,
    may_decode_to_surrogate,
    replace_surrogates,
    replace_surrogates_in,
    reveal,
    sanitize,
)

TROJAN = "access = 'user\u202e \u2066// admin\u2069 \u2066'"


def test_bidi_overrides_and_isolates_are_removed_but_marks_kept() -> None:
    assert sanitize(TROJAN) == "access = 'user // admin '"
    for control in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert sanitize(f"a{control}b") == "ab"
    hebrew = "\u05e9\u05dc\u05d5\u05dd\u200f 123"  # a right-to-left mark is ordinary writing
    assert sanitize(hebrew) == hebrew


def test_lone_surrogates_become_replacement_characters_whole_or_streamed() -> None:
    assert sanitize("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    stream = StreamSanitizer()
    assert [stream.feed(chunk) for chunk in ["x\ud83d", "\ude00y"]] == ["x\ufffd", "\ufffdy"]
    assert sanitize("\U0001f600") == "\U0001f600"  # a real astral character is untouched


def test_reveal_names_every_invisible_character() -> None:
    assert reveal("rm -rf /tmp/\u202eexe.txt") == "rm -rf /tmp/⟨U+202E⟩exe.txt"
    assert reveal("a\u200bb\u200dc\ufeffd\U000e0041e") == "a⟨U+200B⟩b⟨U+200D⟩c⟨U+FEFF⟩d⟨U+E0041⟩e"
    assert reveal("echo ok\rrm -rf ~\x1b[2K") == "echo ok⟨U+000D⟩rm -rf ~⟨U+001B⟩[2K"
    assert reveal("line one\n\tline two \u05e9") == "line one\n\tline two \u05e9"
    assert reveal("bad \ud800") == "bad \ufffd"


def test_reveal_covers_every_format_character_of_this_python() -> None:
    missed = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cf", "Zl", "Zp", "Cc")
        and chr(code) not in "\n\t"
        and reveal(chr(code)) == chr(code)
    ]
    assert missed == []


@given(st.text())
def test_revealed_text_has_nothing_invisible(text: str) -> None:
    shown = reveal(text)
    shown.encode("utf-8")
    assert not any(unicodedata.category(ch) in ("Cf", "Cc") and ch not in "\n\t" for ch in shown)


@given(
    st.recursive(
        st.text() | st.integers() | st.none(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=20,
    )
)
def test_escaped_json_is_the_same_value_and_prints_safely(value: object) -> None:
    clean = replace_surrogates_in(value)
    text = escape_for_terminal(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(text) == clean
    text.encode("utf-8")
    assert not any(unicodedata.category(ch) in ("Cf", "Cc") and ch != "\n" for ch in text)


def test_surrogate_helpers() -> None:
    assert replace_surrogates("ok") == "ok"
    assert replace_surrogates_in({"k\udc00": ["v\ud800", 1]}) == {"k\ufffd": ["v\ufffd", 1]}
    assert may_decode_to_surrogate(r'{"a": "\ud800"}') and may_decode_to_surrogate(r'"\uDBFF"')
    assert not may_decode_to_surrogate(r'{"a": "\u00e9 plain"}')
