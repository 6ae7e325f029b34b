"""Provides `StreamRedaction`: redacts a text that keeps growing, paying only for what is new.

A streaming reply is saved every few hundred milliseconds, each time whole; redacting the whole text each
time costs ~20 ms per MB on the event loop, so a long reply costs quadratic time. Here the text is cut
into a *settled* part, redacted once and kept, and a tail redacted again on each call. The result is
exactly `Redactor.text` of the whole text, because a cut is only made where no redaction can span it:

- at the start of a line (every token shape but a PEM block is a run of characters without a newline,
  and so is every known secret without one) at least `MARGIN` characters before the end, so that
  whatever could span the cut has arrived whole;
- not inside an occurrence of a known secret that holds a newline;
- not inside a PEM block (checked on the text after the first pass, as `Redactor.text` sees it).

Known gap: a PEM footer line of more than 4 KiB could end a block that was settled as unterminated;
both redact the key, only how far the redaction reaches differs.
"""

from __future__ import annotations

import re
import threading

from tui_agent.history.redact import Redactor
from tui_agent.history.token_shapes import PEM_BLOCK, PEM_HEADER, REDACTED

MARGIN = 8192
"""Characters kept in the tail at least (or the longest secret's length, if longer): what could span a cut
must have arrived whole when the cut is made."""
PEM_REACH = 16_384 + 4096
"""A PEM block with no footer yet may still get one until the text is this much longer than its start
(its body's reach, plus a footer line of up to 4 KiB)."""


class StreamRedaction:
    """`Redactor.text` of a text that only grows, redacting only its tail on each call."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._cut = 0
        """Characters of the text settled (redacted once, for good)."""
        self._settled: list[str] = []
        """The settled part, redacted."""
        secrets = redactor.secrets
        self._multiline = [secret for secret in secrets if "\n" in secret]
        self._margin = max([MARGIN, *map(len, secrets)])
        self._whole = any(REDACTED in secret for secret in secrets)
        """A secret made of the marker could appear where another was replaced: no cuts then."""
        self._lock = threading.Lock()
        """Calls run in worker threads; a save cancelled on its way goes on there while the final one starts."""

    def text(self, text: str) -> str:
        """`text` redacted; `text` must extend the text of the previous call (else it is redacted whole)."""
        with self._lock:
            return self._text(text)

    def _text(self, text: str) -> str:
        if self._cut and (len(text) < self._cut or text[self._cut - 1] != "\n"):
            self._cut, self._settled = 0, []
        tail = text[self._cut :]
        cut = self._candidate(tail)
        known = self._redactor.known
        head, rest = (known(tail[:cut]), known(tail[cut:])) if cut else ("", known(tail))
        if cut and self._spanned(head, rest):
            head, rest, cut = "", head + rest, 0
        if cut:
            self._settled.append(self._redactor.shapes(head))
            self._cut += cut
        return "".join([*self._settled, self._redactor.shapes(rest)])

    def _candidate(self, tail: str) -> int:
        """Where `tail` could be cut (0: nowhere): after its last newline before the margin, unless an
        occurrence of a secret holding a newline spans that."""
        if self._whole or len(tail) <= self._margin:
            return 0
        cut = tail.rfind("\n", 0, len(tail) - self._margin) + 1
        for secret in self._multiline:
            if tail.find(secret, max(cut - len(secret) + 1, 0), cut + len(secret) - 1) != -1:
                return 0
        return cut

    @staticmethod
    def _spanned(head: str, rest: str) -> bool:
        """Does a PEM block starting in `head` reach into `rest` (in the text after the first pass)?"""
        start = head.find(PEM_HEADER)
        if start == -1:
            return False
        whole = head + rest
        while start != -1:
            match = PEM_BLOCK.match(whole, start)
            if match is not None and (match.end() > len(head) or _may_grow(match, len(whole))):
                return True
            start = head.find(PEM_HEADER, start + 1)
        return False


def _may_grow(match: re.Match[str], length: int) -> bool:
    """Could a footer still arrive and make this block (matched without one) reach further?"""
    has_footer = "-----END " in match.group()
    return not has_footer and length - match.start() < PEM_REACH
