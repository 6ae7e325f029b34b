"""Provides `ChatMarkdown`: Rich's markdown as the chat draws it — an ordered list's numbers keep their dot
(`1. step`, as written and as every other markdown view shows them; Rich's own drops it: `1 step`), and code
blocks are drawn at a lower cost (`markdown_code`), with the same segments.

Imported when the first reply is drawn (markdown-it and Rich's renderers are not loaded at start-up).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem, Markdown, MarkdownElement
from rich.segment import Segment

from tui_agent.ui.widgets.markdown_code import ChatCodeBlock


class _ListItem(ListItem):
    """A list item whose number is drawn with its dot, right-aligned to the list's widest number."""

    def render_number(self, console: Console, options: ConsoleOptions, number: int, last_number: int) -> RenderResult:
        width = len(f"{last_number}.") + 2  # a space either side, as Rich pads its bullets
        lines = console.render_lines(self.elements, options.update(width=options.max_width - width), style=self.style)
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)
        padding = Segment(" " * width, style)
        for index, line in enumerate(lines):
            yield numeral if index == 0 else padding
            yield from line
            yield Segment("\n")


class ChatMarkdown(Markdown):
    """Rich's `Markdown` with the chat's list items and code blocks."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "list_item_open": _ListItem,
        "fence": ChatCodeBlock,
        "code_block": ChatCodeBlock,
    }
