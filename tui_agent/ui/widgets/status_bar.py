"""Provides `StatusBar`: model, endpoint, session title and the session's tokens in/out, on one line; and a
warning while history is not being saved (database locked, disk full, read-only)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from tui_agent.sanitize import sanitize


class StatusBar(Static):
    """The line at the very bottom of the chat screen."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.model = ""
        self.endpoint = ""
        self.title = ""
        self.tokens_in = 0
        self.tokens_out = 0
        self.busy = False
        self.unsaved: str | None = None

    def show(self, *, model: str, endpoint: str, title: str) -> None:
        self.model, self.endpoint, self.title = model, endpoint, title
        self._redraw()

    def set_usage(self, tokens_in: int, tokens_out: int) -> None:
        self.tokens_in, self.tokens_out = tokens_in, tokens_out
        self._redraw()

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self._redraw()

    def set_unsaved(self, unsaved: str | None) -> None:
        """Show why history is not being saved (None: it is)."""
        self.unsaved = unsaved
        self._redraw()

    def _redraw(self) -> None:
        state = "● replying — Esc stops" if self.busy else "○ ready"
        warning = [] if self.unsaved is None else [Content.styled(f"⚠ not saved: {self.unsaved}", "bold $warning")]
        parts = [
            Content(state),
            *warning,
            Content.styled(sanitize(self.model), "bold"),
            Content(sanitize(self.endpoint)),
            Content(sanitize(self.title)),
            Content(f"tokens in {self.tokens_in:,} / out {self.tokens_out:,}"),
        ]
        self.update(Content("  │  ").join(parts))
