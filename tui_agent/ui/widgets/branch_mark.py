"""Provides `BranchMarked`, what a prompt or reply in the chat log has for the conversation tree: the `‹2/3›`
mark of a message with siblings (other versions of it, on other branches), the message cursor's highlight,
and the highlight of a selected code block inside it.

A message asks for its mark as it mounts (`MarkWanted`, to the chat screen, which asks the port once and
remembers): entries are let go and made again as the log pages, and a copy asks again, answered at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget


def branch_label(index: int, count: int) -> str:
    """`‹2/3›`: the message is the second of three versions."""
    return f"‹{index + 1}/{count}›"


def branch_css(name: str) -> str:
    """The CSS of widget class `name`'s mark and cursor (Textual reads CSS along a widget's first base only,
    so a mixin's own would be skipped: each message class adds this to its DEFAULT_CSS)."""
    return f"""
    {name}.-branched {{
        margin-top: 0;
        border-top: blank;
        border-title-align: right;
        border-title-color: $text-muted;
    }}
    {name}.-cursor {{
        outline-left: thick $accent;
        background: $boost;
    }}
    """


if TYPE_CHECKING:  # a mixin for widgets: typed as one, a plain class at run time (see `branch_css`)
    _Mixin = Widget
else:
    _Mixin = object


class BranchMarked(_Mixin):
    """A message of the conversation tree, as the chat log shows it (mixed into `UserMessage` and
    `AssistantMessage`, before their widget base)."""

    class MarkWanted(Message):
        """A message with an id was mounted: the screen shows its `‹2/3›` when it has siblings."""

        def __init__(self, entry: BranchMarked, message_id: str) -> None:
            super().__init__()
            self.entry, self.message_id = entry, message_id

    branch: tuple[int, int] | None = None
    """(index, count) among its siblings, once known."""
    code_rows: tuple[int, int] | None = None
    """Lines [start, end) of the code block the cursor is on, highlighted; None: no code block selected."""

    @property
    def tree_id(self) -> str | None:
        """The message's id in history (None for a prompt whose turn has not started yet)."""
        return getattr(self, "message_id", None)

    def on_mount(self) -> None:
        if (message_id := self.tree_id) is not None:
            self.post_message(self.MarkWanted(self, message_id))

    def show_branch(self, index: int, count: int) -> None:
        """Show `‹index+1/count›` above the message (nothing when it is the only version)."""
        before, self.branch = self.branch, (index, count)
        if count <= 1 and (before is None or before[1] <= 1):
            return  # the only version (most messages): nothing to draw, no restyle
        self.set_class(count > 1, "-branched")
        self.border_title = Content(branch_label(index, count)) if count > 1 else None

    def highlight_code(self, rows: tuple[int, int] | None) -> None:
        if rows != self.code_rows:
            self.code_rows = rows
            self.refresh()

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        rows = self.code_rows
        if rows is None or not rows[0] <= y < rows[1]:
            return strip
        highlight = self.screen.get_component_rich_style("screen--selection")
        style = Style(bgcolor=highlight.bgcolor, color=highlight.color)
        segments: list[Segment] = list(Segment.apply_style(list(strip), post_style=style))
        return Strip(segments, strip.cell_length)
