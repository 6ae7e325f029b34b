"""Provides `AttachmentChips`: the strip above the prompt showing the files and images the next prompt carries.

One chip per attachment (`[file notes.md 2 KB]`, `[image shot.png 48 KB]`); a click on a chip removes it, as
Backspace on an empty prompt removes the last one. Hidden when there are none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.containers import Horizontal
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from tui_agent.sanitize import sanitize

if TYPE_CHECKING:
    from tui_agent.agent.records import AttachmentRef

HINT = "click a chip or Backspace on an empty prompt to remove"


class AttachmentChip(Static):
    """One attachment; a click removes it."""

    DEFAULT_CSS = """
    AttachmentChip {
        width: auto;
        margin-right: 1;
        color: $accent;
        text-style: bold;
    }
    AttachmentChip:hover {
        text-style: bold strike;
    }
    """

    def __init__(self, index: int, ref: AttachmentRef) -> None:
        super().__init__(Content(sanitize(ref.label)))
        self.index, self.ref = index, ref
        self.tooltip = f"{ref.note}; click to remove" if ref.note else "click to remove"

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(AttachmentChips.Removed(self.index))


class AttachmentChips(Horizontal):
    """The next prompt's attachments."""

    DEFAULT_CSS = """
    AttachmentChips {
        height: auto;
        padding: 0 1;
        background: $boost;
    }
    AttachmentChips .chips-hint {
        width: auto;
        color: $text-muted;
        text-style: dim italic;
    }
    """

    class Removed(Message):
        """A chip was clicked: the attachment at `index` is to go."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.refs: list[AttachmentRef] = []
        self.display = False

    def show(self, refs: Sequence[AttachmentRef]) -> None:
        """Show these attachments (none: hide the strip)."""
        self.refs = list(refs)
        self.display = bool(self.refs)
        self.query(AttachmentChip).remove()
        self.query(".chips-hint").remove()
        if self.refs:
            self.mount_all([AttachmentChip(i, ref) for i, ref in enumerate(self.refs)])
            self.mount(Static(HINT, classes="chips-hint"))
