"""Provides `FreshChatWanted`: a chat screen's controller (a fork, a compaction, a sub-agent's session opened as
the current one), or the app's "New session", asks for the current session to be drawn in a fresh chat screen.

The controllers live under the chat screen, so they cannot build its successor themselves without importing
the screens above them: they post this message to the app, which answers it (`show_fresh_chat`).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.message import Message


class FreshChatWanted(Message):
    """Draw the current session in a fresh chat screen, with `note` after it and `then_send` sent then."""

    def __init__(self, *, note: str | None = None, then_send: Sequence[str] = ()) -> None:
        super().__init__()
        self.note = note
        self.then_send = then_send
