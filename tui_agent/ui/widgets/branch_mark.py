"""Provides `BranchMark`, what a prompt or reply in the chat log has for the conversation tree: the `‹2/3›`
mark of a message with siblings (other versions of it, on other branches), and the highlight of a selected
code block inside it. The message widgets hold one each (composition: it owns its state, the widget draws).

A message asks for its mark as it mounts (`BranchMark.Wanted`, to the chat screen, which asks the port once and
remembers): entries are let go and made again as the log pages, and a copy asks again, answered at once.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tui_agent.sanitize import sanitize


def branch_label(index: int, count: int, model: str = "") -> str:
    """`‹2/3›`: the message is the second of three versions; `‹2/3› · gpt-4o` when it was made with another model
    than the session's."""
    return f"‹{index + 1}/{count}›" + (f" · {model}" if model else "")


def branch_css(name: str) -> str:
    """The CSS of widget class `name`'s mark and cursor (each message class adds this to its DEFAULT_CSS)."""
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


class BranchMark:
    """A message of the conversation tree as the chat log shows it: its place among its siblings (`‹2/3›`)
    and the rows of the code block the message cursor highlights. Each prompt and reply widget holds one
    (`branch_mark`) and draws through it (`highlighted`)."""

    class Wanted(Message):
        """A message with an id was mounted: the screen shows its `‹2/3›` when it has siblings."""

        def __init__(self, entry: Widget, message_id: str) -> None:
            # a widget (the prompt or reply that holds this mark): this module sits below the messages
            super().__init__()
            self.entry, self.message_id = entry, message_id

    def __init__(self, widget: Widget, on_show: Callable[[int, int], None] | None = None) -> None:
        self.widget = widget
        self.on_show = on_show
        """Told the message's place among its versions once it is known (a retried reply's note says it)."""
        self.branch: tuple[int, int] | None = None
        """(index, count) among its siblings, once known."""
        self.model = ""
        """The model that made this version, when it is not the session's ("": the session's)."""
        self.code_rows: tuple[int, int] | None = None
        """Lines [start, end) of the code block the cursor is on, highlighted; None: no code block selected."""

    def show(self, index: int, count: int, model: str = "") -> None:
        """Show `‹index+1/count›` above the message (nothing when it is the only version), with the model that
        made it when that is not the session's (`model`; "": the session's)."""
        before, self.branch, self.model = self.branch, (index, count), model
        if self.on_show is not None:
            self.on_show(index, count)
        if count <= 1 and (before is None or before[1] <= 1):
            return  # the only version (most messages): nothing to draw, no restyle
        self.widget.set_class(count > 1, "-branched")
        self.widget.border_title = Content(branch_label(index, count, sanitize(model))) if count > 1 else None

    def highlight_code(self, rows: tuple[int, int] | None) -> None:
        if rows != self.code_rows:
            self.code_rows = rows
            self.widget.refresh()

    def highlighted(self, strip: Strip, y: int) -> Strip:
        """Line `y` of the message as drawn (`strip`), highlighted when it is in the selected code block."""
        rows = self.code_rows
        if rows is None or not rows[0] <= y < rows[1]:
            return strip
        highlight = self.widget.screen.get_component_rich_style("screen--selection")
        style = Style(bgcolor=highlight.bgcolor, color=highlight.color)
        segments: list[Segment] = list(Segment.apply_style(list(strip), post_style=style))
        return Strip(segments, strip.cell_length)
