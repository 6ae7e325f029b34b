"""Provides `sanitize`, `StreamSanitizer` and `reveal`: untrusted text made safe for a terminal.

Model output and tool results may carry escape sequences (colours, cursor moves, OSC 52 clipboard
writes, window titles). They are dropped, never passed to the terminal: CSI, OSC, DCS/APC/PM/SOS
strings, two-character escapes and every C0/C1 control except newline and tab. `StreamSanitizer`
keeps its state between chunks, so a sequence split across chunks is removed exactly as if the text
had arrived whole. Domain-neutral: used by the UI, `-p` printing and the `sessions` commands alike.

Ordinary text also loses the bidi embedding, override and isolate controls (U+202A-U+202E,
U+2066-U+2069), which can make a terminal show text in an order other than the one it has ("Trojan
Source"); the bidi marks (U+200E, U+200F, U+061C) stay, as right-to-left writing needs them and they
cannot reorder letters. A lone surrogate (legal in JSON, not encodable) becomes U+FFFD.

`reveal` is for text a person must judge exactly (a command waiting for approval, tool arguments):
every control, bidi and other invisible format character is shown as `⟨U+202E⟩` instead.
"""

from __future__ import annotations

import re
from enum import Enum, auto
from typing import Any

ESC = "\x1b"
BEL = "\x07"
ST_C1 = "\x9c"
_CAN_SUB = ("\x18", "\x1a")
REPLACEMENT = "\ufffd"
_SPECIAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Anything that is not plain text: all C0 controls but tab and newline, DEL, the C1 range, bidi
embeddings/overrides/isolates and lone surrogates."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_INVISIBLE = (  # a pattern `re` compiles (and caches) when `reveal` first runs, not before the first frame
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)
"""What `reveal` shows by code point: controls (but newline and tab), every format character (Unicode
category Cf: bidi controls and marks, zero-width characters, tag characters...), the line and paragraph
separators and the Hangul fillers, which all draw as nothing."""

_STRING_OPENERS_ESC = frozenset("]P_^X")
"""After ESC: OSC, DCS, APC, PM, SOS — strings that run until ST (or BEL for OSC)."""
_STRING_OPENERS_C1 = frozenset("\x9d\x90\x9f\x9e\x98")
_CSI_C1 = "\x9b"


class _State(Enum):
    TEXT = auto()
    ESC = auto()
    ESC_INTERMEDIATE = auto()
    CSI = auto()
    STRING = auto()
    STRING_ESC = auto()


