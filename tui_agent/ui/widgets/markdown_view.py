"""Provides `MarkdownView`: markdown as one widget whose cost does not grow with what was rendered before.

The text is split into *settled* blocks (complete top-level blocks: a blank line outside a code fence,
followed by an unindented line) and a live tail. Settled blocks are rendered once with Rich's Markdown
and kept as lines; each update re-renders only the tail. Frames draw only visible lines (line API), so
one long reply, or a log of many, costs one widget each. `freeze()` renders the whole text in one piece
for the exact final layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.markdown import Markdown
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


def settled_boundary(text: str) -> int:
    """Index where the last settled block of `text` ends (0 if none); text before it never re-flows.

    A boundary is the start of an unindented, non-blank line that follows a blank line outside a fenced
    code block. Only complete lines are looked at, so a half-streamed line never moves a boundary.
    """
    boundary, fence, previous_blank = 0, "", False
    position = 0
    while (end := text.find("\n", position)) != -1:
        line = text[position:end]
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if fence:
            if indent <= 3 and stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
                fence = ""
        elif indent <= 3 and stripped[:3] in ("```", "~~~"):
            fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
            boundary = position if previous_blank else boundary
        elif line.strip():
            if previous_blank and indent == 0 and not line.startswith("\t"):
                boundary = position
        previous_blank = not line.strip() and not fence
        position = end + 1
    if previous_blank and position < len(text) and text[position] not in " \t\n":
        boundary = position  # the next block has begun on a line still streaming
    return boundary


@dataclass
class _Rendered:
    """Rendered lines of the settled blocks at one width."""

    width: int = -1
    chunks: list[str] = field(default_factory=list)
    lines: list[Strip] = field(default_factory=list)


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
        self.refresh(layout=True)

    def freeze(self) -> None:
        """The text is final: render it as one document from now on."""
        self._frozen = True
        self._reset()
        self.refresh(layout=True)

    def _reset(self) -> None:
        self._settled = 0
        self._rendered = _Rendered()
        self._tail_dirty = True

    def _render_markdown(self, source: str, width: int) -> list[Strip]:
        console = self.app.console
        options = self.app.console_options.update(highlight=False, width=width, height=None).update_width(width)
        segments = console.render(Markdown(source), options)
        return [Strip(line) for line in Segment.split_and_crop_lines(segments, width, include_new_lines=False)]

    def _update_lines(self, width: int) -> None:
        """Bring the cached lines up to date for `width`: settle new blocks, re-render the tail."""
        width = max(width, 1)
        rendered = self._rendered
        if rendered.width != width:
            self._rendered = rendered = _Rendered(width, rendered.chunks)
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
            self._tail = self._render_block(tail, width, follows=bool(rendered.lines)) if tail.strip() else []
            self._tail_dirty = False

    def _add_chunk(self, chunk: str, width: int) -> None:
        if not chunk.strip():
            return
        lines = self._rendered.lines
        lines.extend(self._render_block(chunk, width, follows=bool(lines)))

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

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._update_lines(width)
        return len(self._rendered.lines) + len(self._tail)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._update_lines(width)
        settled = self._rendered.lines
        if y < len(settled):
            line = settled[y]
        elif y - len(settled) < len(self._tail):
            line = self._tail[y - len(settled)]
        else:
            line = Strip.blank(0)
        style = self.rich_style
        return line.apply_style(style).extend_cell_length(width, style)
