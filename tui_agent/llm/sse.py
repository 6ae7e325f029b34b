"""Provides `SSEParser`: server-sent events from raw response bytes, as `data` payload strings.

Bytes are decoded as strict UTF-8 (bad bytes raise `UnicodeDecodeError` instead of turning into
replacement characters), lines split on `\\n` (with `\\r\\n` tolerated; never on the Unicode line
separators a JSON string may contain), and an event is complete at a blank line. Comments, `event:`,
`id:` and `retry:` fields are ignored: chat completions only use `data:`.
"""

from __future__ import annotations

import codecs


class SSEParser:
    """Feed network blocks with `feed`; call `close` at the end of the body for a last unterminated event."""

    __slots__ = ("_decoder", "_tail", "_data")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._tail = ""
        self._data: list[str] = []

    def feed(self, block: bytes) -> list[str]:
        """The payloads of every event completed by this block."""
        text = self._tail + self._decoder.decode(block)
        if not self._data and "\r" not in text:
            # What a chat stream sends, ~150 events a block: `data: <payload>` lines, each ending its event. When
            # every event of the block is one such line (counted in C: no other newline, each starts `data: `),
            # its payloads are cut out at once; anything else is read line by line below.
            events = text.split("\n\n")
            tail = events.pop()
            done = text[: len(text) - len(tail)]
            if done.count("\n") == 2 * len(events) and ("\n\n" + done).count("\n\ndata: ") == len(events):
                self._tail = tail  # may hold a whole `data:` line whose blank line is still to come
                return [event[6:] for event in events]
        lines = text.split("\n")
        self._tail = lines.pop()
        return self._lines(lines)

    def close(self) -> list[str]:
        """Payloads left when the body ended (an event missing its blank line still counts)."""
        rest = self._tail + self._decoder.decode(b"", final=True)
        self._tail = ""
        return self._lines([*rest.split("\n"), ""])

    def _lines(self, lines: list[str]) -> list[str]:
        payloads: list[str] = []
        data = self._data
        for line in lines:
            if line and line[-1] == "\r":
                line = line[:-1]
            if not line:
                if data:
                    payloads.append(data[0] if len(data) == 1 else "\n".join(data))
                    data.clear()
            elif line.startswith("data:"):
                data.append(line[6:] if line.startswith("data: ") else line[5:])
        return payloads
