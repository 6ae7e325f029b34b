"""Provides `MarkdownView`: markdown as one widget whose cost does not grow with what was rendered before.

The text is split into *settled* blocks (complete top-level blocks: a blank line outside a code fence,
followed by an unindented line) and a live tail. Settled blocks are rendered once with Rich's Markdown
and kept as lines; each update re-renders only the tail. Frames draw only visible lines (line API), so
one long reply, or a log of many, costs one widget each. `freeze()` renders the whole text in one piece
for the exact final layout.

Text selection (mouse drag, select all, Ctrl+C) works on the rendered lines: each line carries the offsets
Textual's selection needs, the selected span is drawn in the screen's selection style, and
`get_selection` returns the text as shown (a line API widget otherwise yields its CSS identifier).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


GROWTH_STEP = 4
"""Lines a streaming view grows by at a time."""


def _starts_block(line: str, closing_list: bool) -> bool:
    """Can an unindented `line` after a blank line start a new, independent block?"""
    if not line or line[0] in " \t":
        return False  # indented: continues a list item or is code belonging to what came before
    return not (closing_list and _LIST_ITEM.match(line))  # same list, made loose by the blank line


_RULE = re.compile(r" {0,3}([-*_])(?: *\1){2,} *")


def ends_with_rule(chunk: str) -> bool:
    """Does `chunk` end with a thematic break (which Rich follows with no blank line)?"""
    lines = chunk.rstrip().split("\n")
    if not _RULE.fullmatch(lines[-1]):
        return False
    return len(lines) == 1 or not lines[-2].strip() or lines[-1].strip()[0] != "-"  # else a setext heading


def settled_boundary(text: str) -> int:
    """Index where the last settled block of `text` ends (0 if none); text before it never re-flows.

    A boundary is the start of an unindented line that follows a blank line outside a fenced code block
    and cannot continue the block before it. Only complete lines decide, so a half-streamed line never
    moves a boundary, except that a new block's first characters settle what is before them.
    """
    boundary, fence, previous_blank, block_is_list = 0, "", False, False
    position = 0
    while (end := text.find("\n", position)) != -1:
        line = text[position:end]
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if fence:
            if indent <= 3 and stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
                fence = ""
        elif line.strip():
            if previous_blank and _starts_block(line, block_is_list):
                boundary, block_is_list = position, bool(_LIST_ITEM.match(line))
            elif position == 0:
                block_is_list = bool(_LIST_ITEM.match(line))
            if indent <= 3 and stripped[:3] in ("```", "~~~"):
                fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
        previous_blank = not line.strip() and not fence
        position = end + 1
    rest = text[position:]
    if previous_blank and rest.strip() and rest[0] not in "-+*0123456789" and _starts_block(rest, block_is_list):
        boundary = position  # the next block has begun on a line still streaming
    return boundary


@dataclass
class _Rendered:
    """Rendered lines of the settled blocks at one width."""

    width: int = -1
    chunks: list[str] = field(default_factory=list)
    lines: list[Strip] = field(default_factory=list)
    last_chunk: str = ""


class MarkdownView(Widget):
    """Markdown text, appended to while it streams, drawn from cached lines."""

    DEFAULT_CSS = """
    MarkdownView { height: auto; }
    """

    def __init__(self, text: str = "", *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._text = text
        self._settled = 0
        self._frozen = False
        self._rendered = _Rendered()
        self._tail: list[Strip] = []
        self._tail_dirty = True
        self._line_style = Style()
        self._styled: dict[int | str, Strip | Style] = {}
        """Settled lines with the widget's style applied, by line number (plus the style they used)."""

    @property
    def text(self) -> str:
        """The markdown source shown so far."""
        return self._text

    def set_text(self, text: str) -> None:
        """Replace the shown text (an append when `text` extends the current one) and redraw."""
        if self._frozen or not text.startswith(self._text[: self._settled]):
            self._reset()
        self._text = text
        self._tail_dirty = True
        width = self._rendered.width
        if width <= 0 or not self.is_attached:
            self.refresh(layout=True)
            return
        height, unchanged = self._height(), len(self._rendered.lines)
        self._update_lines(width)
        if self._height() != height:
            self.refresh(layout=True)
        else:  # repaint only from the first line that can have changed: no layout, a small region
            width, height = self.size  # regions are in content coordinates
            self.refresh(Region(0, unchanged, width, max(height - unchanged, 1)))

    def _height(self) -> int:
        lines = len(self._rendered.lines) + len(self._tail)
        if self._frozen:
            return lines
        # While streaming, grow in steps of a few lines: each step is a layout of the whole screen,
        # so a reply gaining a line at a time would pay for one on almost every flush.
        return -(-(lines + 1) // GROWTH_STEP) * GROWTH_STEP

    def freeze(self) -> None:
        """The text is final: render it as one document from now on."""
        self._frozen = True
        self._reset()
        self.refresh(layout=True)

    def thaw(self) -> None:
        """The text grows again (a reply being continued): back to rendering it as it streams."""
        self._frozen = False
        self._reset()
        self.refresh(layout=True)

    def _reset(self) -> None:
        self._styled.clear()
        self._settled = 0
        self._rendered = _Rendered()
        self._tail_dirty = True

    def prepare(self, width: int) -> None:
        """Render now for `width` (content cells), so the frame that first lays this out only arranges it."""
        self._update_lines(width)

    def _render_markdown(self, source: str, width: int) -> list[Strip]:
        console = self.app.console
        options = self.app.console_options.update(highlight=False, width=width, height=None).update_width(width)
        from rich.markdown import Markdown  # markdown-it and Rich's renderers load at the first reply, not at start-up

        segments = console.render(Markdown(source), options)
        return [Strip(line) for line in Segment.split_and_crop_lines(segments, width, include_new_lines=False)]

    def _update_lines(self, width: int) -> None:
        """Bring the cached lines up to date for `width`: settle new blocks, re-render the tail."""
        width = max(width, 1)
        rendered = self._rendered
        if rendered.width != width:
            self._rendered = rendered = _Rendered(width, rendered.chunks)  # same blocks, new width
            self._styled.clear()
            for chunk in rendered.chunks:
                self._add_chunk(chunk, width)
            self._tail_dirty = True
        boundary = len(self._text) if self._frozen else self._settled + settled_boundary(self._text[self._settled :])
        if boundary > self._settled:
            chunk = self._text[self._settled : boundary]
            rendered.chunks.append(chunk)
            self._add_chunk(chunk, width)
            self._settled = boundary
            self._tail_dirty = True
        if self._tail_dirty:
            tail = self._text[self._settled :]
            self._tail = self._render_block(tail, width, follows=self._follows()) if tail.strip() else []
            self._tail_dirty = False

    def _follows(self) -> bool:
        """Does the next block get Rich's separator line? Not at the top, nor after a horizontal rule."""
        rendered = self._rendered
        return bool(rendered.last_chunk) and not ends_with_rule(rendered.last_chunk)

    def _add_chunk(self, chunk: str, width: int) -> None:
        if not chunk.strip():
            return
        self._rendered.lines.extend(self._render_block(chunk, width, follows=self._follows()))
        self._rendered.last_chunk = chunk

    def _render_block(self, source: str, width: int, *, follows: bool) -> list[Strip]:
        """Render blocks as they would look after earlier blocks: Rich puts the separator line before a
        paragraph, heading or code block itself, so a one-line stand-in paragraph is rendered and cut off."""
        if not follows:
            return self._render_markdown(source, width)
        return self._render_markdown(f"x\n\n{source}", width)[1:]

    def shown_text(self) -> str:
        """Plain text of every rendered line at the current width (what a person sees, scrolled or not)."""
        self._update_lines(self.size.width)
        return "\n".join(line.text.rstrip() for line in [*self._rendered.lines, *self._tail])

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the text as shown (rendered lines, as copied from a terminal)."""
        self._update_lines(self.size.width)
        lines = [line.text.rstrip() for line in [*self._rendered.lines, *self._tail]]
        return selection.extract("\n".join(lines)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._styled.clear()  # cached lines carry the old highlight
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._update_lines(width)
        return self._height()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._line_style = self.rich_style  # computing it is not cheap: once per pass, not per line
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._update_lines(width)
        style = self._line_style
        settled = self._rendered.lines
        if y >= len(settled):
            tail_y = y - len(settled)
            line = self._tail[tail_y] if tail_y < len(self._tail) else Strip.blank(0)
            return self._selectable(line, y, style).extend_cell_length(width, style)
        cache = self._styled
        if cache.get("style") != style:  # the theme or the background changed
            cache.clear()
            cache["style"] = style
        strip = cache.get(y)
        if not isinstance(strip, Strip):
            strip = cache[y] = self._selectable(settled[y], y, style).extend_cell_length(width, style)
        return strip

    def _selectable(self, line: Strip, y: int, style: Style) -> Strip:
        """`line` in the widget's style, with the selection offsets (and highlight, if selected) applied."""
        line = line.apply_style(style)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            end = line.cell_length if end == -1 else end
            highlight = self.screen.get_component_rich_style("screen--selection")
            before, chosen, after = line.divide([start, max(start, end), line.cell_length])
            line = Strip.join([before, chosen.apply_style(highlight), after])
        return line.apply_offsets(0, y)
