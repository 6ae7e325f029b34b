"""Provides `StreamingSaver`: saves a streaming reply's text (and other parts) at most every `interval` seconds.

`push()` and `push_part()` are synchronous and cheap (called per token); one background write carries
everything pushed since the last one, so a reply costs a handful of writes however many tokens it has.
`finish()` writes the full text and parts with the final status. Each save redacts only what is new in the
text and in each part (`StreamRedaction`), so a long reply's saves cost time linear in its length, not
quadratic; and it does so in a worker thread: the regular expressions hold the GIL, but the interpreter hands
it back to the event loop every few milliseconds, so keys and frames get in while a large delta is redacted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tui_agent.history.errors import HistoryError
from tui_agent.history.models import Usage
from tui_agent.history.stream_redaction import StreamRedaction
from tui_agent.status import MessageStatus

if TYPE_CHECKING:
    from tui_agent.history.store import HistoryStore


class StreamingSaver:
    """Coalesces streamed text into at most one save per `interval` for one message."""

    def __init__(
        self,
        store: HistoryStore,
        message_id: str,
        interval: float = 0.3,
        *,
        text: str = "",
        parts: Mapping[str, str] | None = None,
    ) -> None:
        """`text` and `parts` (kind → text): what the message already holds (a reply being continued); what is
        pushed follows them."""
        self._store = store
        self._message_id = message_id
        self._interval = interval
        self._parts: list[str] = [text] if text else []
        self._other: dict[str, list[str]] = {kind: [held] for kind, held in (parts or {}).items() if held}
        self._saved_length = len(text)
        self._saved_parts = self._lengths()
        self._last_save = time.monotonic()
        self._timer: asyncio.Task[None] | None = None
        self._finished = False
        self._redaction = StreamRedaction(store.redactor)
        self._part_redactions: dict[str, StreamRedaction] = {}
        """One per part kind: a long reasoning grows like the text and is redacted the same way."""
        self.error: HistoryError | None = None
        """The last background save's failure, if one failed."""

    @property
    def text(self) -> str:
        """Everything pushed so far."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def parts(self) -> dict[str, str]:
        """All of each other part pushed so far, by kind."""
        for kind, pieces in self._other.items():
            if len(pieces) > 1:
                self._other[kind] = ["".join(pieces)]
        return {kind: pieces[0] for kind, pieces in self._other.items()}

    def _lengths(self) -> dict[str, int]:
        return {kind: len(text) for kind, text in self.parts.items()}

    def push(self, text: str) -> None:
        """Append streamed text; a save is scheduled if none is pending."""
        if self._finished or not text:
            return
        self._parts.append(text)
        self._schedule()

    def push_part(self, kind: str, text: str) -> None:
        """Append a streamed piece of another part (reasoning, ...); saved with the text, by the same writes."""
        if self._finished or not text:
            return
        self._other.setdefault(kind, []).append(text)
        self._schedule()

    def _unsaved(self) -> bool:
        return len(self.text) > self._saved_length or self._lengths() != self._saved_parts

    def _schedule(self) -> None:
        if self._timer is None:
            delay = max(0.0, self._last_save + self._interval - time.monotonic())
            self._timer = asyncio.get_running_loop().create_task(self._save_after(delay), name="history-save")

    async def _save_after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        text, parts = self.text, self.parts
        self._last_save = time.monotonic()
        try:
            redacted, redacted_parts = await asyncio.to_thread(self._redact, text, parts)  # see the module docstring
            await self._store.update_streaming_text(self._message_id, redacted, redacted_parts or None, redacted=True)
            self._saved_length, self._saved_parts = len(text), {kind: len(held) for kind, held in parts.items()}
        except HistoryError as error:
            # A background save has no caller to raise to; `finish()` writes the whole text anyway.
            self.error = error
        finally:
            self._timer = None
        if self._unsaved() and not self._finished:
            self._timer = asyncio.get_running_loop().create_task(self._save_after(self._interval), name="history-save")

    def _redact(self, text: str, parts: dict[str, str]) -> tuple[str, dict[str, str]]:
        """The text and each part as `Redactor.text` makes them, paying only for what is new in each."""
        redactions = self._part_redactions
        for kind in parts.keys() - redactions.keys():
            redactions[kind] = StreamRedaction(self._store.redactor)
        return self._redaction.text(text), {kind: redactions[kind].text(held) for kind, held in parts.items()}

    @property
    def saved_length(self) -> int:
        """How many characters the last completed save wrote."""
        return self._saved_length

    async def finish(self, status: MessageStatus, error: str | None = None, usage: Usage | None = None) -> None:
        """Stop saving and write the full text with its final status, error and usage."""
        self._finished = True
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            # A save already on its way to the database is allowed to land first (it is superseded anyway).
            await asyncio.gather(timer, return_exceptions=True)
        content, parts = await asyncio.to_thread(self._redact, self.text, self.parts)
        await self._store.finish_message(
            self._message_id, status, content=content, error=error, usage=usage, parts=parts or None, redacted=True
        )
        self._saved_length, self._saved_parts = len(self.text), self._lengths()
