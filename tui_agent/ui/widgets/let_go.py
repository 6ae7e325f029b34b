"""Provides `LetGo`: what the chat log keeps of an entry it unmounted (the log's entries and the thinking block
make one each; the log window keeps them). Its own module, below the entries, so that the thinking block and
the messages that hold it both use it without importing each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from textual.widget import Widget


class LetGo(NamedTuple):
    """An entry the chat log unmounted, kept as what it takes to make it again (a widget is much heavier:
    thousands of them kept alive make every full garbage collection a visible stall). A NamedTuple: its
    class is made before the first frame, where a frozen dataclass costs ~0.6 ms more."""

    make: Callable[[], Widget]
    """Makes the entry again (a widget: this module sits below the entries and does not name them)."""
    message_id: str | None = None
    """The reply's id, for an assistant message (its tool calls are hidden while it is let go)."""
    chars: int = 0
    """The reply's length, for an assistant message (what bounds a page of long replies)."""
