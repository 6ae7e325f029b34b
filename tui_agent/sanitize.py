"""Provides `sanitize` and `StreamSanitizer`: untrusted text with terminal control sequences removed.

Model output and tool results may carry escape sequences (colours, cursor moves, OSC 52 clipboard
writes, window titles). They are dropped, never passed to the terminal: CSI, OSC, DCS/APC/PM/SOS
strings, two-character escapes and every C0/C1 control except newline and tab. `StreamSanitizer`
keeps its state between chunks, so a sequence split across chunks is removed exactly as if the text
had arrived whole. Domain-neutral: used by the UI and by `-p` printing alike.
"""

from __future__ import annotations

import re
from enum import Enum, auto

ESC = "\x1b"
BEL = "\x07"
ST_C1 = "\x9c"
_CAN_SUB = ("\x18", "\x1a")
_SPECIAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Anything that is not plain text: all C0 controls but tab and newline, DEL and the C1 range."""

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
    """Return `text` with every terminal control sequence and control character (but \\n and \\t) removed."""
    if _SPECIAL.search(text) is None:
        return text
    return StreamSanitizer().feed(text)