class StreamSanitizer:
    """Removes control sequences from a stream of chunks; `feed` each chunk, `flush` at the end."""

    def __init__(self) -> None:
        self._state = _State.TEXT

    def feed(self, chunk: str) -> str:
        """Return the displayable part of `chunk`; an unfinished sequence is held until the next one."""
        if self._state is _State.TEXT and _SPECIAL.search(chunk) is None:
            return chunk  # plain text, nearly every chunk: no list to build and join
        out: list[str] = []
        index, length = 0, len(chunk)
        while index < length:
            if self._state is _State.TEXT:
                match = _SPECIAL.search(chunk, index)
                end = match.start() if match else length
                out.append(chunk[index:end])
                if match is None:
                    break
                index = end
                if _SURROGATE.match(chunk, index):
                    out.append(REPLACEMENT)
                    index += 1
                    continue
            self._step(chunk[index])
            index += 1
        return "".join(out)

    def flush(self) -> str:
        """End of stream: an unfinished sequence is dropped. Returns "" (kept for symmetry with feed)."""
        self._state = _State.TEXT
        return ""

    def _step(self, char: str) -> None:
        """Advance the state machine by one control-sequence character (never emits text)."""
        state = self._state
        if state is _State.TEXT:
            self._state = self._after_control(char)
        elif state is _State.ESC:
            self._state = self._after_esc(char)
        elif state is _State.ESC_INTERMEDIATE:
            self._state = self._after_intermediate(char)
        elif state is _State.CSI:
            self._state = self._in_csi(char)
        elif state is _State.STRING:
            self._state = self._in_string(char)
        else:
            self._state = _State.TEXT if char == "\\" else self._in_string(char)

    @staticmethod
    def _after_control(char: str) -> _State:
        if char == ESC:
            return _State.ESC
        if char == _CSI_C1:
            return _State.CSI
        if char in _STRING_OPENERS_C1:
            return _State.STRING
        return _State.TEXT  # any other control character is simply dropped

    def _after_esc(self, char: str) -> _State:
        if char == "[":
            return _State.CSI
        if char in _STRING_OPENERS_ESC:
            return _State.STRING
        if "\x20" <= char <= "\x2f":
            return _State.ESC_INTERMEDIATE
        if "\x30" <= char <= "\x7e":
            return _State.TEXT  # a two-character escape such as ESC 7 or ESC c
        return self._abort(char)

    def _after_intermediate(self, char: str) -> _State:
        if "\x20" <= char <= "\x2f":
            return _State.ESC_INTERMEDIATE
        if "\x30" <= char <= "\x7e":
            return _State.TEXT
        return self._abort(char)

    def _in_csi(self, char: str) -> _State:
        if "\x20" <= char <= "\x3f":
            return _State.CSI  # parameter and intermediate bytes
        if "\x40" <= char <= "\x7e":
            return _State.TEXT  # final byte
        return self._abort(char)

    @staticmethod
    def _in_string(char: str) -> _State:
        if char == ESC:
            return _State.STRING_ESC
        if char in (BEL, ST_C1) or char in _CAN_SUB:
            return _State.TEXT
        return _State.STRING

    def _abort(self, char: str) -> _State:
        """A malformed sequence ends here; a control character that broke it starts over (text is dropped)."""
        return self._after_control(char) if _SPECIAL.match(char) else _State.TEXT


def sanitize(text: str) -> str:
    """Return `text` with every terminal control sequence and control character (but \\n and \\t) and every
    bidi embedding, override and isolate removed, and lone surrogates replaced by U+FFFD."""
    if _SPECIAL.search(text) is None:
        return text
    return StreamSanitizer().feed(text)


def replace_surrogates(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (a string Python can encode as UTF-8)."""
    return _SURROGATE.sub(REPLACEMENT, text) if _SURROGATE.search(text) else text


def replace_surrogates_in(value: Any) -> Any:
    """A decoded JSON value (dicts, lists, strings) with lone surrogates replaced in every string and key."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, dict):
        return {replace_surrogates(str(k)): replace_surrogates_in(v) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_surrogates_in(v) for v in value]
    return value


def may_decode_to_surrogate(json_text: str) -> bool:
    """Whether JSON text has a `\\uD800`-`\\uDFFF` escape (the only way JSON decodes to a surrogate). Cheap,
    so decoded values are only walked when it says yes; a valid pair also says yes, harmlessly."""
    return "\\u" in json_text and _SURROGATE_ESCAPE.search(json_text) is not None


def reveal(text: str) -> str:
    """`text` with every control and invisible format character (newline and tab excepted) shown as
    `⟨U+XXXX⟩`, so nothing in it acts on the terminal or hides what is there; lone surrogates become U+FFFD."""
    text = replace_surrogates(text)
    return re.sub(_INVISIBLE, _code_point, text) if re.search(_INVISIBLE, text) else text


def _code_point(match: re.Match[str]) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"


def escape_for_terminal(json_text: str) -> str:
    """JSON text with every control and invisible character (see `reveal`) written as a `\\uXXXX` escape: the
    same JSON value, safe to print. Outside strings JSON has only spaces and newlines, which stay."""
    json_text = replace_surrogates(json_text)
    return re.sub(_INVISIBLE, _json_escape, json_text) if re.search(_INVISIBLE, json_text) else json_text


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"
