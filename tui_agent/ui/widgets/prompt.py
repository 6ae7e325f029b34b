"""Provides `PromptInput`: the multi-line prompt. Enter sends; Shift+Enter or Ctrl+J adds a newline;
Up on the first line and Down on the last line walk through earlier prompts, this run's and earlier runs'
(`PromptHistory`: a private file in the data dir, redacted, read at the first Enter or Up, not before the
first frame).

A paste longer than `PASTE_CHIP_CHARS` shows as a chip (`[pasted 1.0 MB, 1 line]`) instead of its text:
a megabyte in the box would make every later keystroke re-lay it out. The whole paste is sent in the
chip's place; deleting any of the chip's characters drops the paste. An earlier prompt that long, recalled
with Up, shows as a chip too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea

if TYPE_CHECKING:
    from tui_agent.history.prompts import PromptHistory

NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j", "newline"})
PASTE_CHIP_CHARS = 10_000
"""A paste (or recalled prompt) longer than this shows as a chip standing for it."""


def chip_label(text: str, what: str = "pasted") -> str:
    """`[pasted 1.0 MB, 3 lines]`: what a chip shows for `text`."""
    size = len(text.encode("utf-8", errors="replace"))
    amount = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} KB"
    lines = text.count("\n") + 1
    return f"[{what} {amount}, {lines:,} line{'s' if lines > 1 else ''}]"


class PromptInput(TextArea):
    """The prompt at the bottom of the chat screen (TextArea's own look; `#prompt` in app.tcss draws its border)."""

    class Submitted(Message):
        """The person pressed Enter on a non-empty prompt."""

        def __init__(self, prompt_input: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt_input, self.text = prompt_input, text

    def __init__(self, *, id: str | None = None, cursor_blink: bool = True) -> None:  # noqa: A002
        super().__init__(
            id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False, highlight_cursor_line=False
        )
        self.cursor_blink = cursor_blink
        self.placeholder = "Ask anything — Enter sends, Shift+Enter or Ctrl+J for a new line, Esc stops a reply"
        self.prompt_history: list[str] = []
        self._stored: PromptHistory | None = None
        """Earlier runs' prompts, loaded into `prompt_history` when first needed."""
        self._recall_index: int | None = None
        self._draft = ""
        self._chips: dict[str, str] = {}
        """The text each chip in the box stands for."""

    @property
    def prompt_text(self) -> str:
        """What Enter would send: the box's text with each chip replaced by the text it stands for."""
        text = self.text
        for chip, full in self._chips.items():
            text = text.replace(chip, full)
        return text

    def _chip(self, text: str, what: str = "pasted") -> str:
        """A chip standing for `text` (numbered when the same label is already in use)."""
        chip, label, number = chip_label(text, what), chip_label(text, what), 1
        while chip in self._chips and self._chips[chip] != text:
            number += 1
            chip = f"{label[:-1]} #{number}]"
        self._chips[chip] = text
        return chip

    def on_paste(self, event: events.Paste) -> None:
        """A long paste goes in as a chip; anything else is left to TextArea (it inserts the text)."""
        if len(event.text) <= PASTE_CHIP_CHARS or self.read_only:
            return
        self._consume(event)
        result = self.replace(self._chip(event.text), *self.selection, maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        self.focus()

    def render_line(self, y: int) -> Strip:
        if self.content_size.width < 1:  # TextArea wraps its placeholder to this width: 0 would raise
            return Strip.blank(0)
        return super().render_line(y)

    def on_key(self, event: events.Key) -> None:
        """The prompt's own keys; any other key is left to TextArea (typing, cursor moves, its bindings)."""
        if event.key == "enter":
            self._consume(event)
            self.submit()
        elif event.key in NEWLINE_KEYS:
            self._consume(event)
            self.insert("\n")
            # TextArea scrolls to the cursor before the new line is laid out: at the bottom of a full
            # prompt the cursor's line stayed hidden until the next key.
            self.call_after_refresh(self.scroll_cursor_visible)
        elif event.key == "up" and self.cursor_location[0] == 0 and self._recall(-1):
            self._consume(event)
        elif event.key == "down" and self.cursor_location[0] == self.document.line_count - 1 and self._recall(+1):
            self._consume(event)

    @staticmethod
    def _consume(event: events.Key | events.Paste) -> None:
        """Handled here: the event goes no further, and TextArea's own handler (the default) does not run."""
        event.stop()
        event.prevent_default()

    def submit(self) -> None:
        """Send the prompt (if it has any text), remember it and clear the input."""
        text = self.prompt_text
        if not text.strip():
            return
        stored = self._stored_history()
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
            stored.add(text)
        self._recall_index = None
        self._chips.clear()
        self.load_text("")  # much cheaper than an undoable delete when a huge paste was sent
        self.post_message(self.Submitted(self, text))

    def _recall(self, step: int) -> bool:
        """Show the previous (-1) or next (+1) prompt from history; False when there is none to move to."""
        self._stored_history()
        if not self.prompt_history or (self._recall_index is None and step > 0):
            return False
        if self._recall_index is None:
            self._draft = self.prompt_text
            index = len(self.prompt_history) - 1
        else:
            index = self._recall_index + step
        if index < 0:
            return True  # at the oldest prompt: stay there
        if index >= len(self.prompt_history):
            self._recall_index = None
            self._show(self._draft)
            return True
        self._recall_index = index
        self._show(self.prompt_history[index])
        return True

    def _show(self, text: str) -> None:
        self._chips.clear()
        self.load_text(self._chip(text, "earlier prompt") if len(text) > PASTE_CHIP_CHARS else text)
        self.move_cursor(self.document.end)

    def _stored_history(self) -> PromptHistory:
        """The stored history, loading earlier runs' prompts ahead of this run's the first time."""
        if self._stored is None:
            # The history module (and its redactor) load here, at the first Enter or Up, not before the first frame.
            from tui_agent.history.prompts import PromptHistory

            self._stored = PromptHistory.default()
            self.prompt_history[:0] = self._stored.load()
        return self._stored
